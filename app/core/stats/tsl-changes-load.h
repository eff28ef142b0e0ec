/* tsl-changes-load.h: a file's change points from the cache, else found and kept
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What `timeslice changes` does, for the window and the report: the table
 * the cache holds for an unchanged file and the same options
 * (tsl-changes-cache.h), read back into rows, or tsl_changes_run() and the
 * table saved for next time.
 */
#pragma once

#include "tsl-changes.h"

G_BEGIN_DECLS

/* K per track of `timeslice changes` (its --k), which the window uses too. */
#define TSL_CHANGES_DEFAULT_K 2000

/* (transfer full) (element-type TslChangeRow): every row, most important
 * first. `from_cache` (optional) says whether the cache served them. May
 * block: call from a worker thread. */
GPtrArray        *tsl_changes_load              (const TslCompareRequest *request,
                                                 GPtrArray               *warnings,
                                                 gboolean                *from_cache,
                                                 GCancellable            *cancellable,
                                                 GError                 **error);

/* (transfer full) (element-type TslChangeRow): rows of a table as
 * tsl_changes_format_csv() writes it; an error names the line and what was
 * expected. A row's effect is not in the table and reads NAN. */
GPtrArray        *tsl_changes_parse_csv         (const char              *csv,
                                                 GError                 **error);

/* The stretches either side of rows[index], in s from the trace start:
 * from the same series' and statistic's previous change point with a
 * p-value below TSL_CHANGES_SPLIT_P (or `start_s`) to its time, and from
 * there to the next (or `end_s`) — exactly what its before and after
 * values were measured over. FALSE when either stretch would be empty. */
gboolean          tsl_changes_stretches         (GPtrArray               *rows,
                                                 guint                    index,
                                                 double                   start_s,
                                                 double                   end_s,
                                                 double                  *before_s,
                                                 double                  *after_s);

G_END_DECLS
