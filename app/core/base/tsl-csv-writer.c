/* tsl-csv-writer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "tsl-csv-writer.h"

void
tsl_csv_append_field (GString    *line,
                      const char *text)
{
  if (text == NULL)
    return;

  if (strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (line, text);
      return;
    }

  g_string_append_c (line, '"');
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

  /* The shortest %.Ng that round-trips: "0.5", not "0.50000000000000000". */
  for (int precision = 6; precision <= 17; precision++)
    {
      char fmt[8];

      g_snprintf (fmt, sizeof fmt, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, fmt, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
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
  tsl_csv_append_number (line, ci_low * 100);
  tsl_csv_append_number (line, ci_high * 100);
  tsl_csv_append_number (line, p_value);
  tsl_csv_append_number (line, q_value);
  g_string_append (line, significant ? ",true" : ",false");
}
