/* tsl-reader.c: the push parser that turns bytes into events
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The entry points: a reader is made, fed, settled and finished here.
 * Bytes go through three stages before a format sees them (decompression,
 * text encoding, the sniffer's held head: tsl-reader-stages.c); the
 * sniffer picks the format (tsl-reader-sniff.c); the chunk index's hooks
 * are in tsl-reader-checkpoint.c and what a format may ask of its reader in
 * tsl-reader-context.c.
 *
 * Positions in messages are 1-based lines and 1-based columns counted in
 * bytes of the decoded UTF-8 text (tsl-text-position.c).
 */
#define G_LOG_DOMAIN "tsl-reader"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "tsl-reader-private.h"

G_DEFINE_QUARK (tsl-reader-error-quark, tsl_reader_error)

/* TSL_READER_THREADS: "0" or "1" one thread, "eager" two from the first
 * event (tests), N (2 to 256) that many; otherwise every online core. */
static guint
default_n_threads (gboolean *cores)
{
  const char *env = g_getenv ("TSL_READER_THREADS");
  guint64 n;

  *cores = FALSE;
  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 0, 256, &n, NULL))
    return MAX (n, 1);
  *cores = TRUE;
  return g_get_num_processors ();
}

/* The governor measures the default (every online core), not a number of
 * threads asked for; TSL_READER_ADAPT=1 or 0 turns it on or off whatever
 * the threads, and the tests' random cuts are never governed. */
static gboolean
default_governed (void)
{
  const char *adapt = g_getenv ("TSL_READER_ADAPT");
  const char *threads = g_getenv ("TSL_READER_THREADS");

  if (g_getenv ("TSL_READER_SPLIT_SEED") != NULL)
    return FALSE;
  if (adapt != NULL)
    return g_strcmp0 (adapt, "0") != 0;
  return threads == NULL || *threads == '\0';
}

static TslReaderThreads
default_threads (void)
{
  const char *env = g_getenv ("TSL_READER_THREADS");
  gboolean cores;

  if (g_strcmp0 (env, "eager") == 0)
    return TSL_READER_THREADS_EAGER;
  return default_n_threads (&cores) > 1 ? TSL_READER_THREADS_AUTO : TSL_READER_THREADS_NEVER;
}

TslReader *
tsl_reader_new (TslTrace   *trace,
                const char *display_name)
{
  TslReader *self;

  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);

  self = g_new0 (TslReader, 1);
  self->trace = g_object_ref (trace);
  self->name = g_strdup (display_name ? display_name : "-");
  self->max_record = MAX_RECORD;
  self->pending = g_byte_array_new ();
  self->transcoded = g_byte_array_new ();
  self->ctx.reader = self;
  tsl_text_position_init (&self->ctx.pos);
  self->threads = default_threads ();
  self->n_threads = default_n_threads (&self->n_threads_cores);
  self->governed = default_governed ();
  self->text_end = G_MAXUINT64;

  return self;
}

void
tsl_reader_set_threads (TslReader        *self,
                        TslReaderThreads  threads)
{
  g_return_if_fail (self != NULL);

  self->threads = threads != TSL_READER_THREADS_DEFAULT ? threads : default_threads ();
}

void
tsl_reader_set_decompress_ahead (TslReader *self,
                                 gboolean   ahead)
{
  g_return_if_fail (self != NULL && self->bytes_in == 0);

  self->ahead_allowed = ahead;
}

void
tsl_reader_set_idle_func (TslReader         *self,
                          TslReaderIdleFunc  func,
                          gpointer           user_data)
{
  g_return_if_fail (self != NULL);

  self->idle = func;
  self->idle_data = user_data;
}

void
tsl_reader_free (TslReader *self)
{
  if (self == NULL)
    return;

  if (self->state != NULL)
    self->format->destroy (self->state);
  if (self->governor != NULL)
    {
      guint64 parallel, serial;
      guint switches;

      tsl_scan_governor_get_counts (self->governor, &parallel, &serial, &switches);
      g_debug ("%s: governor: %" G_GUINT64_FORMAT " bytes scanned on every core, %"
               G_GUINT64_FORMAT " on one thread, %u switches%s",
               self->name, parallel, serial, switches,
               tsl_scan_governor_uses_wait (self->governor) ? " (by the time waited for a core)" : "");
      tsl_scan_governor_free (self->governor);
    }
  _tsl_reader_stop_ahead (self);
  if (self->ahead_used)
    g_debug ("%s: decompressed on its own thread, which waited %" G_GUINT64_FORMAT
             " times for the parser and %" G_GUINT64_FORMAT " times for input",
             self->name, self->ahead_waits, self->ahead_input_waits);
  g_clear_pointer (&self->inflate, tsl_inflate_free);
  g_free (self->point);
  g_clear_pointer (&self->pending, g_byte_array_unref);
  g_clear_pointer (&self->transcoded, g_byte_array_unref);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->index, tsl_chunk_index_unref);
  g_clear_pointer (&self->index_state, g_byte_array_unref);
  g_clear_pointer (&self->index_point, g_byte_array_unref);
  g_free (self->name);
  g_free (self);
}

void
tsl_reader_set_max_record (TslReader *self,
                           gsize      max_record)
{
  g_return_if_fail (self != NULL);

  self->max_record = max_record > 0 ? max_record : MAX_RECORD;
}

guint64
tsl_reader_get_bytes_in (TslReader *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->bytes_in;
}

const char *
tsl_reader_get_format (TslReader *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->format ? self->format->name : NULL;
}

gboolean
tsl_reader_feed (TslReader     *self,
                 const guint8  *data,
                 gsize          len,
                 GError       **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);

  if (self->failed)
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX,
                   _("%s: the reader already failed"), self->name);
      return FALSE;
    }

  self->bytes_in += len;

  if (!self->magic_checked)
    {
      guint n = MIN (len, sizeof self->magic - self->n_magic);

      memcpy (self->magic + self->n_magic, data, n);
      self->n_magic += n;
      data += n;
      len -= n;
      if (self->n_magic < sizeof self->magic)
        return TRUE;

      if (!_tsl_reader_check_magic (self, error))
        goto failed;
    }

  /* A format sees a checkpoint only after a parse() call: an index with
   * chunks smaller than a feed (tests) is fed a chunk at a time. */
  while (len > 0)
    {
      gsize piece = len;

      if (self->index != NULL && tsl_chunk_index_is_valid (self->index))
        piece = MIN (len, MAX (tsl_chunk_index_get_stride (self->index), 4096));
      if (!_tsl_reader_push_raw (self, data, piece, error))
        goto failed;
      data += piece;
      len -= piece;
    }

  return TRUE;

failed:
  self->failed = TRUE;
  return FALSE;
}

gboolean
tsl_reader_settle (TslReader  *self,
                   GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  /* Follow mode waits here: what was fed is read first. */
  if (!_tsl_reader_drain_ahead (self, error))
    {
      self->failed = TRUE;
      return FALSE;
    }
  if (self->settled)
    return TRUE;
  self->settled = TRUE;

  /* A short head that no format was sure of is sniffed now, as at the end. */
  if (self->encoding == ENC_UNKNOWN)
    return _tsl_reader_push_decoded (self, (const guint8 *) "", 0, FALSE, error);
  return _tsl_reader_push_text (self, NULL, 0, FALSE, error);
}

/* A file that was read but holds no event is an error, not an empty
 * window. (Tracks are not asked for: a Chrome trace of metadata and
 * object snapshots is a trace.) */
static gboolean
check_something_to_show (TslReader  *self,
                         GError    **error)
{
  if (tsl_trace_get_events (self->trace) > 0)
    return TRUE;
  tsl_reader_context_set_nothing_to_show (&self->ctx, error, 0);
  return FALSE;
}

gboolean
tsl_reader_finish (TslReader  *self,
                   GError    **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (!self->finished, FALSE);

  self->finished = TRUE;

  if (self->failed)
    {
      g_set_error (error, TSL_READER_ERROR, TSL_READER_ERROR_SYNTAX,
                   _("%s: the reader already failed"), self->name);
      return FALSE;
    }

  /* A few bytes that never became a magic number. */
  if (!self->magic_checked && self->n_magic > 0 && !_tsl_reader_check_magic (self, error))
    return FALSE;

  /* The decompression thread's last buffers; then the inflater is this
   * thread's again. */
  if (self->ahead != NULL)
    {
      gboolean ok;

      tsl_inflate_ahead_close (self->ahead);
      ok = _tsl_reader_drain_ahead (self, error);
      _tsl_reader_stop_ahead (self);
      if (!ok)
        return FALSE;
    }

  if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_ZSTD &&
      !tsl_inflate_is_complete (self->inflate))
    tsl_trace_add_warning (self->trace, "%s: the zstd data is truncated; what it held was read",
                           self->name);

  if (self->inflate != NULL && tsl_inflate_get_kind (self->inflate) == TSL_INFLATE_GZIP &&
      !tsl_inflate_is_complete (self->inflate))
    tsl_trace_add_warning (self->trace, _("%s: the gzip data is truncated; what it held was read"),
                           self->name);
  if (self->inflate != NULL && tsl_inflate_had_trailing_garbage (self->inflate))
    tsl_trace_add_warning (self->trace, _("%s: bytes after the end of the gzip data were ignored"),
                           self->name);

  /* An empty buffer, not NULL: the stages and formats do pointer arithmetic
   * on it, which is undefined on NULL even for an offset of 0. */
  if (!_tsl_reader_push_decoded (self, (const guint8 *) "", 0, TRUE, error))
    return FALSE;

  /* _tsl_reader_sniff() at the end either picked a format or failed. */
  g_assert (self->format != NULL);

  if (self->index != NULL)
    {
      gint64 start = 0, end = 0;

      /* Offsets are in the text: a compressed file's is longer. */
      tsl_chunk_index_close (self->index, self->trace,
                             self->inflate != NULL ? tsl_inflate_get_out (self->inflate) : self->bytes_in);
      tsl_chunk_index_set_compressed (self->index, self->inflate != NULL);
      tsl_trace_get_span (self->trace, &start, &end);
      tsl_chunk_index_set_span (self->index, start, end);
      tsl_chunk_index_set_format (self->index, self->format->name);
    }

  return check_something_to_show (self, error);
}
