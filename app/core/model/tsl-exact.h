/* tsl-exact.h: every slice of a time window, up to a budget
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Zoomed in, a window of a trace often holds few enough events to draw them
 * all: a re-read of that window records every span and instant of every
 * thread or async track that overlaps it (start, end, stack, byte position),
 * as long as no track holds more than `per_track` of them and all tracks
 * together no more than `total`. Past either budget the recorder gives up
 * (everything it held is freed) and the view stays sampled. Memory is
 * bounded by the budget, not by the input.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The budgets of a zoomed-in view (window and `export --view`): 32 bytes a
 * slice, so at most 32 MB. */
#define TSL_EXACT_PER_TRACK 100000
#define TSL_EXACT_TOTAL     1000000

typedef struct {
  gint64  start_ns;   /* absolute, as the reader gives them */
  gint64  end_ns;     /* == start_ns for an instant */
  gint64  offset;     /* byte position of the event in the input, -1 if unknown */
  guint32 label;      /* stack, root first, ';'-joined: tsl_exact_lookup() */
  guint32 pad;
} TslExactSlice;

typedef struct _TslExact TslExact;

TslExact         *tsl_exact_new                 (gint64           start_ns,
                                                 gint64           end_ns,
                                                 guint            per_track,
                                                 guint            total);
void              tsl_exact_free                (TslExact        *self);
/* Records a slice of `track` when it overlaps the window; returns TRUE when
 * it did (the next tsl_exact_set_label() names it). */
gboolean          tsl_exact_record              (TslExact        *self,
                                                 guint            track,
                                                 gint64           start_ns,
                                                 gint64           end_ns,
                                                 gint64           offset);
void              tsl_exact_set_label           (TslExact        *self,
                                                 const char      *label,
                                                 gsize            len);
/* FALSE once a budget was exceeded: nothing is held any more. */
gboolean          tsl_exact_is_complete         (TslExact        *self);
void              tsl_exact_get_window          (TslExact        *self,
                                                 gint64          *start_ns,
                                                 gint64          *end_ns);
const TslExactSlice *tsl_exact_get_slices       (TslExact        *self,
                                                 guint            track,
                                                 guint           *n);
const char       *tsl_exact_lookup              (TslExact        *self,
                                                 guint32          label);
guint             tsl_exact_get_n_labels        (TslExact        *self);

G_END_DECLS
