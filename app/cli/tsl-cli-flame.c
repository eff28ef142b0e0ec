/* tsl-cli-flame.c: `timeslice export --flamegraph` and collapsed stacks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With a range, the file is re-read per range as `compare` reads it and the
 * tree holds every event of the range (tsl_flame_new_exact), so these
 * numbers are the window's. The whole trace, or a pipe that cannot be
 * re-read, is drawn from the samples kept in one count-mode pass, and the
 * subtitle says so. By CPU time (--weight cpu) the tree always comes from
 * range reads, the whole trace read as the range 0%..100%: kept samples
 * hold no thread time.
 */
#define G_LOG_DOMAIN "tsl-cli-export"

#include "config.h"

#include <string.h>

#include "tsl-budget.h"
#include "tsl-cli-private.h"
#include "tsl-export.h"
#include "tsl-flame.h"
#include "tsl-range.h"
#include "tsl-render-flame.h"
#include "tsl-snapshot.h"
#include "tsl-time-math.h"

#define MAX_SIDE 20000

static gboolean
parse_weight (const char     *text,
              TslFlameWeight *weight)
{
  if (text == NULL || g_str_equal (text, "auto"))
    *weight = TSL_FLAME_WEIGHT_AUTO;
  else if (g_str_equal (text, "samples"))
    *weight = TSL_FLAME_WEIGHT_SAMPLES;
  else if (g_str_equal (text, "time"))
    *weight = TSL_FLAME_WEIGHT_TIME;
  else if (g_str_equal (text, "cpu"))
    *weight = TSL_FLAME_WEIGHT_CPU;
  else
    return FALSE;
  return TRUE;
}

/* --thread names → track indices; FALSE with a message naming the threads. */
static gboolean
select_threads (TslSnapshot  *snapshot,
                char        **names,
                GArray       *indices,
                GError      **error)
{
  for (guint n = 0; names != NULL && names[n] != NULL; n++)
    {
      gboolean found = FALSE;

      for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
        {
          const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

          if (track->kind == TSL_TRACK_THREAD && g_strcmp0 (track->name, names[n]) == 0)
            {
              g_array_append_val (indices, i);
              found = TRUE;
            }
        }

      if (!found)
        {
          g_autoptr(GString) known = g_string_new (NULL);

          for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
            if (tsl_snapshot_get_track (snapshot, i)->kind == TSL_TRACK_THREAD)
              g_string_append_printf (known, "%s“%s”", known->len ? ", " : "",
                                      tsl_snapshot_get_track (snapshot, i)->name);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       "no thread named “%s” (threads: %s)", names[n], known->str);
          return FALSE;
        }
    }

  return TRUE;
}

static char *
describe_range (const char *text,
                gint64      start,
                gint64      end)
{
  g_autofree char *span = tsl_duration_format_range (start, end);

  return g_strdup_printf ("%s (%s)", text, span);
}

static int
write_text (const char *output,
            TslFlame   *flame,
            gboolean    folded)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOutputStream) out = tsl_cli_open_output (output, &error);
  gboolean ok;

  ok = out != NULL &&
       (folded ? tsl_flame_write_folded (flame, out, NULL, &error)
               : tsl_flame_write_tree_csv (flame, out, NULL, &error)) &&
       g_output_stream_close (out, NULL, &error);
  if (ok)
    return TSL_EXIT_OK;

  /* Stream errors ("No space left on device") do not say which file. */
  if (strstr (error->message, output) == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s: could not write the report: %s", output, error->message);
  return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
}

int
tsl_cli_export_flame (const TslCliFlameOptions *opts)
{
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(TslFlame) flame = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) tracks = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *base = g_path_get_basename (opts->path);
  TslFlameSelection selection = { NULL, 0, !opts->per_thread, TSL_FLAME_WEIGHT_AUTO };
  TslExportFormat format = TSL_EXPORT_CSV;
  gint64 span, start[2] = { 0, 0 }, end[2] = { 0, 0 };
  gboolean has[2] = { opts->range_a != NULL, opts->range_b != NULL };
  const char *range_a = opts->range_a;
  gboolean whole_cpu = FALSE;

  if (!parse_weight (opts->weight, &selection.weight))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --weight must be auto, samples, time or cpu, not “%s”", opts->weight);
  if (selection.weight == TSL_FLAME_WEIGHT_CPU && !g_file_test (opts->path, G_FILE_TEST_IS_REGULAR))
    return tsl_cli_fail (TSL_EXIT_USAGE,
                         "export: %s: --weight cpu needs every event of the range, and this input cannot be "
                         "re-read (a pipe or not a file)", opts->path);
  /* The whole trace by CPU time: the range that holds all of it. */
  if (selection.weight == TSL_FLAME_WEIGHT_CPU && !has[0] && !has[1])
    {
      has[0] = whole_cpu = TRUE;
      range_a = "0%..100%";
    }
  if (opts->folded && has[1])
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: collapsed stacks are of one range: give --a only");
  if (!opts->folded && !tsl_export_format_from_name (opts->output, &format, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
  if (opts->rounds < 1 || opts->rounds > 1000000)
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --rounds must be between 1 and 1000000");
  if (!(opts->confidence > 0 && opts->confidence < 1))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --confidence must be between 0 and 1");

  /* A range's graph comes from range reads; an indexed file needs no whole
   * read before them unless threads are named (checked against it). */
  if ((has[0] || has[1]) && (opts->threads == NULL || opts->threads[0] == NULL) &&
      g_file_test (opts->path, G_FILE_TEST_IS_REGULAR))
    trace = tsl_cli_load_span (opts->path, TSL_SAMPLER_COUNT, opts->k, opts->seed, NULL, &error);
  else
    trace = tsl_cli_load (opts->path, TSL_SAMPLER_COUNT, opts->k, opts->seed, &error);
  if (trace == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  snapshot = tsl_snapshot_new (trace);
  span = tsl_snapshot_get_span (snapshot);

  if (!select_threads (snapshot, opts->threads, tracks, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
  selection.tracks = (const guint *) (gpointer) tracks->data;
  selection.n_tracks = tracks->len;

  for (guint s = 0; s < 2; s++)
    {
      end[s] = tsl_time_add (span, 1);
      if (has[s] && !tsl_cli_resolve_range ("export", s == 0 ? "--a" : "--b",
                                            s == 0 ? range_a : opts->range_b, span, &start[s], &end[s]))
        return TSL_EXIT_USAGE;
    }

  if ((has[0] || has[1]) && g_file_test (opts->path, G_FILE_TEST_IS_REGULAR))
    {
      g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
      g_auto(GStrv) warnings = NULL;
      g_autofree char *a = has[0] ? describe_range (range_a, start[0], end[0]) : NULL;
      g_autofree char *b = has[1] ? describe_range (opts->range_b, start[1], end[1]) : NULL;

      request->path = g_strdup (opts->path);
      request->trace = g_object_ref (trace);
      request->budget = tsl_budget_ref (tsl_cli_get_budget ());
      request->k = opts->k;
      request->seed = opts->seed;
      request->confidence = opts->confidence;
      if ((has[0] && !tsl_range_spec_parse (range_a, &request->a, &error)) ||
          (has[1] && !tsl_range_spec_parse (opts->range_b, &request->b, &error)))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
      selection.thread_names = (const char * const *) opts->threads;
      flame = tsl_flame_new_exact (request, has[0], has[1], &selection, &warnings, NULL, &error);
      if (flame == NULL)
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
        tsl_cli_fail (0, "warning: %s", warnings[i]);
      if (has[0] && has[1])
        {
          title = g_strdup_printf ("%s — differential flame graph", base);
          subtitle = g_strdup_printf ("A %s  →  B %s · exact, every event; block test", a, b);
        }
      else
        {
          title = g_strdup_printf ("%s — flame graph", base);
          subtitle = whole_cpu ? g_strdup ("Whole trace · exact, every event")
                               : g_strdup_printf ("Range %s %s · exact, every event", has[0] ? "A" : "B", has[0] ? a : b);
        }
      if (selection.weight == TSL_FLAME_WEIGHT_CPU)
        {
          g_autofree char *plain = g_steal_pointer (&title);

          title = g_strconcat (plain, " by CPU time", NULL);
        }
    }
  else if (has[0] && has[1])
    {
      g_autoptr(TslCompareRequest) request = tsl_compare_request_new ();
      g_autofree char *a = describe_range (range_a, start[0], end[0]);
      g_autofree char *b = describe_range (opts->range_b, start[1], end[1]);

      request->rounds = opts->rounds;
      request->confidence = opts->confidence;
      request->seed = opts->seed;
      flame = tsl_flame_new_diff (snapshot, start[0], end[0], snapshot, start[1], end[1],
                                  &selection, request, NULL, &error);
      if (flame == NULL)
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      title = g_strdup_printf ("%s — differential flame graph", base);
      subtitle = g_strdup_printf ("A %s  →  B %s · sampled, %u bootstrap rounds", a, b, opts->rounds);
    }
  else
    {
      guint s = has[1] ? 1 : 0;
      g_autofree char *scope = has[s] ? describe_range (s == 0 ? range_a : opts->range_b,
                                                        start[s], end[s])
                                      : g_strdup ("whole trace");

      flame = tsl_flame_new (snapshot, &selection, start[s], end[s]);
      title = g_strdup_printf ("%s — flame graph", base);
      subtitle = g_strdup_printf ("%s%s · sampled", has[s] ? (s == 0 ? "Range A " : "Range B ") : "", scope);
    }

  {
    g_autofree char *scope = subtitle;
    g_autofree char *threads = tracks->len == 1
      ? g_strdup_printf ("thread %s", tsl_snapshot_get_track (snapshot, g_array_index (tracks, guint, 0))->name)
      : g_strdup (opts->per_thread ? "threads side by side" : "threads merged");

    subtitle = g_strdup_printf ("%s · %s", scope, threads);
  }

  if (opts->folded || format == TSL_EXPORT_CSV)
    return write_text (opts->output, flame, opts->folded);

  {
    g_autoptr(GFile) file = g_file_new_for_path (opts->output);
    TslFlameRenderOptions options;

    tsl_render_flame_options_init (&options, opts->width, 100);
    options.dark = opts->dark;
    options.icicle = opts->icicle;
    options.title = title;
    options.subtitle = subtitle;
    options.legend = TRUE;
    options.height = opts->height > 0 ? opts->height
                                      : MIN (tsl_render_flame_natural_height (flame, &options), MAX_SIDE);

    if (!tsl_export_flame (flame, &options, format, file, NULL, &error))
      return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  }

  return TSL_EXIT_OK;
}
