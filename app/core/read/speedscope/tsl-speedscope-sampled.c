/* tsl-speedscope-sampled.c: a sampled profile read as it streams
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sampled profile's "samples" (stacks) and "weights" are two arrays, and
 * a sample's time is the sum of the weights before it, which come after
 * all the samples. Held whole, a profile cost its text in memory (171 MB
 * for a 171 MB profile). Streamed, the samples' text is spooled as it
 * comes, in memory up to SPOOL_MEMORY bytes and past that in an unlinked
 * temporary file, and read back one sample per weight: memory stays flat,
 * and each sample is offered as tsl_speedscope_emit_sample() offers those
 * of a held profile (the same samples, labels and times). Only a profile
 * whose name, unit and start (and type, if any yet) come before its
 * samples streams
 * (tsl_speedscope_scan_head()); a temporary file that cannot be made or
 * written leaves the rest of the spool in memory, as a held profile was.
 */
#define G_LOG_DOMAIN "tsl-speedscope-reader"

#include <errno.h>
#include <unistd.h>
#include <string.h>
#include <glib/gstdio.h>

#include "tsl-speedscope-private.h"

#define SPOOL_MEMORY (4 * 1024 * 1024)

void
tsl_speedscope_sampled_clear (TslSpeedscope *self)
{
  g_clear_pointer (&self->spool, g_byte_array_unref);
  g_clear_pointer (&self->back, g_byte_array_unref);
  g_clear_pointer (&self->spool_file, fclose);
  self->back_at = 0;
  self->file_bytes = 0;
  self->file_read = 0;
  self->spooling = FALSE;
  self->reading_back = FALSE;
  self->n_pending = 0;
  self->n_samples = 0;
  self->sampled_t = 0;
  self->sampled_start_ns = 0;
}

void
tsl_speedscope_begin_sampled (TslSpeedscope *self,
                              Header        *h)
{
  Current *c = &self->cur;

  tsl_speedscope_sampled_clear (self);
  tsl_speedscope_begin_current (self, h);
  /* Weighted samples of whole stacks, not spans: per-range figures count them. */
  tsl_trace_track_set_sampled (self->trace, c->track, TRUE);
  /* As a held profile's: its start, or 0. */
  self->sampled_start_ns = tsl_speedscope_end_ns_of (h->start, NAN, c->factor);
  self->spool = g_byte_array_new ();
  self->spooling = TRUE;
}

/* The records in memory go to the end of the temporary file (made the
 * first time). FALSE, and they stay in memory from then on, when it cannot
 * be made or written. */
static gboolean
spill (TslSpeedscope *self)
{
  if (self->spool_file == NULL)
    {
      g_autofree char *path = NULL;
      int fd = g_file_open_tmp ("timeslice-samples-XXXXXX", &path, NULL);

      if (fd < 0)
        return FALSE;
      /* Nothing left behind, even by a crash. */
      g_unlink (path);
      self->spool_file = fdopen (fd, "w+b");
      if (self->spool_file == NULL)
        {
          close (fd);
          return FALSE;
        }
      /* Blocks are large: a write that fails says so at once, not at a flush. */
      setvbuf (self->spool_file, NULL, _IONBF, 0);
      g_debug ("spooling the samples of profile \"%s\" to a temporary file", self->cur.name);
    }
  if (fwrite (self->spool->data, 1, self->spool->len, self->spool_file) != self->spool->len)
    {
      /* A full disk: the whole blocks before are read back from the file
       * (not this one's part that went in), then the rest from memory. */
      g_debug ("cannot write the samples' temporary file: %s", g_strerror (errno));
      return FALSE;
    }
  self->file_bytes += self->spool->len;
  g_byte_array_set_size (self->spool, 0);
  return TRUE;
}

void
tsl_speedscope_push_sample (TslSpeedscope      *self,
                            const TslJsonValue *sample)
{
  guint32 len = (guint32) MIN (sample->len, G_MAXUINT32);

  self->n_pending++;
  self->n_samples++;
  self->n_events++;
  g_byte_array_append (self->spool, (const guint8 *) &len, sizeof len);
  g_byte_array_append (self->spool, (const guint8 *) sample->p, len);
  if (self->spooling && self->spool->len >= SPOOL_MEMORY && !spill (self))
    self->spooling = FALSE;
}

/* At least `need` unread bytes of the file in `back`; FALSE at its end. */
static gboolean
fill_back (TslSpeedscope *self,
           gsize          need)
{
  while (self->back->len - self->back_at < need)
    {
      gsize kept = self->back->len - self->back_at, got;

      if (kept > 0 && self->back_at > 0)
        memmove (self->back->data, self->back->data + self->back_at, kept);
      self->back_at = 0;
      gsize want = (gsize) MIN ((guint64) MAX (need, SPOOL_MEMORY), self->file_bytes - self->file_read);

      g_byte_array_set_size (self->back, kept + want);
      got = want > 0 ? fread (self->back->data + kept, 1, want, self->spool_file) : 0;
      g_byte_array_set_size (self->back, kept + got);
      self->file_read += got;
      if (got == 0)
        return FALSE;
    }
  return TRUE;
}

/* The next spooled sample: its text and length; FALSE when none is left. */
static gboolean
read_back (TslSpeedscope  *self,
           const char    **text,
           guint32        *len)
{
  if (self->n_pending == 0)
    return FALSE;
  if (!self->reading_back)
    {
      self->reading_back = TRUE;
      self->back = g_byte_array_new ();
      self->back_at = 0;
      if (self->spool_file != NULL && fseek (self->spool_file, 0, SEEK_SET) != 0)
        g_clear_pointer (&self->spool_file, fclose);
    }
  self->n_pending--;
  if (self->spool_file != NULL)
    {
      if (fill_back (self, sizeof *len))
        {
          memcpy (len, self->back->data + self->back_at, sizeof *len);
          if (fill_back (self, sizeof *len + *len))
            {
              *text = (const char *) self->back->data + self->back_at + sizeof *len;
              self->back_at += sizeof *len + *len;
              return TRUE;
            }
        }
      /* The file's end: the rest is in memory. */
      g_clear_pointer (&self->spool_file, fclose);
      g_clear_pointer (&self->back, g_byte_array_unref);
      self->back_at = 0;
    }
  if (self->back_at + sizeof *len > self->spool->len)
    {
      self->n_pending = 0;
      return FALSE;
    }
  memcpy (len, self->spool->data + self->back_at, sizeof *len);
  *text = (const char *) self->spool->data + self->back_at + sizeof *len;
  self->back_at += sizeof *len + *len;
  return TRUE;
}

/* The next sample waiting for its weight, offered with it. */
static gboolean
emit_next (TslSpeedscope *self,
           double         w)
{
  Current *c = &self->cur;
  TslJsonValue sample = { 0 };
  const char *text;
  guint32 len;

  if (!read_back (self, &text, &len))
    return FALSE;
  /* One whole value when spooled: only a stack (an array) is looked into. */
  sample.p = text;
  sample.len = len;
  sample.type = len > 0 && text[0] == '[' ? TSL_JSON_ARRAY : TSL_JSON_NULL;
  tsl_speedscope_emit_sample (self, c->track, &sample, w, c->factor, self->sampled_start_ns, &self->sampled_t);
  return TRUE;
}

void
tsl_speedscope_push_weight (TslSpeedscope      *self,
                            const TslJsonValue *weight)
{
  double w = 1;

  /* Weights past the last sample weigh nothing, as in a held profile. */
  tsl_json_value_get_double (weight, &w);
  emit_next (self, w);
}

void
tsl_speedscope_end_sampled_stream (TslSpeedscope *self)
{
  Current *c = &self->cur;

  if (self->spool == NULL)
    return;
  while (emit_next (self, 1))
    ;
  tsl_speedscope_end_sampled (self, self->n_samples, self->sampled_t, c->factor, self->sampled_start_ns);
  tsl_speedscope_sampled_clear (self);
  tsl_speedscope_flush_events (self);
}
