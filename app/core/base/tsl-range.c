/* tsl-range.c: START..END ranges, absolute or in percent of the span
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-range"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-range.h"

static gboolean
parse_percent (const char *text,
               double     *fraction,
               gboolean   *is_percent)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  gsize len = strlen (copy);
  char *end = NULL;
  double value;

  *is_percent = len > 0 && copy[len - 1] == '%';
  if (!*is_percent)
    return TRUE;

  copy[len - 1] = '\0';
  value = g_ascii_strtod (copy, &end);
  if (end == copy || *end != '\0' || !isfinite (value) || value < 0 || value > 100)
    return FALSE;

  *fraction = value / 100.0;
  return TRUE;
}

gboolean
tsl_range_spec_parse (const char    *text,
                      TslRangeSpec  *out,
                      GError       **error)
{
  g_auto(GStrv) parts = NULL;
  gboolean start_pct, end_pct;
  double start = 0, end = 0;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  parts = g_strsplit (text, "..", 0);
  if (g_strv_length (parts) != 2)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("“%s” is not a range (expected START..END, e.g. 1s..2s or 25%%..50%%)"), text);
      return FALSE;
    }

  if (!parse_percent (parts[0], &start, &start_pct) ||
      !parse_percent (parts[1], &end, &end_pct))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("“%s” has a bad percentage (expected 0%% to 100%%)"), text);
      return FALSE;
    }

  if (start_pct != end_pct)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("“%s” mixes a percentage and a time; use one kind for both ends"), text);
      return FALSE;
    }

  if (!start_pct &&
      (!tsl_duration_parse (parts[0], &start, error) ||
       !tsl_duration_parse (parts[1], &end, error)))
    {
      g_prefix_error (error, _("in the range “%s”: "), text);
      return FALSE;
    }

  if (!(end > start))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("“%s” is empty: its end must be after its start"), text);
      return FALSE;
    }

  out->start = start;
  out->end = end;
  out->is_fraction = start_pct;
  return TRUE;
}

static gint64
saturate (double ns)
{
  /* (double) G_MAXINT64 is 2^63, one past it. */
  if (ns >= (double) G_MAXINT64)
    return G_MAXINT64;
  if (!(ns > (double) G_MININT64))
    return G_MININT64;
  return (gint64) llround (ns);
}

void
tsl_range_spec_resolve (const TslRangeSpec *spec,
                        gint64              span_ns,
                        gint64             *start_ns,
                        gint64             *end_ns)
{
  g_return_if_fail (spec != NULL);

  /* llround() of 1e19 is undefined in a gint64: "1e10..1e11" (seconds)
   * came back negative and passed for a range inside the trace. */
  *start_ns = saturate (spec->is_fraction ? spec->start * (double) span_ns : spec->start);
  *end_ns = saturate (spec->is_fraction ? spec->end * (double) span_ns : spec->end);
}

TslRangeFit
tsl_range_spec_fit (const TslRangeSpec *spec,
                    gint64              span_ns,
                    gint64             *start_ns,
                    gint64             *end_ns)
{
  /* One past the span: the last event sits at the span, ranges are half-open. */
  gint64 after = span_ns < G_MAXINT64 ? span_ns + 1 : G_MAXINT64;

  g_return_val_if_fail (spec != NULL, TSL_RANGE_OUTSIDE);

  tsl_range_spec_resolve (spec, span_ns, start_ns, end_ns);
  if (spec->is_fraction && spec->end >= 1)
    *end_ns = after;

  if (*start_ns > span_ns)
    return TSL_RANGE_OUTSIDE;

  /* In doubles: a saturated end minus a negative start would overflow. */
  if (*end_ns > after &&
      (double) *end_ns - (double) span_ns > 0.01 * ((double) *end_ns - (double) *start_ns))
    {
      *end_ns = after;
      return TSL_RANGE_CLIPPED;
    }

  return TSL_RANGE_INSIDE;
}

char *
tsl_range_spec_to_string (const TslRangeSpec *spec)
{
  g_autofree char *start = NULL;
  g_autofree char *end = NULL;

  g_return_val_if_fail (spec != NULL, NULL);

  if (spec->is_fraction)
    {
      char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (a, sizeof a, "%.6g", spec->start * 100);
      g_ascii_formatd (b, sizeof b, "%.6g", spec->end * 100);
      return g_strdup_printf ("%s%%..%s%%", a, b);
    }

  start = tsl_duration_format (spec->start);
  end = tsl_duration_format (spec->end);
  return g_strdup_printf ("%s..%s", start, end);
}
