/* tsl-csv-writer.c: CSV output shared by the command line and the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-csv-writer"

#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-csv-writer.h"

void
tsl_csv_append_field (GString    *line,
                      const char *text)
{
  gboolean formula;

  if (text == NULL)
    return;

  /* A spreadsheet runs a cell starting with = + - @ (or a tab or CR before
   * one) as a formula, and trace names are anyone's text: a leading ' makes
   * it text (OWASP's advice). A name starting with ' gets one too, so that
   * dropping one leading ' always gives the name back. */
  formula = text[0] != '\0' && strchr ("=+-@\t\r'", text[0]) != NULL;

  if (strpbrk (text, ",\"\r\n") == NULL)
    {
      if (formula)
        g_string_append_c (line, '\'');
      g_string_append (line, text);
      return;
    }

  g_string_append_c (line, '"');
  if (formula)
    g_string_append_c (line, '\'');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (line, '"');
      g_string_append_c (line, *p);
    }
  g_string_append_c (line, '"');
}

char *
tsl_csv_format_double (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    return g_strdup ("");

  /* The shortest %.Ng (N >= 6) that round-trips: "0.5", not
   * "0.50000000000000000". If N digits round-trip so do N + 1 (the nearest
   * N + 1 digit decimal is no farther than the N digit one), so a search
   * over N finds it in any probing order. Most of a compare's numbers need
   * 16 or 17 digits: after 6, probe 16, then 15, then halve what is left,
   * keeping the text of the shortest that round-tripped, so that one of 16
   * or 17 costs 3 formattings and one of 15 or fewer about 6. */
  {
    static const char *const fmts[] = { "%.6g", "%.7g", "%.8g", "%.9g", "%.10g", "%.11g",
                                        "%.12g", "%.13g", "%.14g", "%.15g", "%.16g", "%.17g" };
    char probe[G_ASCII_DTOSTR_BUF_SIZE];
    int lo = 7, hi = 17, step = 0;   /* %.17g always round-trips */

    g_ascii_formatd (buf, sizeof buf, fmts[0], value);
    if (g_ascii_strtod (buf, NULL) == value)
      return g_strdup (buf);

    buf[0] = '\0';   /* the text at hi, once formatted */
    while (lo < hi)
      {
        int mid = step == 0 ? 16 : step == 1 ? 15 : (lo + hi) / 2;

        step++;
        if (mid < lo || mid >= hi)
          continue;
        g_ascii_formatd (probe, sizeof probe, fmts[mid - 6], value);
        if (g_ascii_strtod (probe, NULL) == value)
          {
            hi = mid;
            memcpy (buf, probe, sizeof buf);
          }
        else
          lo = mid + 1;
      }
    if (buf[0] == '\0')
      g_ascii_formatd (buf, sizeof buf, fmts[hi - 6], value);
  }

  return g_strdup (buf);
}

void
tsl_csv_append_number (GString *line,
                       double   value)
{
  g_autofree char *text = tsl_csv_format_double (isfinite (value) ? value : NAN);

  g_string_append_c (line, ',');
  g_string_append (line, text);
}

/* An interval's end in %: an unbounded one is said, not left empty. */
static void
append_bound (GString *line,
              double   bound)
{
  if (isinf (bound))
    g_string_append (line, bound > 0 ? ",inf" : ",-inf");
  else
    tsl_csv_append_number (line, bound * 100);
}

void
tsl_csv_append_change (GString  *line,
                       double    a,
                       double    b,
                       double    change,
                       double    ci_low,
                       double    ci_high,
                       double    p_value,
                       double    q_value,
                       gboolean  significant)
{
  tsl_csv_append_number (line, a);
  tsl_csv_append_number (line, b);
  tsl_csv_append_number (line, change * 100);
  append_bound (line, ci_low);
  append_bound (line, ci_high);
  tsl_csv_append_number (line, p_value);
  tsl_csv_append_number (line, q_value);
  g_string_append (line, significant ? ",true" : ",false");
}
