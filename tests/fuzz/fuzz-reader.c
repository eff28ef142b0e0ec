/* fuzz-reader.c: a libFuzzer harness for one reader, or for the byte driver
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built once per format by tests/fuzz/build.sh with -DTSL_FUZZ_FORMAT="name"
 * (the sniffer is skipped, so every input reaches that reader), or without it
 * for the driver harness, which sniffs and first runs the input through a
 * transform picked by its first byte: none, gzip, damaged gzip, UTF-16LE or
 * UTF-16BE with or without a BOM, a UTF-8 BOM, zstd, or damaged zstd.
 *
 * Each input is read twice — whole, in count mode, and split at a point taken
 * from the data, in time mode — and both runs must agree on success and on
 * the number of events. A snapshot of each trace is then painted. The split
 * read is repeated with the reader's second thread from the first event
 * (TSL_READER_THREADS_EAGER: the Chrome reader then also splits every
 * buffer's scan at a guessed event boundary); that must give exactly the
 * same trace: samples, times, values, stacks and warnings. So must a read
 * as of a regular file on three threads with every buffer cut at random
 * places (TSL_READER_SPLIT_SEED: the Chrome, CSV and perf script readers'
 * parallel scans, the Perfetto reader's parallel decoding).
 *
 * With TSL_FUZZ_ONE_THREAD set, only the one-thread reads run: their
 * coverage does not depend on how threads were scheduled, so a fixed seed
 * and number of runs try the same inputs every time (CI's first pass,
 * tests/fuzz/run.sh runs=N; its second pass runs those inputs here again
 * with every thread).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <gio/gio.h>
#include <zstd.h>

#include "tsl-format-private.h"
#include "tsl-render.h"
#include "tsl-snapshot.h"

#define FUZZ_K 8

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static void
ignore_log (const char     *log_domain,
            GLogLevelFlags  log_level,
            const char     *message,
            gpointer        user_data)
{
}

static gboolean one_thread;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  one_thread = g_getenv ("TSL_FUZZ_ONE_THREAD") != NULL;
  /* Small inputs reach the V8 CPU profile and Firefox profile readers'
   * temporary files too. */
  g_setenv ("TSL_CPUPROFILE_SPOOL_BYTES", "64", FALSE);
  /* A pprof record's count is that many events: a few bytes must not ask
   * for millions of them per run. */
  g_setenv ("TSL_PPROF_MAX_COUNT", "64", FALSE);
  /* And the pprof reader's temporary file. */
  g_setenv ("TSL_PPROF_SPOOL_BYTES", "64", FALSE);
  g_setenv ("TSL_GECKO_SPOOL_BYTES", "64", FALSE);
  /* And the Chrome reader's, for ProfileChunks before their Profile event. */
  g_setenv ("TSL_CHROME_PROFILE_SPOOL_BYTES", "64", FALSE);
  /* The V8 and Gecko readers' elements decoded on a second thread (the
   * reads with more than one) from any buffer, however short. */
  g_setenv ("TSL_SCAN_AHEAD_BYTES", "1", FALSE);
  /* Warnings from the readers are expected; criticals and errors are bugs. */
  g_log_set_default_handler (ignore_log, NULL);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
  return 0;
}

static void
paint (TslTrace *trace)
{
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  TslRenderOptions options;
  TslRenderHit hit;
  cairo_surface_t *surface;
  cairo_t *cr;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 160, 120);
  cr = cairo_create (surface);
  tsl_render_options_init (&options, snapshot, 160, 120);
  options.title = "fuzz";
  options.draw_note = TRUE;
  options.highlight = "a";
  options.has_a = TRUE;
  options.a_start_ns = 0;
  options.a_end_ns = tsl_snapshot_get_span (snapshot) / 2;
  tsl_render_paint (cr, snapshot, &options);
  for (int y = 0; y < 120; y += 7)
    tsl_render_hit_test (snapshot, &options, 80, y, &hit);
  g_assert (cairo_status (cr) == CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      for (guint j = 0; j < track->n_samples; j++)
        for (guint f = 0; f < track->samples[j].n_frames; f++)
          g_assert (tsl_snapshot_get_frame_name (snapshot, track->samples[j].frames[f]) != NULL);
    }
}

static guint64
mix (guint64 h,
     guint64 v)
{
  return (h ^ v) * G_GUINT64_CONSTANT (0x100000001b3);
}

static guint64
mix_string (guint64     h,
            const char *s)
{
  for (; s != NULL && *s != '\0'; s++)
    h = mix (h, (guchar) *s);
  return mix (h, 0xff);
}

/* Everything a reader put into the trace, as one number. */
static guint64
fingerprint (TslTrace *trace)
{
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  g_auto(GStrv) warnings = tsl_trace_dup_warnings (trace);
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

  h = mix (h, tsl_trace_get_events (trace));
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    h = mix_string (h, warnings[i]);
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, i);

      h = mix_string (mix_string (h, track->name), track->process);
      h = mix (mix (h, track->events), track->n_samples);
      for (guint j = 0; j < track->n_samples; j++)
        {
          const TslSnapshotSample *sample = &track->samples[j];
          guint64 bits;

          memcpy (&bits, &sample->value, sizeof bits);
          h = mix (mix (mix (h, sample->time_ns), sample->index), isnan (sample->value) ? 1 : bits);
          for (guint f = 0; f < sample->n_frames; f++)
            h = mix_string (h, tsl_snapshot_get_frame_name (snapshot, sample->frames[f]));
        }
    }
  return h;
}

static gboolean
no_idle (gpointer data)
{
  return FALSE;
}

/* parallel_seed: not 0, a read as of a regular file on three threads (a
 * reader with an idle function reads ahead, its compressed input
 * decompressed on a thread of its own) cut at random places. */
static gboolean
read_input (const guint8      *data,
            gsize              size,
            gsize              split,
            TslSamplerMode     mode,
            TslReaderThreads   threads,
            guint              parallel_seed,
            guint64           *events,
            const char       **format,
            guint64           *print)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, FUZZ_K, 7);
  g_autoptr(TslReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) warnings = NULL;
  gboolean ok;

  if (parallel_seed != 0)
    {
      char seed[16];

      g_snprintf (seed, sizeof seed, "%u", parallel_seed);
      g_setenv ("TSL_READER_THREADS", "3", TRUE);
      g_setenv ("TSL_READER_SPLIT_SEED", seed, TRUE);
    }
  reader = tsl_reader_new (trace, "fuzz");
  tsl_reader_set_max_record (reader, 1024 * 1024);
  tsl_reader_set_threads (reader, threads);
  if (parallel_seed != 0)
    {
      tsl_reader_set_idle_func (reader, no_idle, NULL);
      /* gzip and zstd decompressed on a thread of their own, as a whole
       * read of a file on several cores does. */
      tsl_reader_set_decompress_ahead (reader, TRUE);
    }
#ifdef TSL_FUZZ_FORMAT
  g_assert (tsl_reader_set_format (reader, TSL_FUZZ_FORMAT));
#endif

  ok = tsl_reader_feed (reader, data, split, &error)
       && tsl_reader_feed (reader, data + split, size - split, &error)
       && tsl_reader_finish (reader, &error);
  g_assert (ok == (error == NULL));
  if (parallel_seed != 0)
    {
      g_unsetenv ("TSL_READER_THREADS");
      g_unsetenv ("TSL_READER_SPLIT_SEED");
    }

  *events = tsl_trace_get_events (trace);
  /* Static strings of the format table, valid after the reader is gone. */
  *format = tsl_reader_get_format (reader);
  warnings = tsl_trace_dup_warnings (trace);
  *print = fingerprint (trace);
  if (ok)
    paint (trace);

  return ok;
}

#ifndef TSL_FUZZ_FORMAT
static GBytes *
gzip_bytes (const guint8 *data,
            gsize         size)
{
  g_autoptr(GConverter) gzip = G_CONVERTER (g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1));
  g_autoptr(GInputStream) in = g_memory_input_stream_new_from_data (data, size, NULL);
  g_autoptr(GInputStream) conv = g_converter_input_stream_new (in, gzip);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  g_output_stream_splice (out, conv, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, NULL);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static GBytes *
utf16_bytes (const guint8 *data,
             gsize         size,
             gboolean      be,
             gboolean      with_bom)
{
  GByteArray *out = g_byte_array_sized_new (2 + size * 2);
  guint8 bom[2] = { be ? 0xFE : 0xFF, be ? 0xFF : 0xFE };

  if (with_bom)
    g_byte_array_append (out, bom, 2);
  /* Each input byte is one code unit: the high byte comes from the low one so
   * that surrogates and non-ASCII still occur. */
  for (gsize i = 0; i < size; i++)
    {
      guint8 hi = data[i] >= 0xD0 ? data[i] : 0;
      guint8 u[2];

      u[0] = be ? hi : data[i];
      u[1] = be ? data[i] : hi;
      g_byte_array_append (out, u, 2);
    }
  return g_byte_array_free_to_bytes (out);
}

static GBytes *
zstd_bytes (const guint8 *data,
            gsize         size)
{
  gsize cap = ZSTD_compressBound (size);
  guint8 *out = g_malloc (cap);
  gsize len = ZSTD_compress (out, cap, data, size, 1);

  g_assert (!ZSTD_isError (len));
  return g_bytes_new_take (out, len);
}

/* Compressed data truncated or with one byte flipped, as `mode` says
 * (takes `bytes`). */
static GBytes *
damage (GBytes *bytes,
        guint8  mode)
{
  gsize len = g_bytes_get_size (bytes);
  guint8 *copy = g_memdup2 (g_bytes_get_data (bytes, NULL), len);
  gsize at = len > 0 ? (mode * 2654435761u) % len : 0;

  g_bytes_unref (bytes);
  if (mode & 0x80)
    len = at;
  else if (len > 0)
    copy[at] ^= 1 + (mode >> 3);
  return g_bytes_new_take (copy, len);
}

/* The first byte picks the transform applied to the rest. */
static GBytes *
transform (const guint8 *data,
           gsize         size)
{
  guint8 mode = data[0];

  data++;
  size--;
  switch (mode % 8)
    {
    case 1:
      return gzip_bytes (data, size);
    case 2:
      return damage (gzip_bytes (data, size), mode);
    case 3:
      return utf16_bytes (data, size, FALSE, TRUE);
    case 4:
      return utf16_bytes (data, size, TRUE, TRUE);
    case 6:
      /* Told from its NULs, not a BOM. */
      return utf16_bytes (data, size, mode & 0x80, FALSE);
    case 5:
      {
        GByteArray *out = g_byte_array_new ();

        g_byte_array_append (out, (const guint8 *) "\xEF\xBB\xBF", 3);
        g_byte_array_append (out, data, size);
        return g_byte_array_free_to_bytes (out);
      }
    case 7:
      /* zstd; with 0x40, damaged too. */
      if (mode & 0x40)
        return damage (zstd_bytes (data, size), mode);
      return zstd_bytes (data, size);
    default:
      return g_bytes_new (data, size);
    }
}
#endif

/* Aborts, saying what differs, unless a read on more threads (`what`) gave
 * what the one-thread read gave. */
static void
expect_same_as_one_thread (const char *what,
                           gboolean    ok,
                           guint64     events,
                           guint64     print,
                           const char *format,
                           gboolean    ok_one,
                           guint64     events_one,
                           guint64     print_one,
                           const char *format_one)
{
  if (ok == ok_one && events == events_one && print == print_one && g_strcmp0 (format, format_one) == 0)
    return;
  g_printerr ("%s changed the result: %s %" G_GUINT64_FORMAT " events %016" G_GINT64_MODIFIER
              "x, one thread %s %" G_GUINT64_FORMAT " events %016" G_GINT64_MODIFIER "x\n",
              what, ok ? "ok" : "failed", events, print, ok_one ? "ok" : "failed", events_one, print_one);
  abort ();
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GBytes) bytes = NULL;
  const guint8 *input;
  gsize len;
  gsize split;
  guint hash = 5381;
  guint64 events_whole = 0;
  guint64 events_split = 0;
  guint64 events_eager = 0, events_parallel = 0;
  guint64 print_whole, print_split, print_eager, print_parallel;
  gboolean ok_whole, ok_split, ok_eager, ok_parallel;
  const char *format_eager = NULL;
  const char *format_parallel = NULL;
  const char *format_whole = NULL;
  const char *format_split = NULL;

#ifdef TSL_FUZZ_FORMAT
  bytes = g_bytes_new_static (data, size);
#else
  if (size == 0)
    return 0;
  bytes = transform (data, size);
#endif
  input = g_bytes_get_data (bytes, &len);
  if (input == NULL)
    input = (const guint8 *) "";

  for (gsize i = 0; i < MIN (len, 64); i++)
    hash = hash * 33 + input[i];
  split = len > 0 ? hash % (len + 1) : 0;

  ok_whole = read_input (input, len, len, TSL_SAMPLER_COUNT, TSL_READER_THREADS_NEVER, 0,
                         &events_whole, &format_whole, &print_whole);
  ok_split = read_input (input, len, split, TSL_SAMPLER_TIME, TSL_READER_THREADS_NEVER, 0,
                         &events_split, &format_split, &print_split);
  if (!one_thread)
    {
      ok_eager = read_input (input, len, split, TSL_SAMPLER_TIME, TSL_READER_THREADS_EAGER, 0,
                             &events_eager, &format_eager, &print_eager);
      ok_parallel = read_input (input, len, split, TSL_SAMPLER_TIME, TSL_READER_THREADS_AUTO,
                                (guint) hash | 1, &events_parallel, &format_parallel, &print_parallel);

      /* Nor must scanning on three threads, and a second thread must change
       * nothing at all. */
      expect_same_as_one_thread ("the parallel scan", ok_parallel, events_parallel, print_parallel,
                                 format_parallel, ok_split, events_split, print_split, format_split);
      expect_same_as_one_thread ("the second reader thread", ok_eager, events_eager, print_eager,
                                 format_eager, ok_split, events_split, print_split, format_split);
    }

  /* Where the bytes are cut must not change what is read. The one exception
   * is by design: a sniffer may be certain from the first bytes so that a slow
   * pipe need not fill 64 KiB first, and an input that looks like two formats
   * (a "traceEvents" object that also names the speedscope schema) may then
   * go either way. */
  if (g_strcmp0 (format_whole, format_split) != 0)
    return 0;
  if (ok_whole != ok_split || (ok_whole && events_whole != events_split))
    {
      g_printerr ("chunking changed the result: whole %s %" G_GUINT64_FORMAT
                  " events, split at %" G_GSIZE_FORMAT " %s %" G_GUINT64_FORMAT " events\n",
                  ok_whole ? "ok" : "failed", events_whole, split,
                  ok_split ? "ok" : "failed", events_split);
      abort ();
    }

  return 0;
}
