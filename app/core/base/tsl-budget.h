/* tsl-budget.h: a memory budget shared by the traces of one process
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tracks and their samples take bytes from a budget as they are created and
 * grow; a take that would pass the limit fails, and the caller keeps less
 * (lowers K, or folds a new track into an "other" one). The limit is the
 * share of the process budget the samples may hold (see
 * tsl_budget_new_for_process()); the rest is for the copies drawn from them
 * and for reading. Thread-safe: several traces may share one.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The whole process stays within this by default (bytes). */
#define TSL_BUDGET_DEFAULT_PROCESS (G_GUINT64_CONSTANT (256) << 20)
/* The smallest process budget accepted (MiB): below it the program itself
 * and its reading buffers would not fit. */
#define TSL_BUDGET_MIN_PROCESS_MIB 64

typedef struct _TslBudget TslBudget;

/* `limit` bytes for samples and tracks. */
TslBudget        *tsl_budget_new                (guint64       limit);
/* The samples' share of a whole-process budget of `process_bytes`. */
TslBudget        *tsl_budget_new_for_process    (guint64       process_bytes);
/* A budget of its own for `limit` bytes that `whole` set aside, named after
 * the same process budget in warnings. */
TslBudget        *tsl_budget_new_part           (const TslBudget *whole,
                                                 guint64       limit);
TslBudget        *tsl_budget_ref                (TslBudget    *self);
void              tsl_budget_unref              (TslBudget    *self);
/* The process budget it was made for (0 when made with tsl_budget_new()). */
guint64           tsl_budget_get_process_bytes  (const TslBudget *self);
guint64           tsl_budget_get_limit          (const TslBudget *self);
guint64           tsl_budget_get_used           (const TslBudget *self);
/* Takes `bytes` and returns TRUE, or returns FALSE and takes nothing. */
gboolean          tsl_budget_try_take           (TslBudget    *self,
                                                 gsize         bytes);
/* The same, as long as what is used stays at most `ceiling` (≤ the limit). */
gboolean          tsl_budget_try_take_below     (TslBudget    *self,
                                                 gsize         bytes,
                                                 guint64       ceiling);
/* Takes `bytes` whatever the limit (for the little a track must have). */
void              tsl_budget_take               (TslBudget    *self,
                                                 gsize         bytes);
void              tsl_budget_give               (TslBudget    *self,
                                                 gsize         bytes);

/* Parses a process budget in MiB as the command line and the environment
 * (TIMESLICE_MEMORY_BUDGET) give it: "512", "512M", "2G"; FALSE with a
 * message for anything else or below TSL_BUDGET_MIN_PROCESS_MIB. */
gboolean          tsl_budget_parse_mib          (const char   *text,
                                                 guint64      *bytes,
                                                 GError      **error);
/* TIMESLICE_MEMORY_BUDGET when set and valid, else the default; a bad value
 * is reported through `error` and the default returned. */
guint64           tsl_budget_process_bytes_from_env (GError  **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslBudget, tsl_budget_unref)

G_END_DECLS
