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
/* A fact about the input ("names that are not valid UTF-8 were read"): seen
 * again, in this read or a merged part, it is not counted again. */
void              tsl_warnings_take_once        (TslWarnings  *self,
                                                 char         *message);
/* (transfer full): "message" or "message (N times)", in first-seen order. */
GStrv             tsl_warnings_dup              (TslWarnings  *self);
/* (transfer full): the messages alone; `counts` (guint64) gets how often
 * each was seen. */
GStrv             tsl_warnings_dup_counted      (TslWarnings  *self,
                                                 GArray       *counts);

/* `count` more of `message` (copied, valid UTF-8), as if taken `count`
 * times (or once, for a fact). */
void              tsl_warnings_add_counted      (TslWarnings  *self,
                                                 const char   *message,
                                                 guint64       count,
                                                 gboolean      once);
/* Messages past the distinct ones kept, counted only. */
guint64           tsl_warnings_get_dropped      (TslWarnings  *self);
void              tsl_warnings_add_dropped      (TslWarnings  *self,
                                                 guint64       count);
guint             tsl_warnings_get_n            (TslWarnings  *self);
/* (transfer none): the i-th distinct message, first seen first. */
const char       *tsl_warnings_get_nth          (TslWarnings  *self,
                                                 guint         i,
                                                 guint64      *count,
                                                 gboolean     *once);

G_END_DECLS
