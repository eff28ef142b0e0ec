/* tsl-warnings.h: a reader's warnings, grouped by message and bounded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _TslWarnings TslWarnings;

typedef enum {
  TSL_WARNING_COUNTED,  /* "message", "message (N times)" */
  TSL_WARNING_ONCE,     /* a fact about the input, not counted */
  TSL_WARNING_TALLY,    /* a count a reader kept: "12,345 message" */
} TslWarningKind;

TslWarnings      *tsl_warnings_new              (void);
void              tsl_warnings_free             (TslWarnings  *self);
/* Takes `message`; the same message again only counts. */
void              tsl_warnings_take             (TslWarnings  *self,
                                                 char         *message);
/* A fact about the input ("names that are not valid UTF-8 were read"): seen
 * again, in this read or a merged part, it is not counted again. */
void              tsl_warnings_take_once        (TslWarnings  *self,
                                                 char         *message);
/* `count` more of what a reader tallies ("packets not shown"): parts of
 * one input merged add up to the whole's count. */
void              tsl_warnings_add_tally        (TslWarnings  *self,
                                                 const char   *message,
                                                 guint64       count);
/* (transfer full): "message" or "message (N times)" (a tally "N message"),
 * in first-seen order. */
GStrv             tsl_warnings_dup              (TslWarnings  *self);
/* (transfer full): the messages alone; `counts` (guint64) gets how often
 * each was seen. */
GStrv             tsl_warnings_dup_counted      (TslWarnings  *self,
                                                 GArray       *counts);

/* `count` more of `message` (copied, valid UTF-8), as if taken `count`
 * times (once, for a fact; added up, for a tally). */
void              tsl_warnings_add_counted      (TslWarnings  *self,
                                                 const char   *message,
                                                 guint64       count,
                                                 TslWarningKind kind);
/* Messages past the distinct ones kept, counted only. */
guint64           tsl_warnings_get_dropped      (TslWarnings  *self);
void              tsl_warnings_add_dropped      (TslWarnings  *self,
                                                 guint64       count);
guint             tsl_warnings_get_n            (TslWarnings  *self);
/* (transfer none): the i-th distinct message, first seen first. */
const char       *tsl_warnings_get_nth          (TslWarnings  *self,
                                                 guint         i,
                                                 guint64      *count,
                                                 TslWarningKind *kind);
/* "12,345" (transfer full) */
char             *tsl_format_count              (guint64       n);

G_END_DECLS
