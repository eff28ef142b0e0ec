/* bench-render.c: painter repaint time for 64 tracks × 4000 samples
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Builds a synthetic TslTrace of 64 thread tracks (4 processes × 16 threads),
 * each fed 32000 events in count mode with K = 2000 so that it holds exactly
 * 4000 samples (T = 8) with 4-level stacks, takes a snapshot and times
 * tsl_render_paint() on ARGB32 cairo image surfaces (median of RUNS after one
 * warm-up paint). Beside it, in the same run, the naive baseline of
 * docs/ARCHITECTURE.md, "Painters": one cairo_rectangle + cairo_fill per sample per stack level.
 *
 * Cases:
 *   painter 1920x1080          what a repaint costs in the window: only the
 *                              tracks that fit in 1080 px are drawn
 *   painter 1920xH, all tracks a surface tall enough for all 64 tracks in the
 *                              painter's layout (H px), so every sample is drawn
 *   naive 1920x1080, fitted    the §7 baseline: all 64 tracks squeezed into
 *                              1080 px (4 px rows), one rectangle per sample
 *   naive 1920xH, all tracks   the same rectangles in the painter's layout
 *   exact NxM 1920x1080        the exact view (issue 18) at its budget: every
 *                              slice of N tracks × M slices (4-level calls),
 *                              1,000,000 in all, all in the viewport
 *   exact NxM, L levels        the same budget on tracks whose calls nest L
 *                              deep (L = 40: a real browser thread's depth)
 *   exact NxM + F flows        the same with F flow arrows between random calls
 *                              of neighbouring tracks (about a quarter in the
 *                              viewport): curves, lines, and past 10,000 in
 *                              view a note (the flow budget's 100,000)
 * each painter/naive case with "structured" stacks (root frames persist for hundreds of samples,
 * leaves change every sample, like a real profile) and "random" stacks (every
 * level changes every sample: the painter's worst case).
 *
 * Output: a table, then one "result<TAB>name<TAB>median_ms<TAB>min_ms<TAB>
 * median_cpu_ms" line per case for bench/run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cairo.h>

#include "tsl-render.h"
#include "tsl-rng.h"
#include "tsl-snapshot.h"
#include "tsl-trace.h"

#define K              2000
#define PROCESSES      4
#define THREADS        16
#define TRACKS         (PROCESSES * THREADS)
#define EVENTS         32000   /* per track: T = 8, 4000 samples */
#define SAMPLES        4000
#define LEVELS         4
#define WIDTH          1920
#define HEIGHT         1080
#define DEFAULT_RUNS   10
#define SPAN_NS        G_GINT64_CONSTANT (10000000000)  /* 10 s */

static const char *funcs[] = {
  "MessageLoop::Run", "ThreadController::DoWork", "v8.run", "V8.Execute",
  "FunctionCall", "Layout", "UpdateLayoutTree", "Paint", "Composite",
  "ParseHTML", "EvaluateScript", "v8.compile", "GC", "MinorGC",
  "ResourceLoader::Start", "HitTest", "RasterTask", "ImageDecodeTask",
  "SkCanvas::drawRect", "cc::LayerTreeHost::DoUpdateLayers",
};

static const char *
pick (guint64 key)
{
  return funcs[tsl_fmix64 (key) % G_N_ELEMENTS (funcs)];
}

static TslTrace *
build_trace (gboolean random_stacks)
{
  TslTrace *trace = tsl_trace_new (TSL_SAMPLER_COUNT, K, 0x5EED);
  gint64 stride = SPAN_NS / EVENTS;
  char label[256];

  for (guint p = 0; p < PROCESSES; p++)
    {
      gint64 pid = 1000 + p;
      char name[64];

      g_snprintf (name, sizeof name, "Renderer %u", p);
      tsl_trace_set_process_name (trace, pid, name);

      for (guint t = 0; t < THREADS; t++)
        {
          gint64 tid = pid * 100 + t;
          guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, pid, tid, NULL);
          guint64 salt = (guint64) track << 40;

          g_snprintf (name, sizeof name, "Worker %" G_GINT64_FORMAT, tid);
          tsl_trace_set_thread_name (trace, pid, tid, name);

          for (guint64 i = 0; i < EVENTS; i++)
            {
              if (!tsl_trace_offer (trace, track, (gint64) i * stride, NAN))
                continue;

              if (random_stacks)
                g_snprintf (label, sizeof label, "%s;%s;%s;%s",
                            pick (salt ^ (i << 2)), pick (salt ^ (i << 2 | 1)),
                            pick (salt ^ (i << 2 | 2)), pick (salt ^ (i << 2 | 3)));
              else
                /* Root changes every 4096 events (512 samples), then every
                 * 512, 64 and every event. */
                g_snprintf (label, sizeof label, "%s;%s;%s;%s",
                            pick (salt ^ (1ULL << 36) ^ (i >> 12)),
                            pick (salt ^ (2ULL << 36) ^ (i >> 9)),
                            pick (salt ^ (3ULL << 36) ^ (i >> 6)),
                            pick (salt ^ (4ULL << 36) ^ i));
              tsl_trace_set_label (trace, track, label);
            }
        }
    }

  return trace;
}

/* The baseline: one anti-aliased rectangle and one fill per sample and level,
 * colours looked up in a table (so the baseline pays for cairo only). */
static void
naive_paint (cairo_t     *cr,
             TslSnapshot *snapshot,
             double       width,
             double       height,
             gboolean     fitted,
             const double (*colors)[3])
{
  double header = TSL_RENDER_RULER_HEIGHT;
  double plot_x = TSL_RENDER_LABEL_WIDTH;
  double plot_w = width - plot_x;
  double span = (double) MAX (tsl_snapshot_get_span (snapshot), 1);
  guint n_tracks = tsl_snapshot_get_n_tracks (snapshot);
  double row_h = fitted ? (height - header) / n_tracks / LEVELS : 15;
  double y = header;
  gint64 last_pid = G_MININT64;

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);

  for (guint i = 0; i < n_tracks; i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      /* Without fitting, the painter's layout: group header per process,
       * 15 px rows, 6 px gap. */
      if (!fitted && track->pid != last_pid)
        y += 24;
      last_pid = track->pid;

      for (guint s = 0; s < track->n_samples; s++)
        {
          const TslSnapshotSample *sample = &track->samples[s];
          double x0 = plot_x + sample->start_ns / span * plot_w;
          double x1 = plot_x + sample->end_ns / span * plot_w;

          for (guint d = 0; d < sample->n_frames && d < LEVELS; d++)
            {
              const double *rgb = colors[sample->frames[d]];

              cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
              cairo_rectangle (cr, x0, y + d * row_h, MAX (x1 - x0, 1), row_h - (fitted ? 0 : 1));
              cairo_fill (cr);
            }
        }

      y += LEVELS * row_h + (fitted ? 0 : 6);
    }
}

typedef enum {
  PAINTER_VIEWPORT,
  PAINTER_ALL,
  NAIVE_FITTED,
  NAIVE_ALL,
  N_CASES
} Case;

static const char *case_names[] = {
  "painter 1920x1080",
  "painter 1920xH all",
  "naive 1920x1080 fitted",
  "naive 1920xH all",
};

static const char *case_keys[] = {
  "painter_viewport",
  "painter_all",
  "naive_fitted",
  "naive_all",
};

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Wall milliseconds of one paint; *cpu_ms gets this thread's CPU time, which
 * a busy machine disturbs less (the painter is single-threaded). */
static double
paint_once (Case                    which,
            cairo_surface_t        *surface,
            TslSnapshot            *snapshot,
            const TslRenderOptions *options,
            const double          (*colors)[3],
            double                 *cpu_ms)
{
  cairo_t *cr;
  gint64 start = g_get_monotonic_time ();
  double cpu_start = thread_cpu_ms ();

  cr = cairo_create (surface);
  switch (which)
    {
    case PAINTER_VIEWPORT:
    case PAINTER_ALL:
      tsl_render_paint (cr, snapshot, options);
      break;
    case NAIVE_FITTED:
      naive_paint (cr, snapshot, options->width, options->height, TRUE, colors);
      break;
    case NAIVE_ALL:
      naive_paint (cr, snapshot, options->width, options->height, FALSE, colors);
      break;
    case N_CASES:
    default:
      g_assert_not_reached ();
    }
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  *cpu_ms = thread_cpu_ms () - cpu_start;
  return (g_get_monotonic_time () - start) / 1000.0;
}

static void
run_stacks (gboolean random_stacks,
            guint    runs)
{
  g_autoptr(TslTrace) trace = build_trace (random_stacks);
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  guint n_tracks = tsl_snapshot_get_n_tracks (snapshot);
  guint64 n_samples = 0;
  double (*colors)[3] = NULL;
  guint n_colors;
  int tall;
  cairo_surface_t *small, *big;
  const char *kind = random_stacks ? "random" : "structured";

  g_assert (n_tracks == TRACKS);
  for (guint i = 0; i < n_tracks; i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      if (track->n_samples != SAMPLES || track->max_depth != LEVELS)
        {
          fprintf (stderr, "track %u: %u samples, depth %u (expected %d, %d)\n",
                   i, track->n_samples, track->max_depth, SAMPLES, LEVELS);
          exit (1);
        }
      n_samples += track->n_samples;
    }

  /* Frame ids are dense from 1; colour table for the baseline. */
  n_colors = 1;
  for (guint i = 0; i < n_tracks; i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      for (guint s = 0; s < track->n_samples; s++)
        for (guint d = 0; d < track->samples[s].n_frames; d++)
          n_colors = MAX (n_colors, track->samples[s].frames[d] + 1);
    }
  colors = g_malloc0 (n_colors * sizeof *colors);
  for (guint i = 1; i < n_colors; i++)
    tsl_render_name_color (tsl_snapshot_get_frame_name (snapshot, i), FALSE, colors[i]);

  {
    TslRenderOptions probe;

    tsl_render_options_init (&probe, snapshot, WIDTH, HEIGHT);
    tall = (int) ceil (tsl_render_header_height (&probe) + tsl_render_content_height (snapshot, &probe));
  }

  small = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  big = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, tall);

  printf ("%s stacks: %u tracks x %u samples x %d levels = %" G_GUINT64_FORMAT
          " stack cells; H = %d px for all tracks\n",
          kind, n_tracks, SAMPLES, LEVELS, n_samples * LEVELS, tall);
  printf ("  %-26s %10s %10s %12s\n", "case", "median ms", "min ms", "median CPU ms");

  for (Case which = 0; which < N_CASES; which++)
    {
      gboolean is_tall = which == PAINTER_ALL || which == NAIVE_ALL;
      cairo_surface_t *surface = is_tall ? big : small;
      TslRenderOptions options;
      g_autofree double *ms = g_new (double, runs);
      g_autofree double *cpu = g_new (double, runs);
      double ignored;

      tsl_render_options_init (&options, snapshot, WIDTH, is_tall ? tall : HEIGHT);
      paint_once (which, surface, snapshot, &options, (const double (*)[3]) colors, &ignored); /* warm-up */
      for (guint r = 0; r < runs; r++)
        ms[r] = paint_once (which, surface, snapshot, &options, (const double (*)[3]) colors, &cpu[r]);
      qsort (ms, runs, sizeof (double), cmp_double);
      qsort (cpu, runs, sizeof (double), cmp_double);

      printf ("  %-26s %10.2f %10.2f %12.2f\n", case_names[which], ms[runs / 2], ms[0], cpu[runs / 2]);
      printf ("result\t%s_%s\t%.3f\t%.3f\t%.3f\n", kind, case_keys[which], ms[runs / 2], ms[0],
              cpu[runs / 2]);
    }

  if (g_getenv ("TSL_BENCH_RENDER_PNG") != NULL)
    {
      g_autofree char *path = g_strdup_printf ("%s-%s.png", g_getenv ("TSL_BENCH_RENDER_PNG"), kind);
      cairo_t *cr = cairo_create (small);
      TslRenderOptions options;

      tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
      tsl_render_paint (cr, snapshot, &options);
      cairo_destroy (cr);
      cairo_surface_write_to_png (small, path);
    }

  printf ("\n");
  cairo_surface_destroy (small);
  cairo_surface_destroy (big);
  g_free (colors);
}

/* N tracks of `calls` calls `levels` deep (a slice a level), the deepest
 * nested 10 ns inside its parent at both ends, recorded exactly. */
static void
offer_deep_calls (TslTrace *trace,
                  guint     track,
                  guint     calls,
                  guint     levels,
                  guint64   salt)
{
  const gint64 call_ns = 20 * levels + 40;
  g_autoptr(GString) label = g_string_new (NULL);

  for (guint64 c = 0; c < calls; c++)
    {
      gint64 t0 = (gint64) c * call_ns;

      g_string_truncate (label, 0);
      for (guint d = 0; d < levels; d++)
        {
          if (d > 0)
            g_string_append_c (label, ';');
          g_string_append (label, pick (salt ^ (d < 2 ? c >> 6 : c) ^ d));
          if (tsl_trace_offer (trace, track, t0 + d * 10, (double) (call_ns - 20 * d - 1)))
            tsl_trace_set_label (trace, track, label->str);
        }
    }
}

/* N tracks of `calls` nested calls, `levels` slices each (4: the usual
 * shape, halving at each level), recorded exactly; and `flows` flow arrows,
 * each from a root call to the next call of the next track. */
static TslTrace *
build_exact_trace (guint tracks,
                   guint calls,
                   guint levels,
                   guint flows)
{
  TslTrace *trace = tsl_trace_new (TSL_SAMPLER_TIME, K, 0x5EED);
  const gint64 call_ns = 400;
  char label[256];

  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  for (guint t = 0; t < tracks; t++)
    {
      gint64 pid = 1000 + t / THREADS, tid = 100000 + t;
      guint track = tsl_trace_ensure_track (trace, TSL_TRACK_THREAD, pid, tid, NULL);
      guint64 salt = (guint64) t << 40;

      tsl_trace_track_set_unit (trace, track, "ns");
      if (levels != 4)
        {
          offer_deep_calls (trace, track, calls, levels, salt);
          continue;
        }
      for (guint64 c = 0; c < calls; c++)
        {
          gint64 t0 = (gint64) c * call_ns;
          const char *f[4] = { pick (salt ^ (c >> 6)), pick (salt ^ c ^ 1), pick (salt ^ c ^ 2), pick (salt ^ c ^ 3) };

          for (guint d = 0; d < 4; d++)
            {
              gint64 start = t0 + d * 10, dur = (call_ns >> d) - d * 10 - 1;

              if (!tsl_trace_offer (trace, track, start, (double) dur))
                continue;
              switch (d)
                {
                case 0: g_snprintf (label, sizeof label, "%s", f[0]); break;
                case 1: g_snprintf (label, sizeof label, "%s;%s", f[0], f[1]); break;
                case 2: g_snprintf (label, sizeof label, "%s;%s;%s", f[0], f[1], f[2]); break;
                default: g_snprintf (label, sizeof label, "%s;%s;%s;%s", f[0], f[1], f[2], f[3]); break;
                }
              tsl_trace_set_label (trace, track, label);
            }
        }
    }
  for (guint f = 0; f < flows; f++)
    {
      guint64 r = tsl_fmix64 (f + 1);
      guint from = (guint) (r % tracks), to = (from + 1) % tracks;
      gint64 call = (gint64) ((r >> 20) % (calls - 1));

      /* Tracks were made in order: trace track i is the i-th thread. */
      tsl_trace_record_flow (trace, from, f, call * call_ns, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_OUT);
      tsl_trace_record_flow (trace, to, f, (call + 1) * call_ns, 0, TSL_FLOW_BIND_SLICE, TSL_FLOW_IN);
    }
  return trace;
}

static void
run_exact (guint tracks,
           guint calls,
           guint levels,
           guint flows,
           guint runs)
{
  g_autoptr(TslTrace) trace = build_exact_trace (tracks, calls, levels, flows);
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  g_autofree double *ms = g_new (double, runs);
  g_autofree double *cpu = g_new (double, runs);
  g_autofree char *name = flows ? g_strdup_printf ("exact %ux%u + %u flows", tracks, calls * levels, flows)
                         : levels != 4 ? g_strdup_printf ("exact %ux%u, %u levels", tracks, calls * levels, levels)
                         : g_strdup_printf ("exact %ux%u", tracks, calls * levels);
  g_autofree char *key = flows ? g_strdup_printf ("exact_%ux%u_%uflows_viewport", tracks, calls * levels, flows)
                        : levels != 4 ? g_strdup_printf ("exact_%ux%u_%ulevels_viewport", tracks, calls * levels, levels)
                        : g_strdup_printf ("exact_%ux%u_viewport", tracks, calls * levels);
  guint n_flows = 0;
  TslRenderOptions options;
  guint64 n_slices = 0;
  double ignored;

  g_assert (tsl_snapshot_get_exact (snapshot, NULL, NULL));
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    n_slices += tsl_snapshot_get_track (snapshot, i)->n_slices;
  g_assert (n_slices == (guint64) tracks * calls * levels);
  tsl_snapshot_get_flows (snapshot, &n_flows);
  g_assert (n_flows == flows);

  tsl_render_options_init (&options, snapshot, WIDTH, HEIGHT);
  /* Every flow in view: the window's "all flows", the painter's worst case. */
  options.flows = TSL_RENDER_FLOWS_ALL;
  paint_once (PAINTER_VIEWPORT, surface, snapshot, &options, NULL, &ignored);
  for (guint r = 0; r < runs; r++)
    ms[r] = paint_once (PAINTER_VIEWPORT, surface, snapshot, &options, NULL, &cpu[r]);
  qsort (ms, runs, sizeof (double), cmp_double);
  qsort (cpu, runs, sizeof (double), cmp_double);

  printf ("exact slices: %u tracks x %u slices = %" G_GUINT64_FORMAT " slices, %u levels, whole view\n",
          tracks, calls * levels, n_slices, levels);
  printf ("  %-26s %10.2f %10.2f %12.2f\n\n", name, ms[runs / 2], ms[0], cpu[runs / 2]);
  printf ("result\t%s\t%.3f\t%.3f\t%.3f\n", key, ms[runs / 2], ms[0], cpu[runs / 2]);

  if (g_getenv ("TSL_BENCH_RENDER_PNG") != NULL)
    {
      g_autofree char *path = g_strdup_printf ("%s-%s.png", g_getenv ("TSL_BENCH_RENDER_PNG"), key);

      cairo_surface_write_to_png (surface, path);
    }
  cairo_surface_destroy (surface);
}

int
main (int   argc,
      char *argv[])
{
  guint runs = DEFAULT_RUNS;

  if (argc > 1)
    runs = (guint) g_ascii_strtoull (argv[1], NULL, 10);
  if (runs == 0)
    {
      fprintf (stderr, "usage: %s [RUNS]\n", argv[0]);
      return 2;
    }

  printf ("Painter repaint, ARGB32 image surface, median of %u runs after one warm-up\n\n", runs);
  run_stacks (FALSE, runs);
  run_stacks (TRUE, runs);
  /* The exact budget: 100,000 slices a track, 1,000,000 in all. */
  run_exact (TSL_EXACT_TOTAL / TSL_EXACT_PER_TRACK, TSL_EXACT_PER_TRACK / 4, 4, 0, runs);
  run_exact (TRACKS, TSL_EXACT_TOTAL / TRACKS / 4, 4, 0, runs);
  /* … on tracks 40 levels deep, every level drawn. */
  run_exact (TSL_EXACT_TOTAL / TSL_EXACT_PER_TRACK, TSL_EXACT_PER_TRACK / 40, 40, 0, runs);
  /* … with flow arrows over it, about a quarter of them in view: curves
   * (up to 300 in view), lines (up to 10,000), and the flow budget's (a
   * note instead). */
  run_exact (TRACKS, TSL_EXACT_TOTAL / TRACKS / 4, 4, 1000, runs);
  run_exact (TRACKS, TSL_EXACT_TOTAL / TRACKS / 4, 4, 30000, runs);
  run_exact (TRACKS, TSL_EXACT_TOTAL / TRACKS / 4, 4, TSL_EXACT_FLOWS / 2, runs);
  return 0;
}
