/* tsl-range.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-range"

#include <math.h>
#include <string.h>

#include "tsl-range.h"

static const struct {
  const char *suffix;
  double      ns;
} units[] = {
  /* Longest suffixes first so "ms" is not read as "m" + "s". */
  { "min", 60e9 },
  { "ns",  1.0 },
  { "us",  1e3 },
  { "µs",  1e3 },
  { "ms",  1e6 },
  { "s",   1e9 },
  { "h",   3600e9 },
};

gboolean
tsl_duration_parse (const char  *text,
                    double      *ns,
                    GError     **error)
{
  g_autofree char *copy = NULL;
  const char *unit;
  char *end = NULL;
  double value;

  g_return_val_if_fail (text != NULL, FALSE);

  copy = g_strstrip (g_strdup (text));
  value = g_ascii_strtod (copy, &end);
  if (end == copy || !isfinite (value) || value < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "“%s” is not a time (expected a number like 1.5, 250ms or 2min)", text);
      return FALSE;
    }

  unit = end;
  while (*unit == ' ')
    unit++;

  if (*unit == '\0')
    {
      *ns = value * 1e9;
      return TRUE;
    }

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (strcmp (unit, units[i].suffix) == 0)
        {
          *ns = value * units[i].ns;
          return TRUE;
        }
    }

  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "“%s” has an unknown unit (expected ns, us, ms, s, min or h)", text);
  return FALSE;
}

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
                   "“%s” is not a range (expected START..END, e.g. 1s..2s or 25%%..50%%)", text);
      return FALSE;
    }

  if (!parse_percent (parts[0], &start, &start_pct) ||
      !parse_percent (parts[1], &end, &end_pct))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "“%s” has a bad percentage (expected 0%% to 100%%)", text);
      return FALSE;
    }

  if (start_pct != end_pct)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "“%s” mixes a percentage and a time; use one kind for both ends", text);
      return FALSE;
    }

  if (!start_pct &&
      (!tsl_duration_parse (parts[0], &start, error) ||
       !tsl_duration_parse (parts[1], &end, error)))
    {
      g_prefix_error (error, "in the range “%s”: ", text);
      return FALSE;
    }

  if (!(end > start))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "“%s” is empty: its end must be after its start", text);
      return FALSE;
    }

  out->start = start;
  out->end = end;
  out->is_fraction = start_pct;
  return TRUE;
}

void
tsl_range_spec_resolve (const TslRangeSpec *spec,
                        gint64              span_ns,
                        gint64             *start_ns,
                        gint64             *end_ns)
{
  g_return_if_fail (spec != NULL);

  if (spec->is_fraction)
    {
      *start_ns = (gint64) llround (spec->start * (double) span_ns);
      *end_ns = (gint64) llround (spec->end * (double) span_ns);
    }
  else
    {
      *start_ns = (gint64) llround (spec->start);
      *end_ns = (gint64) llround (spec->end);
    }
}

char *
tsl_duration_format (double ns)
{
  double a = fabs (ns);

  if (a < 1e3)
    return g_strdup_printf ("%.0f ns", ns);
  if (a < 1e6)
    return g_strdup_printf ("%.4g µs", ns / 1e3);
  if (a < 1e9)
    return g_strdup_printf ("%.4g ms", ns / 1e6);
  if (a < 60e9)
    return g_strdup_printf ("%.4g s", ns / 1e9);
  if (a < 3600e9)
    {
      double minutes = floor (a / 60e9);
      return g_strdup_printf ("%s%.0f min %.0f s", ns < 0 ? "-" : "",
                              minutes, (a - minutes * 60e9) / 1e9);
    }
  if (a < 2 * 86400e9)
    return g_strdup_printf ("%.4g h", ns / 3600e9);
  return g_strdup_printf ("%.4g d", ns / 86400e9);
}
