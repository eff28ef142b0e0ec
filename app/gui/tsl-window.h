/* tsl-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "tsl-application.h"

G_BEGIN_DECLS

#define TSL_TYPE_WINDOW (tsl_window_get_type ())
G_DECLARE_FINAL_TYPE (TslWindow, tsl_window, TSL, WINDOW, AdwApplicationWindow)

TslWindow        *tsl_window_new                (TslApplication *application);
/* Loads `file` in this window (replacing what it shows). */
void              tsl_window_open               (TslWindow      *self,
                                                 GFile          *file);
/* Follow mode: keep reading as the file grows (also `timeslice --follow`). */
void              tsl_window_set_follow         (TslWindow      *self,
                                                 gboolean        follow);
/* TRUE when no file is open or loading. */
gboolean          tsl_window_is_empty           (TslWindow      *self);
/* TRUE while a file is being read. */
gboolean          tsl_window_is_loading         (TslWindow      *self);

G_END_DECLS
