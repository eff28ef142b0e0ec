/* tsl-trace-strings.c: a trace's interned strings (names, categories, units, labels' parts)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every name is repaired once, here: bytes that are not UTF-8 become
 * U+FFFD, a NUL too, and overlong parts are cut; an id stands for the
 * repaired text from then on.
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"

/* Longer parts of a name or of a stack label (between ';') keep this many
 * bytes and "…": one 50 MB event name was copied into every stack label
 * holding it and laid out glyph by glyph (27× its size in an SVG export).
 * Real names, C++ templates included, stay far below. */
#define NAME_MAX_BYTES 16384

/* `str` with every ';'-separated part longer than NAME_MAX_BYTES cut at a
 * character boundary, with a warning; NULL when none is that long. */
char *
_tsl_trace_cut_long_parts (TslTrace   *self,
                           const char *str,
                           gsize       len)
{
  const char *p = str;
  const char *end = str + len;
  GString *out = NULL;

  if (G_LIKELY (len <= NAME_MAX_BYTES))
    return NULL;

  while (p < end)
    {
      const char *semi = memchr (p, ';', end - p);
      const char *part_end = semi ? semi : end;

      if ((gsize) (part_end - p) > NAME_MAX_BYTES)
        {
          /* With the "…", the part is NAME_MAX_BYTES long: cut once. */
          const char *cut = p + NAME_MAX_BYTES - strlen ("…");

          /* Not inside a UTF-8 sequence. */
          while (cut > p && ((guchar) *cut & 0xC0) == 0x80)
            cut--;
          if (out == NULL)
            out = g_string_new_len (str, p - str);
          g_string_append_len (out, p, cut - p);
          g_string_append (out, "…");
        }
      else if (out != NULL)
        g_string_append_len (out, p, part_end - p);
      if (semi != NULL && out != NULL)
        g_string_append_c (out, ';');
      p = semi ? semi + 1 : end;
    }
  if (out == NULL)
    return NULL;
  tsl_trace_add_warning_once (self, _("names longer than %u bytes were cut to their first %u bytes and “…”"),
                         NAME_MAX_BYTES, NAME_MAX_BYTES - (guint) strlen ("…"));
  return g_string_free (out, FALSE);
}

guint32
tsl_trace_intern (TslTrace   *self,
                  const char *str)
{
  g_autofree char *cut = NULL;
  gpointer id;
  const char *copy;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  if (str == NULL)
    return 0;

  if (g_hash_table_lookup_extended (self->string_ids, str, NULL, &id))
    return GPOINTER_TO_UINT (id);

  if ((cut = _tsl_trace_cut_long_parts (self, str, strlen (str))) != NULL)
    return tsl_trace_intern (self, cut);

  /* Every string leaves as UTF-8 (painter, JSON, CSV): damaged text from a
   * trace is repaired once here, with U+FFFD for the bad bytes. */
  if (!g_utf8_validate (str, -1, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (str, -1);

      tsl_trace_add_warning_once (self, _("names that are not valid UTF-8 were read; "
                             "their bad bytes are shown as U+FFFD"));
      return tsl_trace_intern (self, valid);
    }

  copy = g_string_chunk_insert (self->chunk, str);
  g_ptr_array_add (self->strings, (gpointer) copy);
  /* A name with a ';' reads differently in a stack label (tsl_trace_set_label_names()). */
  g_byte_array_append (self->semicolons, (const guint8 *) (strchr (str, ';') != NULL ? "\1" : ""), 1);
  g_hash_table_insert (self->string_ids, (gpointer) copy,
                       GUINT_TO_POINTER (self->strings->len - 1));
  return self->strings->len - 1;
}

/* A copy of `str` with each NUL byte as U+FFFD, or NULL if it has none:
 * names are C strings from here on, and a NUL would cut one short
 * while its length and hash still counted what came after. */
char *
_tsl_trace_replace_nuls (TslTrace   *self,
                         const char *str,
                         gsize       len)
{
  GString *out;
  const char *p = str, *end = str + len, *nul;

  if (G_LIKELY (memchr (str, '\0', len) == NULL))
    return NULL;
  out = g_string_sized_new (len + 16);
  while ((nul = memchr (p, '\0', end - p)) != NULL)
    {
      g_string_append_len (out, p, nul - p);
      g_string_append (out, "\xef\xbf\xbd");
      p = nul + 1;
    }
  g_string_append_len (out, p, end - p);
  tsl_trace_add_warning_once (self, _("names holding NUL bytes were read; each NUL is shown as U+FFFD"));
  return g_string_free (out, FALSE);
}

/* `len` < 0 means NUL-terminated; otherwise `str` need not be. */
guint32
tsl_trace_intern_len (TslTrace   *self,
                      const char *str,
                      gssize      len)
{
  char stack[256];
  g_autofree char *heap = NULL;
  g_autofree char *no_nuls = NULL;
  char *buf;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  if (str == NULL)
    return 0;
  if (len < 0)
    return tsl_trace_intern (self, str);
  if (G_UNLIKELY ((no_nuls = _tsl_trace_replace_nuls (self, str, len)) != NULL))
    {
      str = no_nuls;
      len = strlen (no_nuls);
    }
  /* Cut before the copy: a 200 MB name is not copied whole. */
  if (G_UNLIKELY ((gsize) len > NAME_MAX_BYTES))
    {
      g_autofree char *cut = _tsl_trace_cut_long_parts (self, str, len);

      if (cut != NULL)
        return tsl_trace_intern (self, cut);
    }

  /* Readers intern slices of their input buffer; copy only to NUL-terminate. */
  buf = (gsize) len < sizeof stack ? stack : (heap = g_malloc (len + 1));
  memcpy (buf, str, len);
  buf[len] = '\0';
  return tsl_trace_intern (self, buf);
}

/* Stack labels built one frame at a time (the Perfetto reader's paths):
 * two repaired strings joined by ';' need no repair (no part grows, the
 * bytes stay UTF-8 without NULs), so only the lookup and the copy remain. */
guint32
tsl_trace_intern_joined (TslTrace *self,
                         guint32   head,
                         guint32   tail,
                         gsize     max_len)
{
  char stack[1024];
  g_autofree char *heap = NULL;
  const char *h, *t, *copy;
  gsize h_len, t_len, len;
  gpointer id;
  char *buf;

  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  if (head == 0 || tail == 0 || (head | tail) & TSL_LABEL_TAG ||
      head >= self->strings->len || tail >= self->strings->len)
    return 0;
  h = g_ptr_array_index (self->strings, head);
  t = g_ptr_array_index (self->strings, tail);
  h_len = strlen (h);
  t_len = strlen (t);
  len = h_len + 1 + t_len;
  if (len > max_len)
    return 0;
  buf = len < sizeof stack ? stack : (heap = g_malloc (len + 1));
  memcpy (buf, h, h_len);
  buf[h_len] = ';';
  memcpy (buf + h_len + 1, t, t_len);
  buf[len] = '\0';
  if (g_hash_table_lookup_extended (self->string_ids, buf, NULL, &id))
    return GPOINTER_TO_UINT (id);
  copy = g_string_chunk_insert_len (self->chunk, buf, len);
  g_ptr_array_add (self->strings, (gpointer) copy);
  g_byte_array_append (self->semicolons, (const guint8 *) "\1", 1);
  g_hash_table_insert (self->string_ids, (gpointer) copy,
                       GUINT_TO_POINTER (self->strings->len - 1));
  return self->strings->len - 1;
}

/* The length of an interned string or of a join's text. */
static gboolean
label_len (TslTrace *self,
           guint32   id,
           gsize    *len)
{
  if (id & TSL_JOIN_TAG)
    {
      guint index = id & ~TSL_JOIN_TAG;

      if (id & TSL_LABEL_TAG || index >= self->n_joins)
        return FALSE;
      *len = self->joins[index].len;
      return TRUE;
    }
  if (id == 0 || id & TSL_LABEL_TAG || id >= self->strings->len)
    return FALSE;
  *len = strlen (g_ptr_array_index (self->strings, id));
  return TRUE;
}

/* A path's text is made only if a sample holding it is read out: most
 * paths label samples the samplers drop. Only the lengths are added now,
 * to keep max_len's bound. */
guint32
tsl_trace_join_later (TslTrace *self,
                      guint32   head,
                      guint32   tail,
                      gsize     max_len)
{
  gsize h_len, t_len;

  /* Per new path: no type check. */
  if (!label_len (self, head, &h_len) || tail & TSL_JOIN_TAG || !label_len (self, tail, &t_len) ||
      h_len + 1 + t_len > max_len || self->n_joins >= TSL_JOIN_TAG - 1)
    return 0;
  if (G_UNLIKELY (self->n_joins == self->n_joins_alloc))
    {
      self->n_joins_alloc = MAX (1024, self->n_joins_alloc * 2);
      self->joins = g_renew (TslTraceJoin, self->joins, self->n_joins_alloc);
    }
  self->joins[self->n_joins] = (TslTraceJoin) { head, tail, h_len + 1 + t_len, NULL };
  return self->n_joins++ | TSL_JOIN_TAG;
}

/* The text of join `index`, made now if it was not yet (join_mutex held). */
static const char *
join_text (TslTrace *self,
           guint     index)
{
  TslTraceJoin *join = &self->joins[index];
  const char *head, *tail;
  gsize h_len;
  GString *text;

  if (join->text != NULL)
    return join->text;
  /* Heads first: as deep as the path, which max_len bounds. */
  head = join->head & TSL_JOIN_TAG ? join_text (self, join->head & ~TSL_JOIN_TAG)
                                   : g_ptr_array_index (self->strings, join->head);
  join = &self->joins[index];
  tail = g_ptr_array_index (self->strings, join->tail);
  h_len = strlen (head);
  text = g_string_sized_new (join->len);
  g_string_append_len (text, head, h_len);
  g_string_append_c (text, ';');
  g_string_append_len (text, tail, join->len - h_len - 1);
  join->text = g_string_chunk_insert_len (self->join_chunk, text->str, text->len);
  g_string_free (text, TRUE);
  return join->text;
}

/**
 * tsl_trace_lookup:
 *
 * Returns: (transfer none) (nullable): the string, NULL for id 0 or unknown ids.
 */
const char *
tsl_trace_lookup (TslTrace *self,
                  guint32   id)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), NULL);

  if (id & TSL_LABEL_TAG)
    return tsl_label_store_lookup (self->labels, id);
  if (G_UNLIKELY (id & TSL_JOIN_TAG))
    {
      const char *text;

      if ((id & ~TSL_JOIN_TAG) >= self->n_joins)
        return NULL;
      g_mutex_lock (&self->join_mutex);
      text = join_text (self, id & ~TSL_JOIN_TAG);
      g_mutex_unlock (&self->join_mutex);
      return text;
    }

  if (id >= self->strings->len)
    return NULL;

  return g_ptr_array_index (self->strings, id);
}

/* The id of `str` if it was interned, without interning it. */
gboolean
_tsl_trace_lookup_string (TslTrace   *self,
                          const char *str,
                          guint32    *id)
{
  gpointer found;

  if (!g_hash_table_lookup_extended (self->string_ids, str, NULL, &found))
    return FALSE;
  *id = GPOINTER_TO_UINT (found);
  return TRUE;
}
