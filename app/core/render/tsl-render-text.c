/* tsl-render-text.c: text that cairo accepts whatever the bytes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-render"

#include "config.h"

#include <string.h>

#include "tsl-render-private.h"

/* cairo puts the whole context in an error state for text that is not UTF-8
 * or holds a noncharacter (U+FFFE, U+FDD0..., which GLib accepts): such text
 * is drawn with U+FFFD instead. Returns NULL when `text` is fine as it is. */
static gboolean
is_noncharacter (gunichar c)
{
  return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

static char *
make_cairo_safe (const char *text)
{
  g_autofree char *valid = NULL;
  const char *p;
  GString *out;

  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);

  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (is_noncharacter (g_utf8_get_char (p)))
      break;
  if (*p == '\0')
    return g_steal_pointer (&valid);

  out = g_string_new (NULL);
  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (out, is_noncharacter (c) ? 0xFFFD : c);
    }
  return g_string_free (out, FALSE);
}

void
_tsl_render_show_text (cairo_t    *cr,
                       double      x,
                       double      y,
                       double      max_width,
                       const char *text)
{
  cairo_text_extents_t ext;
  g_autofree char *copy = NULL;
  g_autofree char *bounded = NULL;
  g_autofree char *safe = NULL;
  gsize fits, too_long, len;
  /* No glyph is narrower than a unit at a legible size, so no more
   * characters than units of width can show: cairo lays text out glyph by
   * glyph (tens of bytes each), and a label may be kilobytes long. */
  gsize max_chars = (gsize) CLAMP (max_width, 0, 65536) + 2;
  const char *past = text;
  gsize chars = 0;

  /* Bytewise, as the text may not be valid UTF-8 yet: a character starts
   * at each byte that is not a continuation byte. */
  for (; *past != '\0'; past++)
    if (((guchar) *past & 0xC0) != 0x80 && ++chars > max_chars)
      break;
  if (*past != '\0')
    text = bounded = g_strndup (text, past - text);
  safe = make_cairo_safe (text);
  if (safe != NULL)
    text = safe;
  cairo_text_extents (cr, text, &ext);
  if (ext.x_advance <= max_width)
    {
      cairo_move_to (cr, x, y);
      cairo_show_text (cr, text);
      return;
    }

  /* Ellipsize: the longest prefix that fits with "…", found by bisection,
   * since a label from a damaged file can be megabytes long (one character
   * at a time took half a minute for a 20 KB name). */
  copy = g_malloc (strlen (text) + sizeof "…");
  fits = 0;
  too_long = g_utf8_strlen (text, -1);
  while (too_long - fits > 1)
    {
      gsize mid = fits + (too_long - fits) / 2;
      gsize bytes = g_utf8_offset_to_pointer (text, mid) - text;

      memcpy (copy, text, bytes);
      strcpy (copy + bytes, "…");
      cairo_text_extents (cr, copy, &ext);
      if (ext.x_advance <= max_width)
        fits = mid;
      else
        too_long = mid;
    }
  if (fits == 0)
    return;

  len = g_utf8_offset_to_pointer (text, fits) - text;
  memcpy (copy, text, len);
  strcpy (copy + len, "…");
  cairo_move_to (cr, x, y);
  cairo_show_text (cr, copy);
}
