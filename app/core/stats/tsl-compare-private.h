/* tsl-compare-private.h: row by row, for building series lazily
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "tsl-compare.h"

G_BEGIN_DECLS

/* One row without its q-value; (transfer full). */
TslCompareRow    *_tsl_compare_row_new          (const TslCompareSeries  *series,
                                                 const TslCompareRequest *request,
                                                 const char              *range_key,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);
/* q-values across the rows, then each row's significance. */
void              _tsl_compare_finish_table     (GPtrArray               *rows,
                                                 const TslCompareRequest *request);

G_END_DECLS
