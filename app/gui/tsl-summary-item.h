/* tsl-summary-item.h: one row of a range's summary, for list models
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "tsl-range-summary.h"

G_BEGIN_DECLS

#define TSL_TYPE_SUMMARY_ITEM (tsl_summary_item_get_type ())
G_DECLARE_FINAL_TYPE (TslSummaryItem, tsl_summary_item, TSL, SUMMARY_ITEM, GObject)

/* Takes ownership of `row`. */
TslSummaryItem      *tsl_summary_item_new          (TslSummaryRow  *row);
const TslSummaryRow *tsl_summary_item_get_row      (TslSummaryItem *self);

G_END_DECLS
