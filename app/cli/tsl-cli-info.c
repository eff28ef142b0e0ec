/* tsl-cli-info.c: `timeslice info`, what a trace holds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-info"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "tsl-chunk-index.h"
#include "tsl-cli-private.h"
#include "tsl-time-math.h"

/* `info --json`'s "flows" members, by TslFlowCount. */
static const char *const flow_keys[TSL_FLOW_COUNT_N] = {
  "s", "t", "f", "bind_id", "flow_in", "flow_out", "flow_ids", "terminating_flow_ids",
};

static double
span_seconds (TslTrace *trace,
              gboolean *has_span)
{
  gint64 start_ns, end_ns;

  *has_span = tsl_trace_get_has_time (trace) && tsl_trace_get_span (trace, &start_ns, &end_ns);
  return *has_span ? tsl_time_seconds_between (start_ns, end_ns) : 0.0;
}

/* json-glib 1.6 writes a double such as 3e-09 as "3e-09.0", which is not
 * JSON: it appends ".0" to any number printed without a '.'. Puts the
 * number back as g_ascii_dtostr() wrote it. Takes `json`. */
static char *
fix_exponent (char       *json,
              const char *member,
              gboolean    has_value,
              double      value)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *bad = NULL;
  g_autofree char *good = NULL;
  GString *out;

  g_ascii_dtostr (number, sizeof number, value);
  if (!has_value || strchr (number, '.') != NULL || strchr (number, 'e') == NULL)
    return json;

  bad = g_strdup_printf ("\"%s\" : %s.0", member, number);
  good = g_strdup_printf ("\"%s\" : %s", member, number);
  out = g_string_new (json);
  g_free (json);
  g_string_replace (out, bad, good, 1);
  return g_string_free (out, FALSE);
}

/* A track of no process: pid 0 where the trace names no process 0, as a
 * Perfetto reader gives a track under no process descriptor (Chrome's
 * "Global" async tracks, global counters), and metrics. A thread keeps its
 * pid 0: the kernel's idle (swapper) threads have it. */
static gboolean
has_no_process (TslTrace *trace,
                guint     track)
{
  return tsl_trace_track_get_kind (trace, track) != TSL_TRACK_THREAD &&
         tsl_trace_track_get_pid (trace, track) == 0 && tsl_trace_get_process_name (trace, 0) == NULL;
}

static char *
describe_json (TslTrace   *trace,
               const char *path)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);
  gboolean has_span;
  double span_s = span_seconds (trace, &has_span);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "file");
  json_builder_add_string_value (builder, path);
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, tsl_trace_get_format (trace));
  json_builder_set_member_name (builder, "events");
  json_builder_add_int_value (builder, (gint64) tsl_trace_get_events (trace));
  json_builder_set_member_name (builder, "flows");
  json_builder_begin_object (builder);
  for (guint kind = 0; kind < TSL_FLOW_COUNT_N; kind++)
    {
      json_builder_set_member_name (builder, flow_keys[kind]);
      json_builder_add_int_value (builder, (gint64) tsl_trace_get_flow_count (trace, kind));
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "has_time");
  json_builder_add_boolean_value (builder, tsl_trace_get_has_time (trace));
  /* null, not 0, when there is no time axis (collapsed stacks). */
  json_builder_set_member_name (builder, "span_s");
  if (has_span)
    json_builder_add_double_value (builder, span_s);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "k");
  json_builder_add_int_value (builder, tsl_trace_get_k (trace));

  json_builder_set_member_name (builder, "tracks");
  json_builder_begin_array (builder);
  for (guint track = 0; track < tsl_trace_get_n_tracks (trace); track++)
    {
      TslSampler *sampler = tsl_trace_track_get_sampler (trace, track);
      const char *unit = tsl_trace_track_get_unit (trace, track);
      const char *process;
      guint n_samples = 0;

      tsl_sampler_peek_samples (sampler, &n_samples);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, tsl_trace_track_get_name (trace, track));
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, tsl_track_kind_to_string (tsl_trace_track_get_kind (trace, track)));
      /* null, not a pid 0 that no process has. */
      json_builder_set_member_name (builder, "pid");
      if (has_no_process (trace, track))
        json_builder_add_null_value (builder);
      else
        json_builder_add_int_value (builder, tsl_trace_track_get_pid (trace, track));
      json_builder_set_member_name (builder, "tid");
      if (has_no_process (trace, track))
        json_builder_add_null_value (builder);
      else
        json_builder_add_int_value (builder, tsl_trace_track_get_tid (trace, track));
      process = tsl_trace_get_process_name (trace, tsl_trace_track_get_pid (trace, track));
      if (process != NULL)
        {
          json_builder_set_member_name (builder, "process");
          json_builder_add_string_value (builder, process);
        }
      if (unit != NULL)
        {
          json_builder_set_member_name (builder, "unit");
          json_builder_add_string_value (builder, unit);
        }
      json_builder_set_member_name (builder, "events");
      json_builder_add_int_value (builder, (gint64) tsl_sampler_get_events (sampler));
      json_builder_set_member_name (builder, "samples");
      json_builder_add_int_value (builder, n_samples);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "warnings");
  json_builder_begin_array (builder);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    json_builder_add_string_value (builder, warnings[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  return fix_exponent (json_generator_to_data (generator, NULL), "span_s", has_span, span_s);
}

static char *
describe_text (TslTrace   *trace,
               const char *path)
{
  GString *out = g_string_new (NULL);
  g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);
  guint n_tracks = tsl_trace_get_n_tracks (trace);
  g_auto(GStrv) names = NULL;
  gboolean has_span;
  double span_s = span_seconds (trace, &has_span);
  g_autofree char *file = tsl_cli_printable (path);
  g_autofree char *format = tsl_cli_printable (tsl_trace_get_format (trace));
  int name_width = 4;

  /* Names come from the input: a terminal must not run their escapes. */
  g_string_append_printf (out, "File:     %s\n", file);
  g_string_append_printf (out, "Format:   %s\n", format);
  g_string_append_printf (out, "Events:   %" G_GUINT64_FORMAT "\n", tsl_trace_get_events (trace));
  {
    guint64 n[TSL_FLOW_COUNT_N];

    for (guint kind = 0; kind < TSL_FLOW_COUNT_N; kind++)
      n[kind] = tsl_trace_get_flow_count (trace, kind);
    if (n[TSL_FLOW_COUNT_START] + n[TSL_FLOW_COUNT_STEP] + n[TSL_FLOW_COUNT_END] > 0)
      g_string_append_printf (out, "Flows:    %" G_GUINT64_FORMAT " events (%" G_GUINT64_FORMAT " s, %"
                              G_GUINT64_FORMAT " t, %" G_GUINT64_FORMAT " f), arrows when zoomed in\n",
                              n[TSL_FLOW_COUNT_START] + n[TSL_FLOW_COUNT_STEP] + n[TSL_FLOW_COUNT_END],
                              n[TSL_FLOW_COUNT_START], n[TSL_FLOW_COUNT_STEP], n[TSL_FLOW_COUNT_END]);
    if (n[TSL_FLOW_COUNT_BIND_ID] > 0)
      g_string_append_printf (out, "Bindings: %" G_GUINT64_FORMAT " events with bind_id (%" G_GUINT64_FORMAT
                              " flow_in, %" G_GUINT64_FORMAT " flow_out), arrows when zoomed in\n",
                              n[TSL_FLOW_COUNT_BIND_ID], n[TSL_FLOW_COUNT_FLOW_IN], n[TSL_FLOW_COUNT_FLOW_OUT]);
    if (n[TSL_FLOW_COUNT_FLOW_IDS] + n[TSL_FLOW_COUNT_TERMINATING] > 0)
      g_string_append_printf (out, "Flow ids: %" G_GUINT64_FORMAT " flow_ids, %" G_GUINT64_FORMAT
                              " terminating_flow_ids, arrows when zoomed in\n",
                              n[TSL_FLOW_COUNT_FLOW_IDS], n[TSL_FLOW_COUNT_TERMINATING]);
  }
  if (has_span)
    g_string_append_printf (out, "Span:     %.6f s\n", span_s);
  else
    g_string_append (out, "Span:     no time axis (shown in file order)\n");
  g_string_append_printf (out, "Tracks:   %u (K = %u)\n", n_tracks, tsl_trace_get_k (trace));

  names = g_new0 (char *, n_tracks + 1);
  for (guint track = 0; track < n_tracks; track++)
    {
      names[track] = tsl_cli_printable (tsl_trace_track_get_name (trace, track));
      name_width = MAX (name_width, (int) g_utf8_strlen (names[track], -1));
    }
  name_width = MIN (name_width, 48);

  /* Real traces name many threads alike (thirty "ThreadPoolForegroundWorker"
   * in a Chromium recording): the process and thread ids tell them apart. */
  if (n_tracks > 0)
    g_string_append_printf (out, "  %-*s  %-8s %12s %8s %8s %8s  %s\n", name_width, "NAME", "KIND",
                            "EVENTS", "SAMPLES", "PID", "TID", "PROCESS");
  for (guint track = 0; track < n_tracks; track++)
    {
      TslSampler *sampler = tsl_trace_track_get_sampler (trace, track);
      TslTrackKind kind = tsl_trace_track_get_kind (trace, track);
      const char *name = names[track];
      gint64 pid = tsl_trace_track_get_pid (trace, track);
      g_autofree char *pid_text = NULL;
      g_autofree char *tid_text = NULL;
      g_autofree char *process = NULL;
      guint n_samples = 0;
      int pad;

      /* Metrics and global tracks have no process, folded tracks stand
       * for many. */
      if (kind != TSL_TRACK_METRIC && pid != G_MAXINT64 && !has_no_process (trace, track))
        {
          pid_text = g_strdup_printf ("%" G_GINT64_FORMAT, pid);
          const char *process_name = tsl_trace_get_process_name (trace, pid);

          process = process_name != NULL ? tsl_cli_printable (process_name) : NULL;
          if (kind == TSL_TRACK_THREAD)
            tid_text = g_strdup_printf ("%" G_GINT64_FORMAT, tsl_trace_track_get_tid (trace, track));
        }
      tsl_sampler_peek_samples (sampler, &n_samples);
      /* printf pads by bytes; pad by characters so non-ASCII names line up. */
      pad = MAX (0, name_width - (int) g_utf8_strlen (name, -1));
      g_string_append_printf (out, "  %s%*s  %-8s %12" G_GUINT64_FORMAT " %8u %8s %8s",
                              name, pad, "", tsl_track_kind_to_string (kind),
                              tsl_sampler_get_events (sampler), n_samples,
                              pid_text != NULL ? pid_text : "-", tid_text != NULL ? tid_text : "-");
      if (process != NULL && process[0] != '\0')
        g_string_append_printf (out, "  %s", process);
      g_string_append_c (out, '\n');
    }

  if (warnings != NULL && warnings[0] != NULL)
    {
      g_string_append (out, "Warnings:\n");
      for (guint i = 0; warnings[i] != NULL; i++)
        {
          g_autofree char *warning = tsl_cli_printable (warnings[i]);

          g_string_append_printf (out, "  %s\n", warning);
        }
    }

  return g_string_free (out, FALSE);
}

int
tsl_cli_info (int    argc,
              char **argv)
{
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean json = FALSE;
  int k = TSL_CLI_DEFAULT_K;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print a JSON object", NULL },
    { "k", 'k', 0, G_OPTION_ARG_INT, &k, "Samples per track: K to 2K (default 2000)", "N" },
    { NULL }
  };

  if (!tsl_cli_parse_options ("info", "FILE",
                              "Describe a trace: format, span, events, tracks and warnings.",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (argc != 2)
    return tsl_cli_fail (TSL_EXIT_USAGE, "info: expected one FILE (see “timeslice info --help”)");
  if (!tsl_cli_check_k ("info", k))
    return TSL_EXIT_USAGE;

  /* Nothing reads a range of the file after this read, and without the
   * cache its index would not be kept for a later process either. */
  if (!tsl_cache_get_enabled ())
    tsl_chunk_index_set_unwanted (TRUE);
  trace = tsl_cli_load (argv[1], TSL_SAMPLER_COUNT, (guint) k, TSL_CLI_DEFAULT_SEED, &error);
  if (trace == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  text = json ? describe_json (trace, argv[1]) : describe_text (trace, argv[1]);
  fputs (text, stdout);
  if (json)
    fputc ('\n', stdout);
  if (fflush (stdout) != 0)
    return tsl_cli_fail (TSL_EXIT_INPUT, "cannot write the output");

  return TSL_EXIT_OK;
}
