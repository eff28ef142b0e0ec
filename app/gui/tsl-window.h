/* tsl-window.h: the main window: a timeline, its ranges and the compare panel
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
/* Loads several files as one timeline: a group per file, aligned by their
 * clocks where they share one, else each from 0, then moved by offsets[i]
 * (ns; NULL for none). One file is tsl_window_open(). */
void              tsl_window_open_merged        (TslWindow      *self,
                                                 GFile         **files,
                                                 guint           n_files,
                                                 const gint64   *offsets);
/* 1 for one file, 0 for none. */
guint             tsl_window_get_n_files        (TslWindow      *self);
gint64            tsl_window_get_file_offset    (TslWindow      *self,
                                                 guint           i);
/* Moves merged file i to `offset` from where its clock puts it. */
void              tsl_window_set_file_offset    (TslWindow      *self,
                                                 guint           i,
                                                 gint64          offset);
/* Follow mode: keep reading as the file grows (also `timeslice --follow`). */
void              tsl_window_set_follow         (TslWindow      *self,
                                                 gboolean        follow);
/* TRUE when no file is open or loading. */
gboolean          tsl_window_is_empty           (TslWindow      *self);
/* TRUE while a file is being read. */
gboolean          tsl_window_is_loading         (TslWindow      *self);

G_END_DECLS
