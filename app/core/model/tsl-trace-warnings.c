/* tsl-trace-warnings.c: what a reader warns of, and what the budget folded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"

/* The track names stay as they are (they are data in CSV and JSON output);
 * what the warnings call their tracks is translated. */
static const char *const fold_nouns[] = {
  [TSL_TRACK_THREAD] = N_("the threads"),
  [TSL_TRACK_COUNTER] = N_("the counters"),
  [TSL_TRACK_METRIC] = N_("the series"),
  [TSL_TRACK_ASYNC] = N_("the async spans"),
};

static void
add_warning_valist (TslTrace       *self,
                    TslWarningKind  kind,
                    const char     *format,
                    va_list         args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);

  self->changes++;
  tsl_warnings_add_counted (self->warnings, message, 1, kind);
}

void
tsl_trace_add_warning (TslTrace   *self,
                       const char *format,
                       ...)
{
  va_list args;

  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (format != NULL);

  va_start (args, format);
  add_warning_valist (self, TSL_WARNING_COUNTED, format, args);
  va_end (args);
}

void
tsl_trace_add_warning_once (TslTrace   *self,
                            const char *format,
                            ...)
{
  va_list args;

  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (format != NULL);

  va_start (args, format);
  add_warning_valist (self, TSL_WARNING_ONCE, format, args);
  va_end (args);
}

void
tsl_trace_add_tally (TslTrace   *self,
                     guint64     n,
                     const char *what)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (what != NULL);

  if (n == 0)
    return;
  self->changes++;
  tsl_warnings_add_tally (self->warnings, what, n);
}

static guint64
budget_mib (TslTrace *self)
{
  guint64 bytes = tsl_budget_get_process_bytes (self->budget);

  return (bytes != 0 ? bytes : 4 * tsl_budget_get_limit (self->budget)) >> 20;
}

/* What the budget made the trace leave out, as of now. */
static void
add_budget_warnings (TslTrace  *self,
                     GPtrArray *out)
{
  guint lowered = 0, min_k = self->k;

  for (guint i = 0; i < self->tracks->len; i++)
    {
      TslSampler *sampler = ((Track *) g_ptr_array_index (self->tracks, i))->sampler;

      if (tsl_sampler_get_k_lowered (sampler))
        {
          lowered++;
          min_k = MIN (min_k, tsl_sampler_get_k (sampler));
        }
    }
  if (lowered > 0)
    g_ptr_array_add (out, g_strdup_printf (_("memory budget of %llu MiB reached: %u tracks keep "
                                             "fewer samples (K lowered to as little as %u from %u); "
                                             "a larger --memory-budget keeps more"),
                                           (unsigned long long) budget_mib (self), lowered, min_k, self->k));

  for (guint i = 0; i < G_N_ELEMENTS (self->fold_tracks); i++)
    if (self->fold_tracks[i] != 0)
      /* TRANSLATORS: the first %s is "the threads", "the counters"…, the
       * second the name of the track, which stays in English. */
      g_ptr_array_add (out, g_strdup_printf (_("memory budget of %llu MiB reached after %u tracks: "
                                               "%llu events of %s seen after that are folded into "
                                               "the track \"%s\""),
                                             (unsigned long long) budget_mib (self),
                                             g_hash_table_size (self->track_ids),
                                             (unsigned long long) tsl_sampler_get_events (((Track *) g_ptr_array_index (self->tracks, self->fold_tracks[i] - 1))->sampler),
                                             _(fold_nouns[i]), _tsl_trace_fold_name (i)));
  if (self->dropped_meta > 0)
    g_ptr_array_add (out, g_strdup_printf (_("memory budget of %llu MiB: %llu thread or process names "
                                             "and sort indices of folded threads were not kept"),
                                           (unsigned long long) budget_mib (self),
                                           (unsigned long long) self->dropped_meta));
}

GStrv
tsl_trace_dup_warnings (TslTrace *self)
{
  g_auto(GStrv) read = NULL;
  GPtrArray *out = g_ptr_array_new ();

  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  read = tsl_warnings_dup (self->warnings);
  for (guint i = 0; read[i] != NULL; i++)
    g_ptr_array_add (out, g_steal_pointer (&read[i]));
  add_budget_warnings (self, out);
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

GStrv
tsl_trace_dup_warnings_counted (TslTrace *self,
                                GArray   *counts)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  return tsl_warnings_dup_counted (self->warnings, counts);
}
