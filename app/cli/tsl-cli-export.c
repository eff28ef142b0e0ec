/* tsl-cli-export.c: `timeslice export`, reports without a display
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli-export"

#include "config.h"

#include <stdio.h>

#include "tsl-cli-private.h"
#include "tsl-export.h"
#include "tsl-range.h"
#include "tsl-report.h"
#include "tsl-snapshot.h"

#define DEFAULT_WIDTH 1600
#define MAX_SIDE      20000

static gboolean
parse_size (const char *text,
            int        *width,
            int        *height)
{
  char *end = NULL;
  gint64 w, h;

  w = g_ascii_strtoll (text, &end, 10);
  if (end == text || (*end != 'x' && *end != 'X'))
    return FALSE;
  text = end + 1;
  h = g_ascii_strtoll (text, &end, 10);
  if (end == text || *end != '\0')
    return FALSE;
  if (w < 200 || h < 100 || w > MAX_SIDE || h > MAX_SIDE)
    return FALSE;

  *width = (int) w;
  *height = (int) h;
  return TRUE;
}

int
tsl_cli_export (int    argc,
                char **argv)
{
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *output = NULL;
  g_autofree char *size = NULL;
  g_autofree char *range_a = NULL;
  g_autofree char *range_b = NULL;
  g_autofree char *title = NULL;
  g_autofree char *view = NULL;
  g_autofree char *tracks = NULL;
  gboolean flows = FALSE;
  gboolean all_tracks = FALSE;
  TslExportFormat format;
  TslRenderOptions options;
  gboolean dark = FALSE;
  int width = DEFAULT_WIDTH, height = 0;
  int k = TSL_CLI_DEFAULT_K;
  gboolean flamegraph = FALSE, per_thread = FALSE, icicle = FALSE;
  g_auto(GStrv) threads = NULL;
  g_autofree char *weight = NULL;
  g_autofree char *seed_text = NULL;
  int rounds = 10000;
  double confidence = 0.95;
  guint64 seed = TSL_CLI_DEFAULT_SEED;
  gboolean report = FALSE;
  int top = TSL_REPORT_DEFAULT_TOP;
  g_autofree char *table = NULL;
  gboolean merge = FALSE;
  g_auto(GStrv) offsets = NULL;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the report to OUT: .png, .svg, .pdf, .csv or .folded (required)", "OUT" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size,
      "Picture size in pixels (default 1600 wide, tall enough for every track)", "WxH" },
    { "a", 0, 0, G_OPTION_ARG_STRING, &range_a, "Range A, e.g. 1s..2s or 10%..20%", "RANGE" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &range_b, "Range B", "RANGE" },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view,
      "Draw (or with OUT.csv list the slices of) this time window, as the window shows it zoomed in: "
      "every slice when it holds few enough events, else samples of it", "RANGE" },
    { "tracks", 0, 0, G_OPTION_ARG_STRING, &tracks,
      "With --view: draw (or with OUT.csv list) only the tracks whose name matches this glob "
      "(e.g. 'worker*'), as the window shows the tracks it has room for", "PATTERN" },
    { "all-tracks", 0, 0, G_OPTION_ARG_NONE, &all_tracks,
      "With --view: every track, on as many PDF pages as it takes (the default)", NULL },
    { "flows", 0, 0, G_OPTION_ARG_NONE, &flows,
      "With --view: draw every flow arrow in view, as the window's “Show All Flows” does (by default "
      "none: the window draws only a selected slice's); with OUT.csv list them (from_track, from_depth, "
      "from_name, from_s, to_track, to_depth, to_name, to_s) instead of the slices", NULL },
    { "k", 0, 0, G_OPTION_ARG_INT, &k, "Keep K to 2K samples per track (default 2000)", "N" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Draw with the dark style", NULL },
    { "flamegraph", 0, 0, G_OPTION_ARG_NONE, &flamegraph,
      "Draw a flame graph of range A (or B, or the whole trace); with --a and --b the "
      "differential graph A → B; with OUT.csv write the call tree", NULL },
    { "thread", 0, 0, G_OPTION_ARG_STRING_ARRAY, &threads,
      "Flame graph of this thread only (repeat for several; default: every thread)", "NAME" },
    { "per-thread", 0, 0, G_OPTION_ARG_NONE, &per_thread,
      "Give each thread its own top frame instead of merging threads", NULL },
    { "weight", 0, 0, G_OPTION_ARG_STRING, &weight,
      "Frame width: samples (events), time (span durations), cpu (spans' thread time, where the trace "
      "has it; every event of the range, the whole trace without --a or --b) or auto (time for span "
      "traces; default). In OUT.folded a stack's number is its count of events, or by cpu its self CPU time in ns",
      "W" },
    { "icicle", 0, 0, G_OPTION_ARG_NONE, &icicle, "Root at the top", NULL },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Bootstrap rounds of the differential test (default 10000)", "R" },
    { "confidence", 0, 0, G_OPTION_ARG_DOUBLE, &confidence, "Confidence of the differential test (default 0.95)", "C" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text, "Seed of sampling and bootstrap (default 0x5EED)", "S" },
    { "report", 0, 0, G_OPTION_ARG_NONE, &report,
      "Write one report, OUT.pdf or OUT.html: the input and settings, the timeline with A and B, "
      "what changed from A (default 0%..50%) to B (default 50%..100%) and the read's warnings", NULL },
    { "top", 0, 0, G_OPTION_ARG_INT, &top,
      "With --report: rows in its table, significant first (default 20)", "N" },
    { "table", 0, 0, G_OPTION_ARG_FILENAME, &table,
      "With --report: also write the compare table it shows as CSV to TABLE", "TABLE" },
    { "merge", 0, 0, G_OPTION_ARG_NONE, &merge,
      "Draw several FILEs as one timeline (PNG, SVG or PDF), a group per file, aligned as the window aligns them", NULL },
    { "offset", 0, 0, G_OPTION_ARG_STRING_ARRAY, &offsets,
      "With --merge: shift FILE along the time axis by DURATION (e.g. b.json=1.5s)", "FILE=DURATION" },
    { NULL }
  };

  if (!tsl_cli_parse_options ("export", "FILE",
                              "Draws the timeline as PNG, SVG or PDF with the window’s painter, or\n"
                              "writes the samples as CSV (with --a and --b: the compare table).\n"
                              "With --view: that time window only, as the zoomed-in window draws it;\n"
                              "OUT.csv then lists its slices (track, depth, start_s, end_s, name,\n"
                              "exact, open), or with --flows its flow arrows.\n"
                              "With --flamegraph: the flame graph of range A, B or the whole trace as\n"
                              "PNG, SVG or PDF, or its call tree as CSV (call_path, self_share,\n"
                              "total_share, self_weight, total_weight); with both --a and --b, the\n"
                              "differential flame graph of A against B, frames coloured by the\n"
                              "significance of their change. OUT.folded: the collapsed stacks\n"
                              "(“a;b;c 12”) of range A or the whole trace, for other flame graph tools\n"
                              "(events per stack; with --weight cpu, ns of self CPU time).\n"
                              "With --report: one PDF or self-contained HTML document to send, with the\n"
                              "input’s SHA-256, the settings, the timeline, the compare table and\n"
                              "its significant changes in words.",
                              entries, &argc, &argv))
    return TSL_EXIT_USAGE;

  if (merge || offsets != NULL)
    {
      TslCliMergeOptions merge_options = {
        .paths = argv + 1, .n_paths = (guint) argc - 1, .offsets = offsets, .output = output,
        .range_a = range_a, .range_b = range_b, .dark = dark, .width = width, .max_side = MAX_SIDE,
        .k = (guint) k,
      };

      if (!merge)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --offset goes with --merge");
      if (argc < 3)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --merge needs two FILEs or more");
      if (output == NULL)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: -o OUT is required");
      if (view || flamegraph || report || tracks || g_str_has_suffix (output, ".folded"))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --merge draws the timeline; --view, --flamegraph, "
                             "--report and --tracks take one FILE");
      if (!tsl_cli_check_k ("export", k))
        return TSL_EXIT_USAGE;
      if (!tsl_export_format_from_name (output, &merge_options.format, &error))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
      if (merge_options.format == TSL_EXPORT_CSV)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --merge draws PNG, SVG or PDF; "
                             "for a table of two runs use “timeslice compare BEFORE AFTER”");
      if (size != NULL && !parse_size (size, &merge_options.width, &merge_options.height))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --size must be WIDTHxHEIGHT between 200x100 and %dx%d, not “%s”",
                             MAX_SIDE, MAX_SIDE, size);
      return tsl_cli_export_merged (&merge_options);
    }

  if (argc != 2)
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: expected one FILE (see “timeslice export --help”)");
  if (output == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: -o OUT is required");
  if (!tsl_cli_check_k ("export", k))
    return TSL_EXIT_USAGE;
  if (seed_text != NULL && !tsl_cli_parse_seed (seed_text, &seed))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --seed must be a number, not “%s”", seed_text);

  if (!report && (table != NULL || top != TSL_REPORT_DEFAULT_TOP))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --top and --table go with --report");
  if (report)
    {
      TslCliReportOptions report_options = {
        .path = argv[1], .output = output, .range_a = range_a, .range_b = range_b,
        .table = table, .top = (guint) top, .k = (guint) k,
        .rounds = (guint) rounds, .confidence = confidence, .seed = seed,
      };

      if (flamegraph || view != NULL || size != NULL || dark)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --report takes no --flamegraph, --view, --size or --dark");
      if (top < 1 || top > 100000)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --top must be between 1 and 100000");
      if (rounds < 1 || rounds > 10000000)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --rounds must be between 1 and 10000000");
      if (!(confidence > 0 && confidence < 1))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --confidence must be between 0 and 1");
      return tsl_cli_export_report (&report_options);
    }

  if (flamegraph || g_str_has_suffix (output, ".folded"))
    {
      TslCliFlameOptions flame = {
        .path = argv[1], .output = output, .range_a = range_a, .range_b = range_b,
        .threads = threads, .per_thread = per_thread, .weight = weight,
        .folded = g_str_has_suffix (output, ".folded"), .icicle = icicle, .dark = dark,
        .width = width, .height = height, .k = (guint) k,
        .rounds = (guint) MAX (rounds, 0), .confidence = confidence, .seed = seed,
      };

      if (size != NULL && !parse_size (size, &flame.width, &flame.height))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --size must be WIDTHxHEIGHT between 200x100 and %dx%d, not “%s”",
                             MAX_SIDE, MAX_SIDE, size);
      return tsl_cli_export_flame (&flame);
    }
  if (!tsl_export_format_from_name (output, &format, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
  if (size != NULL && !parse_size (size, &width, &height))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --size must be WIDTHxHEIGHT between 200x100 and %dx%d, not “%s”",
                         MAX_SIDE, MAX_SIDE, size);

  /* Check the ranges' syntax before spending time on the input. */
  {
    TslRangeSpec spec;

    if ((range_a && !tsl_range_spec_parse (range_a, &spec, &error)) ||
        (range_b && !tsl_range_spec_parse (range_b, &spec, &error)))
      return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);
  }

  if ((tracks != NULL || all_tracks) && view == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --tracks and --all-tracks go with --view");
  if (tracks != NULL && all_tracks)
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --tracks PATTERN or --all-tracks, not both");
  if (flows && view == NULL)
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: --flows goes with --view");
  if (view != NULL)
    {
      TslCliViewOptions view_options = {
        .path = argv[1], .output = output, .view = view, .tracks = tracks, .format = format,
        .dark = dark, .width = width, .height = height, .k = (guint) k, .seed = seed,
        .flows = flows,
      };
      TslRangeSpec spec;

      if (!tsl_range_spec_parse (view, &spec, &error))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --view: %s", error->message);
      if (format == TSL_EXPORT_CSV && (range_a || range_b))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --view with OUT.csv lists slices; --a and --b do not apply");
      if (range_a || range_b)
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --view does not draw ranges yet; leave out --a and --b");
      return tsl_cli_export_view (&view_options);
    }

  if (format == TSL_EXPORT_CSV && (range_a || range_b))
    {
      if (!(range_a && range_b))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: a compare table needs both --a and --b");
      return tsl_cli_export_compare (argv[1], range_a, range_b, (guint) k, output);
    }

  /* Time mode, as the window draws: slices line up across tracks. */
  trace = tsl_cli_load (argv[1], TSL_SAMPLER_TIME, (guint) k, TSL_CLI_DEFAULT_SEED, &error);
  if (trace == NULL)
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  file = g_file_new_for_path (output);

  if (format == TSL_EXPORT_CSV)
    {
      g_autoptr(GOutputStream) out = tsl_cli_open_output (output, &error);

      if (out == NULL || !tsl_export_write_samples (trace, out, NULL, &error) ||
          !g_output_stream_close (out, NULL, &error))
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      return TSL_EXIT_OK;
    }

  snapshot = tsl_snapshot_new (trace);
  title = g_path_get_basename (argv[1]);

  tsl_render_options_init (&options, snapshot, width, 100);
  options.title = title;
  options.draw_note = TRUE;
  options.dark = dark;

  if (range_a && !tsl_cli_resolve_range ("export", "--a", range_a, tsl_snapshot_get_span (snapshot),
                                         &options.a_start_ns, &options.a_end_ns))
    return TSL_EXIT_USAGE;
  options.has_a = range_a != NULL;
  if (range_b && !tsl_cli_resolve_range ("export", "--b", range_b, tsl_snapshot_get_span (snapshot),
                                         &options.b_start_ns, &options.b_end_ns))
    return TSL_EXIT_USAGE;
  options.has_b = range_b != NULL;

  options.height = height > 0 ? height : MIN (tsl_export_natural_height (snapshot, &options), MAX_SIDE);

  if (!tsl_export_timeline (snapshot, &options, format, file, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);

  return TSL_EXIT_OK;
}

int
tsl_cli_export_compare (const char *path,
                        const char *range_a,
                        const char *range_b,
                        guint       k,
                        const char *output)
{
  g_autofree char *k_str = g_strdup_printf ("%u", k);
  char *argv[] = {
    (char *) "timeslice", (char *) "compare", (char *) "--a", (char *) range_a,
    (char *) "--b", (char *) range_b, (char *) "--k", k_str, (char *) "-o", (char *) output,
    (char *) path, NULL
  };

  /* Same table and same defaults as `timeslice compare`: one code path. */
  return tsl_cli_run (G_N_ELEMENTS (argv) - 1, argv);
}
