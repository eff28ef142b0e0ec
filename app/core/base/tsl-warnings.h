/* tsl-warnings.h: a reader's warnings, grouped by message and bounded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _TslWarnings TslWarnings;

TslWarnings      *tsl_warnings_new              (void);
void              tsl_warnings_free             (TslWarnings  *self);
/* Takes `message`; the same message again only counts. */
void              tsl_warnings_take             (TslWarnings  *self,
                                                 char         *message);
/* (transfer full): "message" or "message (N times)", in first-seen order. */
GStrv             tsl_warnings_dup              (TslWarnings  *self);
/* (transfer full): the messages alone; `counts` (guint64) gets how often
 * each was seen. */
GStrv             tsl_warnings_dup_counted      (TslWarnings  *self,
                                                 GArray       *counts);

G_END_DECLS
