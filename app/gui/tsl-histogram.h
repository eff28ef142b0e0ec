/* tsl-histogram.h: the bootstrap distribution of the selected compare row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-compare-item.h"

G_BEGIN_DECLS

#define TSL_TYPE_HISTOGRAM (tsl_histogram_get_type ())
G_DECLARE_FINAL_TYPE (TslHistogram, tsl_histogram, TSL, HISTOGRAM, GtkWidget)

GtkWidget        *tsl_histogram_new              (void);
void              tsl_histogram_set_item         (TslHistogram   *self,
                                                  TslCompareItem *item);
TslCompareItem   *tsl_histogram_get_item         (TslHistogram   *self);

G_END_DECLS
