/* tsl-summary-item.c: one row of a range's summary, for list models
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-summary-item"

#include "config.h"

#include "tsl-summary-item.h"

struct _TslSummaryItem
{
  GObject        parent_instance;
  TslSummaryRow *row;
};

G_DEFINE_FINAL_TYPE (TslSummaryItem, tsl_summary_item, G_TYPE_OBJECT)

static void
tsl_summary_item_finalize (GObject *object)
{
  g_clear_pointer (&TSL_SUMMARY_ITEM (object)->row, tsl_summary_row_free);
  G_OBJECT_CLASS (tsl_summary_item_parent_class)->finalize (object);
}

static void
tsl_summary_item_class_init (TslSummaryItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = tsl_summary_item_finalize;
}

static void
tsl_summary_item_init (TslSummaryItem *self)
{
}

TslSummaryItem *
tsl_summary_item_new (TslSummaryRow *row)
{
  TslSummaryItem *self;

  g_return_val_if_fail (row != NULL, NULL);

  self = g_object_new (TSL_TYPE_SUMMARY_ITEM, NULL);
  self->row = row;
  return self;
}

const TslSummaryRow *
tsl_summary_item_get_row (TslSummaryItem *self)
{
  g_return_val_if_fail (TSL_IS_SUMMARY_ITEM (self), NULL);
  return self->row;
}
