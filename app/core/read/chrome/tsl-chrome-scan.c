/* tsl-chrome-scan.c: one Chrome event's members, without a DOM
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's hot loop: each event object is scanned once for the members
 * that route it, everything else is skipped unparsed (tsl-json-scan.h).
 * Also the two-thread reader's pieces that only look at bytes: a run of
 * events for the worker, and a guess at where an event starts.
 */
#define G_LOG_DOMAIN "tsl-chrome"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-chrome-private.h"

/* How far from where a split is aimed an event start is looked for. */
#define SPLIT_SEARCH_BYTES (64 * 1024)

/* A key of up to seven bytes, read as one little-endian word. */
#define KEY2(a, b)          ((guint64) (a) | (guint64) (b) << 8)
#define KEY3(a, b, c)       (KEY2 (a, b) | (guint64) (c) << 16)
#define KEY4(a, b, c, d)    (KEY3 (a, b, c) | (guint64) (d) << 24)
#define KEY5(a, b, c, d, e) (KEY4 (a, b, c, d) | (guint64) (e) << 32)
#define KEY7(a, b, c, d, e, f, g) \
  (KEY5 (a, b, c, d, e) | (guint64) (f) << 40 | (guint64) (g) << 48)
#define ONES                G_GUINT64_CONSTANT (0x0101010101010101)
#define KEY_WORD_MAX        7

/* The slot of the member whose name is the `len` bytes of the word w (the
 * bytes above them zero). The one table of the names we route on; a name
 * ending in a NUL byte is none of them. */
static inline TslJsonValue *
slot_for_word (TslChromeEvent *ev,
               guint64         w,
               guint           len)
{
  if (len == 0 || (w >> (8 * (len - 1))) == 0)
    return NULL;
  switch (w)
    {
    case 's': return &ev->scope;
    case KEY2 ('p', 'h'): return &ev->ph;
    case KEY2 ('t', 's'): return &ev->ts;
    case KEY2 ('i', 'd'): return &ev->id;
    case KEY2 ('s', 'f'): return &ev->sf;
    case KEY3 ('p', 'i', 'd'): return &ev->pid;
    case KEY3 ('t', 'i', 'd'): return &ev->tid;
    case KEY3 ('d', 'u', 'r'): return &ev->dur;
    case KEY3 ('c', 'a', 't'): return &ev->cat;
    case KEY3 ('i', 'd', '2'): return &ev->id2;
    case KEY3 ('t', 't', 's'): return &ev->tts;
    case KEY4 ('n', 'a', 'm', 'e'): return &ev->name;
    case KEY4 ('a', 'r', 'g', 's'): return &ev->args;
    case KEY4 ('t', 'd', 'u', 'r'): return &ev->tdur;
    case KEY5 ('s', 't', 'a', 'c', 'k'): return &ev->stack;
    case KEY7 ('b', 'i', 'n', 'd', '_', 'i', 'd'): return &ev->bind_id;
    default: return NULL;
    }
}

/* The slot of a member name scanned as a string: the general path. */
static TslJsonValue *
event_slot (TslChromeEvent     *ev,
            const TslJsonValue *key)
{
  guint64 w = 0;

  if (key->escaped || key->len == 0 || key->len > KEY_WORD_MAX)
    return NULL;
  for (guint i = 0; i < key->len; i++)
    w |= (guint64) (guchar) key->p[i] << (8 * i);
  return slot_for_word (ev, w, key->len);
}
#define HIGHS               G_GUINT64_CONSTANT (0x8080808080808080)

/* The lowest byte of w equal to c, as its high bit (higher bits may be
 * wrong: only the lowest is used). */
static inline guint64
word_find (guint64 w,
           guchar  c)
{
  guint64 x = w ^ (ONES * c);

  return (x - ONES) & ~x & HIGHS;
}

typedef enum {
  KEY_NONE,         /* the general path must take it */
  KEY_ROUTED,       /* *after at the byte after the closing quote */
  KEY_AND_COLON,    /* ... and `": ` too: *after at the value */
} KeyScan;

/* The hot case of a member name: p at its opening quote, the name shorter
 * than eight bytes and without a backslash. Nearly every key of an event is
 * one of these, and a word compare routes it without scanning it as a
 * string; the `: ` that follows a key of up to five bytes is in the same
 * word. */
static inline KeyScan
scan_short_key (const char      *p,
                const char      *end,
                TslChromeEvent  *ev,
                TslJsonValue   **slot,
                const char     **after)
{
  guint64 word, w, quote, backslash;
  guint n;

#if G_BYTE_ORDER == G_LITTLE_ENDIAN && defined (__GNUC__)
  if (G_UNLIKELY (end - p < 9))
    return KEY_NONE;
  memcpy (&word, p + 1, 8);
  quote = word_find (word, '"');
  backslash = word_find (word, '\\');
  if (quote == 0 || (backslash & ((quote & -quote) - 1)) != 0)
    return KEY_NONE;
  n = __builtin_ctzll (quote) / 8;
  w = word & ((G_GUINT64_CONSTANT (1) << (8 * n)) - 1);

  *slot = slot_for_word (ev, w, n);
  if (n <= 5 && ((word >> (8 * (n + 1))) & 0xffff) == KEY2 (':', ' '))
    {
      *after = p + n + 4;
      return KEY_AND_COLON;
    }
  *after = p + n + 2;
  return KEY_ROUTED;
#else
  return KEY_NONE;
#endif
}

/* Every member absent. GCC turns a memset() of this size, and a loop of
 * zero stores, into `rep stos`, whose start-up cost was a tenth of the
 * scan; a zero it cannot see through keeps the fourteen stores. */
static inline void
clear_event (TslChromeEvent *ev)
{
#if defined (__SSE2__) && defined (__GNUC__)
  __m128i zero = _mm_setzero_si128 ();

  G_STATIC_ASSERT (sizeof (TslChromeEvent) % sizeof (__m128i) == 0);
  __asm__ ("" : "+x" (zero));
  for (gsize i = 0; i < sizeof (TslChromeEvent) / sizeof (__m128i); i++)
    _mm_storeu_si128 ((__m128i *) ev + i, zero);
#else
  memset (ev, 0, sizeof *ev);
#endif
}

/* The shape cache. Writers put an event's members in the same order with
 * the same spacing, event after event, so the bytes between one value and
 * the next (`, "name": `) repeat at each member position. Each position
 * keeps the last two such leads it saw, with the slot they lead to: one
 * 16-byte compare then stands for the separator, the key and the colon. */
#define NO_SLOT G_MAXUINT8

G_STATIC_ASSERT (G_STRUCT_OFFSET (TslChromeEvent, start) == 16 * sizeof (TslJsonValue));
G_STATIC_ASSERT (sizeof (TslChromeEvent) / sizeof (TslJsonValue) < NO_SLOT);

static inline TslJsonValue *
slot_at (TslChromeEvent *ev,
         guint           index)
{
  return index == NO_SLOT ? NULL : (TslJsonValue *) ev + index;
}

/* The member at position i, when its lead is one seen before: its slot in
 * *slot and its value's first byte in *value. */
static inline gboolean
predict_member (TslChromeShape  *shape,
                guint            i,
                const char      *lead,
                const char      *end,
                TslChromeEvent  *ev,
                TslJsonValue   **slot,
                const char     **value)
{
#ifdef __SSE2__
  __m128i v;

  if (G_UNLIKELY (i >= TSL_CHROME_SHAPE_MEMBERS || end - lead <= 16))
    return FALSE;
  v = _mm_loadu_si128 ((const __m128i *) lead);
  for (guint way = 0; way < TSL_CHROME_SHAPE_WAYS; way++)
    {
      const TslChromeLead *l = &shape->leads[i][way];
      guint same = _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, _mm_loadu_si128 ((const __m128i *) l->bytes)));

      /* The byte after the lead must not be whitespace: the lead ended
       * where its value began. */
      if (l->mask != 0 && (same & l->mask) == l->mask && (guchar) lead[l->len] > ' ')
        {
          *slot = slot_at (ev, l->slot);
          *value = lead + l->len;
          return TRUE;
        }
    }
#endif
  return FALSE;
}

/* Remembers the lead [lead, value) of the member at position i. */
static inline void
learn_member (TslChromeShape     *shape,
              guint               i,
              const char         *lead,
              const char         *value,
              const TslChromeEvent *ev,
              const TslJsonValue *slot)
{
  gsize len = value - lead;
  TslChromeLead *l;

  if (i >= TSL_CHROME_SHAPE_MEMBERS || len == 0 || len > sizeof l->bytes)
    return;
  l = shape->leads[i];
  l[1] = l[0];
  memcpy (l[0].bytes, lead, len);
  l[0].mask = (1u << len) - 1;
  l[0].len = len;
  l[0].slot = slot != NULL ? (guint8) (slot - (const TslJsonValue *) ev) : NO_SLOT;
}

/* Scans one event object (p at its '{'); on OK every member we route on is
 * in *ev. The hot loop of the reader, so members are predicted from the
 * shape of the events before (see predict_member()), strings and scalars
 * are scanned inline and only containers go through the generic skipper. */
TslJsonStatus
tsl_chrome_scan_event (const char     *p,
                       const char     *end,
                       TslChromeEvent *ev,
                       TslChromeShape *shape,
                       const char    **after,
                       TslJsonError   *error)
{
  const char *lead = p + 1;   /* after the '{' or the last value */

  clear_event (ev);
  ev->start = p;
  for (guint i = 0;; i++)
    {
      TslJsonValue key, skipped;
      TslJsonValue *slot;
      TslJsonStatus status;
      KeyScan keyed;

      if (predict_member (shape, i, lead, end, ev, &slot, &p))
        goto value;

      /* The separator: none before the first member. */
      p = lead;
      if (i > 0 && G_LIKELY (end - p >= 3 && p[0] == ',' && p[1] == ' ' && p[2] == '"'))
        p += 2;
      else
        {
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            return TSL_JSON_INCOMPLETE;
          if (*p == '}')
            {
              *after = ev->stop = p + 1;
              return TSL_JSON_OK;
            }
          if (i > 0)
            {
              if (*p != ',')
                {
                  error->pos = p;
                  error->message = N_("expected ',' or '}'");
                  return TSL_JSON_ERROR;
                }
              p = tsl_json_skip_ws (p + 1, end);
              if (p >= end)
                return TSL_JSON_INCOMPLETE;
            }
        }

      if (*p != '"')
        {
          error->pos = p;
          error->message = N_("expected a member name in double quotes");
          return TSL_JSON_ERROR;
        }
      keyed = scan_short_key (p, end, ev, &slot, &p);
      if (keyed == KEY_NONE)
        {
          if (tsl_json_scan_string (p, end, &key, &p) != TSL_JSON_OK)
            return TSL_JSON_INCOMPLETE;
          slot = event_slot (ev, &key);
        }
      if (keyed == KEY_AND_COLON)
        {
          if (G_UNLIKELY (p >= end || (guchar) *p <= ' '))
            {
              p = tsl_json_skip_ws (p, end);
              if (p >= end)
                return TSL_JSON_INCOMPLETE;
            }
        }
      /* `": "` then the value: the way nearly every writer spaces it. */
      else if (G_LIKELY (end - p >= 3 && p[0] == ':' && p[1] == ' ' && (guchar) p[2] > ' '))
        p += 2;
      else
        {
          p = tsl_json_skip_ws (p, end);
          if (p >= end)
            return TSL_JSON_INCOMPLETE;
          if (*p != ':')
            {
              error->pos = p;
              error->message = N_("expected ':' after a member name");
              return TSL_JSON_ERROR;
            }
          p = tsl_json_skip_ws (p + 1, end);
          if (p >= end)
            return TSL_JSON_INCOMPLETE;
        }
      learn_member (shape, i, lead, p, ev, slot);

    value:
      /* The value is scanned straight into its slot: copying a
       * TslJsonValue just written field by field would make the CPU
       * wait for those stores (a 16-byte load cannot be forwarded from
       * narrower stores), which once cost a third of this loop. */
      if (slot == NULL)
        slot = &skipped;
      if (*p == '"')
        status = tsl_json_scan_string (p, end, slot, &p);
      else if ((guchar) (*p - '0') < 10 && tsl_json_scan_number (p, end, slot, &p))
        status = TSL_JSON_OK;
      else if (*p == '{' && end - p >= 2 && p[1] == '}')
        {
          /* "args": {}, a third of the events of some traces */
          slot->type = TSL_JSON_OBJECT;
          slot->p = p;
          slot->len = 2;
          slot->escaped = 0;
          p += 2;
          status = TSL_JSON_OK;
        }
      else
        status = tsl_json_scan_value (p, end, slot, &p, error);
      if (status != TSL_JSON_OK)
        return status;
      lead = p;
    }
}

/* The worker's part of a split scan: see TslChromeRunFunc. */
const char *
tsl_chrome_run_events (const char     *p,
                       const char     *end,
                       GArray         *events,
                       TslChromeShape *shape,
                       gboolean       *need_separator)
{
  gboolean need = *need_separator;

  for (;;)
    {
      TslJsonError jerr = { NULL, NULL };
      const char *after;

      p = tsl_json_skip_ws (p, end);
      if (p >= end)
        break;
      if (*p == ',' && need)
        {
          need = FALSE;
          p++;
          continue;
        }
      if (*p != '{' || need)
        break;
      g_array_set_size (events, events->len + 1);
      if (tsl_chrome_scan_event (p, end, &g_array_index (events, TslChromeEvent, events->len - 1),
                                 shape, &after, &jerr) != TSL_JSON_OK)
        {
          g_array_set_size (events, events->len - 1);
          break;
        }
      need = TRUE;
      p = after;
    }

  *need_separator = need;
  return p;
}

/* Whether c (a ',') sits between two events: a '}' before it and a '{'
 * after it, whitespace aside. Returns that '{' or NULL. */
static const char *
between_events (const char *from,
                const char *c,
                const char *end)
{
  const char *before = c;
  const char *after = tsl_json_skip_ws (c + 1, end);

  while (before > from && g_ascii_isspace (before[-1]))
    before--;
  return before > from && before[-1] == '}' && after < end && *after == '{' ? after : NULL;
}

/* A likely event start at or after `from`. Traces mostly put one event on a
 * line, and nested arrays of objects ("},{") inside args rarely span lines,
 * so "},\n{" is tried first, then any "},{". The guess may still be inside
 * a string or a nested array: then the worker's scan does not end there and
 * the split is undone. */
const char *
tsl_chrome_guess_event_start (const char *from,
                              const char *end)
{
  const char *limit = from + MIN ((gsize) (end - from), SPLIT_SEARCH_BYTES);
  const char *at;

  for (const char *c = from; (c = memchr (c, '\n', limit - c)) != NULL; c++)
    {
      const char *comma = c;

      while (comma > from && g_ascii_isspace (comma[-1]))
        comma--;
      if (comma > from && comma[-1] == ',' && (at = between_events (from, comma - 1, end)) != NULL)
        return at;
    }
  for (const char *c = from; (c = memchr (c, ',', limit - c)) != NULL; c++)
    if ((at = between_events (from, c, end)) != NULL)
      return at;
  return NULL;
}
