/* tsl-state-cache.c: whole-trace sampler states cached beside the chunk index
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * $XDG_CACHE_HOME/timeslice/state-DEV-INODE-PARAMS.tsc: a header (magic,
 * cache version, program version and build: tsl_cache_get_program_id()), the file's identity and the hash of its
 * ends, the sampler parameters, the state's length and the state
 * (docs/state-format.md), whose own SHA-256 covers it: the header is
 * checked byte for byte, so one hash pass checks the whole entry. Written
 * aside in pieces and renamed, so a reader never sees half an entry, and
 * an interrupted write leaves a temporary the next save removes.
 */
#define G_LOG_DOMAIN "tsl-state-cache"

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <utime.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>

#include "tsl-cache-entry.h"
#include "tsl-state-cache.h"
#include "tsl-trace-state.h"

#define CACHE_MAGIC     "TSLSTATC"
/* 2: spans never closed carry their duration to the trace's end (issue 32). */
#define CACHE_VERSION   2
#define DEFAULT_MAX_BYTES (G_GUINT64_CONSTANT (512) << 20)

/* What the samples depend on besides the file. */
typedef struct {
  guint64 mode;
  guint64 k;
  guint64 seed;
  guint64 budget;
  guint64 exact_per_track;
  guint64 exact_total;
} Params;

static void
params_of (TslTrace *trace,
           Params   *p)
{
  guint per_track = 0, total = 0;

  tsl_trace_get_exact_request (trace, &per_track, &total);
  p->mode = tsl_trace_get_mode (trace);
  p->k = tsl_trace_get_k (trace);
  p->seed = tsl_trace_get_seed (trace);
  p->budget = tsl_budget_get_limit (tsl_trace_get_budget (trace));
  p->exact_per_track = per_track;
  p->exact_total = total;
}

static char *
entry_path (const TslFileKey *key,
            const Params     *p)
{
  g_autofree char *dir = tsl_cache_get_dir ();
  g_autofree char *params = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guint8 *) p, sizeof *p);
  g_autofree char *name = NULL;

  params[16] = '\0';
  name = g_strdup_printf ("state-%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x-%s.tsc",
                          key->dev, key->inode, params);
  return g_build_filename (dir, name, NULL);
}

static guint64
max_bytes (void)
{
  const char *env = g_getenv ("TSL_CACHE_MAX_BYTES");

  return env != NULL ? g_ascii_strtoull (env, NULL, 10) : DEFAULT_MAX_BYTES;
}

static void
put_u64 (GByteArray *out,
         guint64     v)
{
  guint64 le = GUINT64_TO_LE (v);

  g_byte_array_append (out, (const guint8 *) &le, sizeof le);
}

/* The header every entry of this file and these parameters has. */
static GByteArray *
header (const TslFileKey *key,
        const Params     *p,
        const guint8      ends[32])
{
  GByteArray *out = g_byte_array_new ();

  g_byte_array_append (out, (const guint8 *) CACHE_MAGIC, 8);
  put_u64 (out, CACHE_VERSION);
  put_u64 (out, strlen (tsl_cache_get_program_id ()));
  g_byte_array_append (out, (const guint8 *) tsl_cache_get_program_id (), strlen (tsl_cache_get_program_id ()));
  put_u64 (out, key->dev);
  put_u64 (out, key->inode);
  put_u64 (out, key->size);
  put_u64 (out, key->mtime_us);
  g_byte_array_append (out, ends, 32);
  put_u64 (out, p->mode);
  put_u64 (out, p->k);
  put_u64 (out, p->seed);
  put_u64 (out, p->budget);
  put_u64 (out, p->exact_per_track);
  put_u64 (out, p->exact_total);
  return out;
}

typedef struct {
  char    *path;
  guint64  size;
  gint64   mtime;
} Entry;

static void
entry_clear (gpointer data)
{
  g_free (((Entry *) data)->path);
}

static gint
compare_age (gconstpointer a,
             gconstpointer b)
{
  const Entry *ea = a, *eb = b;

  return ea->mtime < eb->mtime ? -1 : ea->mtime > eb->mtime;
}

/* Oldest first (by last use: a hit touches its entry) until all fit. */
static void
evict (const char *dir,
       guint64     limit)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  guint64 total = 0;
  const char *name;

  if (d == NULL)
    return;
  g_array_set_clear_func (entries, entry_clear);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      Entry e = { g_build_filename (dir, name, NULL), 0, 0 };
      GStatBuf st;

      /* A temporary an interrupted save left (an hour old: not one being
       * written now). */
      if (g_str_has_prefix (name, "state-") && strstr (name, ".tsc.") != NULL &&
          g_stat (e.path, &st) == 0 && st.st_mtime < g_get_real_time () / G_USEC_PER_SEC - 3600)
        g_unlink (e.path);
      if (!g_str_has_prefix (name, "state-") || !g_str_has_suffix (name, ".tsc") ||
          g_stat (e.path, &st) != 0)
        {
          g_free (e.path);
          continue;
        }
      e.size = st.st_size;
      e.mtime = st.st_mtime;
      total += e.size;
      g_array_append_val (entries, e);
    }
  g_array_sort (entries, compare_age);
  for (guint i = 0; i < entries->len && total > limit; i++)
    {
      const Entry *e = &g_array_index (entries, Entry, i);

      if (g_unlink (e->path) == 0)
        total -= e->size;
    }
}

void
tsl_state_cache_save (TslTrace         *trace,
                      GFileInputStream *stream,
                      const TslFileKey *key)
{
  g_autoptr(GByteArray) out = NULL;
  g_autoptr(TslStateWriter) writer = NULL;
  g_autoptr(GOutputStream) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = tsl_cache_get_dir ();
  g_autofree char *path = NULL;
  g_autofree char *tmp = NULL;
  guint8 ends[32];
  gint64 lo, hi;
  gboolean ok, existed;
  Params p;
  int fd;

  g_return_if_fail (TSL_IS_TRACE (trace));

  /* An observer's trace samples only what it was told to: not a state. */
  if (!tsl_cache_get_enabled () || max_bytes () == 0 || tsl_trace_wants_events (trace) ||
      tsl_trace_get_exact (trace, &lo, &hi) || tsl_trace_get_time_filter (trace, &lo, &hi))
    return;
  if (!tsl_file_hash_ends (stream, key->size, ends))
    return;

  params_of (trace, &p);
  path = entry_path (key, &p);
  /* Written aside and renamed, as g_file_set_contents() would, but in
   * 64 KiB pieces: the state is never held in memory, let alone twice. */
  tmp = g_strconcat (path, ".XXXXXX", NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0 || (fd = g_mkstemp_full (tmp, O_WRONLY, 0600)) < 0)
    {
      g_debug ("cannot write the state cache %s", path);
      return;
    }
  file = g_unix_output_stream_new (fd, TRUE);
  out = header (key, &p, ends);

  tsl_trace_lock (trace);
  writer = tsl_state_writer_new (trace);
  ok = tsl_state_writer_get_size (writer) <= max_bytes ();
  if (!ok)
    g_debug ("the state (%" G_GUINT64_FORMAT " bytes) is over the cache's size", tsl_state_writer_get_size (writer));
  else
    {
      put_u64 (out, tsl_state_writer_get_size (writer));
      ok = g_output_stream_write_all (file, out->data, out->len, NULL, NULL, &error) &&
           tsl_state_writer_write (writer, file, NULL, &error);
    }
  tsl_trace_unlock (trace);

  /* Replacing an entry: on disk before the rename, or a crash could leave
   * neither (what g_file_set_contents() does too). */
  existed = g_file_test (path, G_FILE_TEST_EXISTS);
  ok = ok && (!existed || fsync (fd) == 0) && g_output_stream_close (file, NULL, &error) &&
       g_rename (tmp, path) == 0;
  if (!ok)
    {
      /* Too large, a full disk: no entry, the file is read again next time. */
      g_debug ("cannot write the state cache %s: %s", path,
               error != NULL ? error->message : "not renamed into place");
      g_unlink (tmp);
      return;
    }
  evict (dir, max_bytes ());
}

gboolean
tsl_state_cache_load (TslTrace         *trace,
                      GFileInputStream *stream,
                      const TslFileKey *key,
                      const char       *display_name)
{
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GByteArray) expect = NULL;
  g_autoptr(GBytes) state = NULL;
  g_autoptr(GError) error = NULL;
  guint8 ends[32];
  gsize len = 0;
  guint64 state_len;
  gboolean ok;
  gint64 lo, hi;
  Params p;

  g_return_val_if_fail (TSL_IS_TRACE (trace), FALSE);

  /* An observer (range statistics, a search) must see the events. */
  if (!tsl_cache_get_enabled () || max_bytes () == 0 || tsl_trace_get_n_tracks (trace) != 0 ||
      tsl_trace_wants_events (trace) || tsl_trace_get_time_filter (trace, &lo, &hi))
    return FALSE;
  params_of (trace, &p);
  path = entry_path (key, &p);
  if (!tsl_cache_entry_read (path, &data, &len))
    return FALSE;
  if (!tsl_file_hash_ends (stream, key->size, ends))
    return FALSE;

  /* The header must be this one, byte for byte; then the length and the
   * state, which checks itself (its SHA-256) as it loads. */
  expect = header (key, &p, ends);
  if (len < expect->len + 8 || memcmp (data, expect->data, expect->len) != 0)
    {
      g_debug ("%s: the cache entry is of another file, version or parameters", path);
      return FALSE;
    }
  memcpy (&state_len, data + expect->len, 8);
  state_len = GUINT64_FROM_LE (state_len);
  if (state_len != len - expect->len - 8)
    {
      g_debug ("%s: truncated cache entry", path);
      return FALSE;
    }

  state = g_bytes_new_static (data + expect->len + 8, state_len);
  tsl_trace_lock (trace);
  ok = tsl_trace_load_state (trace, state, display_name, &error);
  tsl_trace_unlock (trace);
  if (!ok)
    {
      /* A damaged entry (its checksum), left as it came: read the file. */
      g_debug ("%s: %s", path, error->message);
      return FALSE;
    }
  /* Last used now: eviction removes the entries unused longest. */
  g_utime (path, NULL);
  g_debug ("%s: %" G_GUINT64_FORMAT " bytes of state from the cache", display_name, state_len);
  return TRUE;
}
