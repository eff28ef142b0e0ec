/* tsl-duration.c: "12.5ms" in, "12.5 ms" out
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-duration"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-duration.h"

static const struct {
  const char *suffix;
  double      ns;
} units[] = {
  /* Longer suffixes first, so "ms" is not read as "m" + "s". */
  { "min", 60e9 },
  { "ns",  1.0 },
  { "us",  1e3 },
  { "µs",  1e3 },
  { "ms",  1e6 },
  { "s",   1e9 },
  { "h",   3600e9 },
  { "d",   86400e9 },
};

/* One "NUMBER [UNIT]" term at *p; a missing unit means seconds. */
static gboolean
parse_term (const char **p,
            double      *ns)
{
  char *end = NULL;
  double value = g_ascii_strtod (*p, &end);
  const char *unit;

  if (end == *p || !isfinite (value) || value < 0 || **p == '-' || **p == '+')
    return FALSE;

  unit = end;
  while (*unit == ' ')
    unit++;

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      gsize len = strlen (units[i].suffix);

      if (strncmp (unit, units[i].suffix, len) == 0 &&
          (unit[len] == '\0' || unit[len] == ' ' || g_ascii_isdigit (unit[len])))
        {
          *ns = value * units[i].ns;
          *p = unit + len;
          return TRUE;
        }
    }

  if (*unit != '\0')
    return FALSE;

  *ns = value * 1e9;
  *p = unit;
  return TRUE;
}

gboolean
tsl_duration_parse (const char  *text,
                    double      *ns,
                    GError     **error)
{
  g_autofree char *copy = NULL;
  const char *p;
  double total = 0;

  g_return_val_if_fail (text != NULL, FALSE);

  copy = g_strstrip (g_strdup (text));
  /* A decimal comma, as French and German write it, reads as a point. */
  g_strdelimit (copy, ",", '.');

  /* Terms add up, so what tsl_duration_format() shows ("2 min 5 s") reads back. */
  p = copy;
  do
    {
      double term;

      if (!parse_term (&p, &term))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("“%s” is not a time (expected a number with an optional unit: "
                       "ns, us, ms, s, min, h or d, e.g. 1.5, 250ms or 2 min 5 s)"), text);
          return FALSE;
        }
      total += term;
      while (*p == ' ')
        p++;
    }
  while (*p != '\0');

  *ns = total;
  return TRUE;
}

/* "%.4g" in the C locale: the result must read back with tsl_duration_parse()
 * whatever LC_NUMERIC the window runs with. */
static char *
format_unit (double      value,
             const char *unit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.4g", value);
  return g_strdup_printf ("%s %s", buf, unit);
}

char *
tsl_duration_format (double ns)
{
  double a = fabs (ns);

  if (a < 1e3)
    return g_strdup_printf ("%.0f ns", ns);
  if (a < 1e6)
    return format_unit (ns / 1e3, "µs");
  if (a < 1e9)
    return format_unit (ns / 1e6, "ms");
  if (a < 60e9)
    return format_unit (ns / 1e9, "s");
  if (a < 2 * 86400e9)
    {
      /* Whole clock units, zeros left out: "10 min", "1 h 10 min", "2 min 5 s"
       * (not "10 min 0 s" or "1.167 h"); still reads back as a sum of terms. */
      guint64 s = (guint64) llround (a / 1e9);
      guint64 h = s / 3600, m = s / 60 % 60, sec = s % 60;
      GString *out = g_string_new (ns < 0 ? "-" : "");

      if (h > 0)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT " h", h);
      if (m > 0)
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT " min", h > 0 ? " " : "", m);
      if (sec > 0 && h < 10)
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT " s", h > 0 || m > 0 ? " " : "", sec);
      return g_string_free (out, FALSE);
    }
  return format_unit (ns / 86400e9, "d");
}

char *
tsl_duration_format_range (gint64 start_ns,
                           gint64 end_ns)
{
  g_autofree char *start = tsl_duration_format ((double) start_ns);
  g_autofree char *end = tsl_duration_format ((double) end_ns);

  return g_strdup_printf ("%s – %s", start, end);
}
