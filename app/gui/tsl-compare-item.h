/* tsl-compare-item.h: one row of the compare table, for list models
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "tsl-compare.h"

G_BEGIN_DECLS

#define TSL_TYPE_COMPARE_ITEM (tsl_compare_item_get_type ())
G_DECLARE_FINAL_TYPE (TslCompareItem, tsl_compare_item, TSL, COMPARE_ITEM, GObject)

/* Takes ownership of `row`; `rank` is its place in the core's order
 * (tsl_compare_sort_by_impact()), 0 first. */
TslCompareItem      *tsl_compare_item_new          (TslCompareRow  *row,
                                                    guint           rank);
guint                tsl_compare_item_get_rank     (TslCompareItem *self);
/* The series' thread is its first `length` bytes (a track's name, which
 * may hold '/'); unset, the first '/' ends it. */
void                 tsl_compare_item_set_thread_length (TslCompareItem *self,
                                                         gsize           length);
/* (transfer full): the series' thread (a metric: its whole name). */
char                *tsl_compare_item_dup_thread   (TslCompareItem *self);
/* The function after the thread's '/'; "" for a metric. */
const char          *tsl_compare_item_get_function (TslCompareItem *self);
const TslCompareRow *tsl_compare_item_get_row      (TslCompareItem *self);
const char          *tsl_compare_item_get_series   (TslCompareItem *self);
gboolean             tsl_compare_item_get_significant (TslCompareItem *self);
/* (transfer full) (nullable): why a too-few or too-dependent row was not
 * tested, e.g. "too few calls (1 vs 1)", as `compare --details` says; NULL
 * otherwise. */
char                *tsl_compare_item_dup_untested (TslCompareItem *self);
/* |change| for sorting; -1 when undefined so those rows sort last. */
double               tsl_compare_item_get_magnitude (TslCompareItem *self);
/* (transfer full) (nullable): for a row marked waiting, "wall +40 %, CPU
 * +2 %: waiting"; NULL otherwise. */
char                *tsl_compare_item_dup_waiting  (TslCompareItem *self);
/* The level of the row's interval (default 0.95), which its tooltip says. */
void                 tsl_compare_item_set_confidence (TslCompareItem *self,
                                                      double          confidence);
/* (transfer full) (nullable): why the row's interval has an infinite end
 * (range A's value not told from 0), for its tooltip; NULL when bounded. */
char                *tsl_compare_item_dup_unbounded (TslCompareItem *self);
/* (transfer full): the untested and waiting notes the Significance column
 * is sized for, with two-digit numbers. */
GStrv                tsl_compare_item_dup_typical_notes (void);

G_END_DECLS
