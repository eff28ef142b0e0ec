/* bench-proto-floor.c: the floor of reading a Perfetto trace on this machine
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   bench-proto-floor [--runs N] [--only NAME] [--timeslice EXE] FILE [FILE.zst]
 *
 * A ladder of lower bounds for Perfetto ingest, each rung a strict subset of
 * what a correct reader must do, measured in one process, interleaved (rung
 * after rung in every run), median CPU time of N runs (default 3):
 *
 *   read      the bytes through memory: a sum of 64-bit words
 *   frame     the Trace's field-1 TracePackets: key and length, skipped
 *   decode    every field of every packet and of its TrackEvent: varints
 *             decoded, other length-delimited fields skipped, no state
 *   state     decode, plus the least state a correct reader keeps: per
 *             sequence interned names (an array index), clocks (incremental
 *             timestamps, snapshots), default track; per track a slice stack;
 *             per track and time slice (K = 2000) min/max/count/sum
 *
 * each on the file mapped (mmap, its page faults included) and read in
 * 1 MiB read()s, and on FILE.zst through libzstd; then, as child processes,
 * `wc -l`, `zstd -dc FILE.zst > /dev/null` and `EXE info` with
 * TSL_READER_THREADS=1 and unset (TSL_NO_INDEX=1: no cache read or written).
 * Every rung prints a checksum of what it decoded so that none of the work
 * can be optimised away, and "events" (packets with a TrackEvent) to check
 * against `timeslice info`. --only NAME runs one rung once (for callgrind).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <zstd.h>

#include "bench-proto-floor.h"

#define CHUNK (1u << 20)

/* ── rung 1: read ───────────────────────────────────────────────────── */

static gsize
rung_read (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  gsize words = n / 8;
  guint64 s = 0;

  (void) eof;
  for (gsize i = 0; i < words; i++)
    {
      guint64 w;

      memcpy (&w, p + 8 * i, 8);
      s += w;
    }
  for (gsize i = words * 8; i < n; i++)
    s += p[i];
  a->sum += s;
  return n;
}

/* ── rungs 2–3: the packets of a Trace (walk_packets(), bench-proto-floor.h) ─ */

guint64 bad;

static gsize
rung_frame (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  (void) eof;
  return walk_packets (p, n, a, NULL);
}

/* Every field of a message: varints decoded, the rest skipped. */
static inline gboolean
walk_fields (const guint8 *p, const guint8 *end, guint64 *sum)
{
  guint64 s = 0;

  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        return FALSE;
      s += key ^ v;
    }
  *sum += s;
  return TRUE;
}

static void
decode_packet (const guint8 *p, const guint8 *end, Acc *a)
{
  guint64 s = 0;

  while (p < end)
    {
      guint64 key, v;

      if (!next_field (&p, end, &key, &v))
        goto bad;
      s += key ^ v;
      if (key == (11 << 3 | TSL_PROTO_LEN))
        {
          /* The TrackEvent: its body is the last v bytes before p. */
          a->events++;
          if (!walk_fields (p - v, p, &s))
            goto bad;
        }
    }
  a->sum += s;
  return;
bad:
  bad++;
  a->sum += s;
}

static gsize
rung_decode (const guint8 *p, gsize n, gboolean eof, Acc *a)
{
  (void) eof;
  return walk_packets (p, n, a, decode_packet);
}

/* ── sources ────────────────────────────────────────────────────────── */

typedef gsize (*Rung) (const guint8 *p, gsize n, gboolean eof, Acc *a);

typedef struct {
  const char *name;
  Rung rung;
  int source;  /* 0 mmap, 1 read(), 2 zstd */
} Item;

static const guint8 *
map_file (const char *path, gsize *len)
{
  int fd = open (path, O_RDONLY);
  struct stat sb;
  void *m;

  if (fd < 0 || fstat (fd, &sb) < 0)
    g_error ("%s: %s", path, g_strerror (errno));
  *len = sb.st_size;
  m = mmap (NULL, MAX (*len, 1), PROT_READ, MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED)
    g_error ("%s: %s", path, g_strerror (errno));
  close (fd);
  return m;
}

/* A stream's bytes through `rung`, 1 MiB at a time: what a rung leaves
 * (a packet cut by the read) comes first in the next buffer. */
typedef struct {
  guint8 *buf;
  gsize cap, fill;
} Buf;

static void
buf_room (Buf *b, gsize want)
{
  if (b->cap - b->fill < want)
    {
      b->cap = MAX (b->cap * 2, b->fill + want);
      b->buf = g_realloc (b->buf, b->cap);
    }
}

static void
buf_feed (Buf *b, Rung rung, gboolean eof, Acc *a)
{
  gsize used = rung (b->buf, b->fill, eof, a);

  memmove (b->buf, b->buf + used, b->fill - used);
  b->fill -= used;
}

static void
run_source (const char *path, const char *zst, const Item *item, Acc *a, gsize *bytes)
{
  Buf b = { g_malloc (2 * CHUNK), 2 * CHUNK, 0 };

  *bytes = 0;
  if (item->source == 0)
    {
      gsize len;
      const guint8 *m = map_file (path, &len);

      madvise ((void *) m, len, MADV_SEQUENTIAL);
      if (item->rung (m, len, TRUE, a) != len)
        bad++;
      munmap ((void *) m, MAX (len, 1));
      *bytes = len;
    }
  else if (item->source == 1)
    {
      int fd = open (path, O_RDONLY);
      gssize n;

      if (fd < 0)
        g_error ("%s: %s", path, g_strerror (errno));
      for (;;)
        {
          buf_room (&b, CHUNK);
          if ((n = read (fd, b.buf + b.fill, CHUNK)) <= 0)
            break;
          b.fill += n;
          *bytes += n;
          buf_feed (&b, item->rung, FALSE, a);
        }
      close (fd);
    }
  else
    {
      gsize len;
      const guint8 *m = map_file (zst, &len);
      ZSTD_DCtx *dctx = ZSTD_createDCtx ();
      ZSTD_inBuffer in = { m, len, 0 };

      while (in.pos < in.size)
        {
          ZSTD_outBuffer out;
          gsize r;

          buf_room (&b, CHUNK);
          out = (ZSTD_outBuffer) { b.buf + b.fill, CHUNK, 0 };
          r = ZSTD_decompressStream (dctx, &out, &in);
          if (ZSTD_isError (r))
            g_error ("%s: %s", zst, ZSTD_getErrorName (r));
          b.fill += out.pos;
          *bytes += out.pos;
          buf_feed (&b, item->rung, FALSE, a);
        }
      ZSTD_freeDCtx (dctx);
      munmap ((void *) m, MAX (len, 1));
    }
  if (b.fill > 0)
    buf_feed (&b, item->rung, TRUE, a);
  if (b.fill > 0)
    bad++;  /* a packet cut by the end of the file */
  g_free (b.buf);
}

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A child's CPU time (user + system), its output to /dev/null. */
static double
run_child (char **argv, const char *threads)
{
  struct rusage ru;
  int status;
  pid_t pid = fork ();

  if (pid == 0)
    {
      int null = open ("/dev/null", O_WRONLY);

      dup2 (null, 1);
      dup2 (null, 2);
      setenv ("TSL_NO_INDEX", "1", 1);
      if (threads != NULL)
        setenv ("TSL_READER_THREADS", threads, 1);
      else
        unsetenv ("TSL_READER_THREADS");
      execvp (argv[0], argv);
      _exit (127);
    }
  if (pid < 0 || wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("%s failed", argv[0]);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  static const Item items[] = {
    { "read mmap",     rung_read,   0 },
    { "read 1MiB",     rung_read,   1 },
    { "frame mmap",    rung_frame,  0 },
    { "decode mmap",   rung_decode, 0 },
    { "decode 1MiB",   rung_decode, 1 },
    { "state mmap",    rung_state,  0 },
    { "state 1MiB",    rung_state,  1 },
    { "zstd read",     rung_read,   2 },
    { "zstd decode",   rung_decode, 2 },
    { "zstd state",    rung_state,  2 },
  };
  enum { N_ITEMS = G_N_ELEMENTS (items), N_CHILD = 5 };
  const char *child_names[N_CHILD] = { "wc -l", "timeslice 1 thread", "timeslice default",
                                       "zstd -dc", "timeslice .zst" };
  gint runs = 3;
  const char *only = NULL, *exe = NULL;
  GOptionEntry entries[] = {
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs (median)", "N" },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "Run one rung once", "NAME" },
    { "timeslice", 0, 0, G_OPTION_ARG_FILENAME, &exe, "Also time EXE info", "EXE" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("FILE [FILE.zst]");
  g_autoptr(GError) error = NULL;
  double cpu[N_ITEMS + N_CHILD][16];
  guint64 sums[N_ITEMS] = { 0 }, packets = 0, events[N_ITEMS] = { 0 };
  gsize bytes = 0;
  const char *path, *zst;
  double load[3] = { 0 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc < 2)
    {
      g_printerr ("%s\n", error != NULL ? error->message : "FILE missing");
      return 2;
    }
  path = argv[1];
  zst = argc > 2 ? argv[2] : NULL;
  runs = CLAMP (runs, 1, 16);
  getloadavg (load, 3);

  for (gint r = 0; r < (only != NULL ? 1 : runs); r++)
    {
      for (guint i = 0; i < N_ITEMS; i++)
        {
          Acc a = { 0 };
          gsize n;
          double t0;

          if ((only != NULL && !g_str_equal (only, items[i].name)) || (items[i].source == 2 && zst == NULL))
            continue;
          state_init ();
          t0 = cpu_now ();
          run_source (path, zst, &items[i], &a, &n);
          if (only != NULL && items[i].rung == rung_state)
            state_print ();
          a.sum += state_clear ();
          cpu[i][r] = cpu_now () - t0;
          if (r > 0 && (a.sum != sums[i] || a.events != events[i]))
            g_error ("%s: checksum changed between runs", items[i].name);
          sums[i] = a.sum;
          events[i] = a.events;
          if (items[i].rung == rung_frame)
            packets = a.packets;
          bytes = n;
        }
      if (only != NULL)
        break;
      {
        char *wc[] = { "wc", "-l", (char *) path, NULL };
        char *ts[] = { (char *) exe, "info", (char *) path, NULL };
        char *zd[] = { "sh", "-c", "exec zstd -q -d -c \"$1\" > /dev/null", "sh", (char *) zst, NULL };
        char *tz[] = { (char *) exe, "info", (char *) zst, NULL };

        cpu[N_ITEMS + 0][r] = run_child (wc, NULL);
        if (exe != NULL)
          {
            cpu[N_ITEMS + 1][r] = run_child (ts, "1");
            cpu[N_ITEMS + 2][r] = run_child (ts, NULL);
          }
        if (zst != NULL)
          cpu[N_ITEMS + 3][r] = run_child (zd, NULL);
        if (zst != NULL && exe != NULL)
          cpu[N_ITEMS + 4][r] = run_child (tz, NULL);
      }
    }

  if (only != NULL)
    {
      for (guint i = 0; i < N_ITEMS; i++)
        if (g_str_equal (only, items[i].name))
          g_print ("%s: %zu bytes, events %" G_GUINT64_FORMAT ", checksum %016" G_GINT64_MODIFIER "x, malformed %" G_GUINT64_FORMAT "\n",
                   only, bytes, events[i], sums[i], bad);
      return 0;
    }

  {
    double load_end[3] = { 0 };

    getloadavg (load_end, 3);
    g_print ("%s: %.1f MB, %" G_GUINT64_FORMAT " packets; %d runs, interleaved; load average %.2f at start, %.2f at end; malformed %" G_GUINT64_FORMAT "\n",
             path, bytes / 1e6, packets, runs, load[0], load_end[0], bad / runs);
  }
  g_print ("| rung | CPU s (median) | MB per CPU-s | ns/packet | events | checksum |\n|---|---:|---:|---:|---:|---|\n");
  for (guint i = 0; i < N_ITEMS + N_CHILD; i++)
    {
      const char *name = i < N_ITEMS ? items[i].name : child_names[i - N_ITEMS];
      double m;

      if ((i < N_ITEMS && items[i].source == 2 && zst == NULL) ||
          ((i == N_ITEMS + 1 || i == N_ITEMS + 2 || i == N_ITEMS + 4) && exe == NULL) ||
          ((i == N_ITEMS + 3 || i == N_ITEMS + 4) && zst == NULL))
        continue;
      qsort (cpu[i], runs, sizeof (double), cmp_double);
      m = cpu[i][runs / 2];
      if (i < N_ITEMS)
        g_print ("| %s | %.3f | %.0f | %.1f | %" G_GUINT64_FORMAT " | %016" G_GINT64_MODIFIER "x |\n",
                 name, m, bytes / 1e6 / m, m * 1e9 / MAX (packets, 1), events[i], sums[i]);
      else
        g_print ("| %s | %.3f | %.0f | %.1f | | |\n", name, m, bytes / 1e6 / m, m * 1e9 / MAX (packets, 1));
    }
  return 0;
}
