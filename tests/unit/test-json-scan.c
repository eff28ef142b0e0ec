/* test-json-scan.c: the tokenizer's vector paths against plain byte loops
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl_json_scan_value(), tsl_json_scan_string() and tsl_json_scan_number()
 * look at 16 bytes a step where SSE2 is there. Here each is checked against
 * a byte-at-a-time reference written from the JSON grammar (the tokenizer as
 * it was before the vector paths) on random inputs dense in the bytes that
 * matter: quotes, backslashes, brackets, digits, delimiters, at every length
 * and offset around the 16-byte steps, cut short at random. The
 * conversion of microsecond timestamps is checked against integer
 * arithmetic on their digits.
 */
#include <string.h>

#include "tsl-json-scan.h"

#define N_CASES 400000

static gboolean
ref_delimiter (char c)
{
  return strchr (",}]:\"{[ \n\r\t", c) != NULL && c != '\0';
}

/* A string from the quote at p: the closing quote, or NULL at the end. */
static const char *
ref_string_end (const char *p,
                const char *end,
                gboolean   *escaped)
{
  *escaped = FALSE;
  for (const char *q = p + 1; q < end; q++)
    {
      if (*q == '"')
        return q;
      if (*q == '\\')
        {
          *escaped = TRUE;
          q++;
        }
    }
  return NULL;
}

/* The reference scan of a value at p: status and, when OK, its length. */
static TslJsonStatus
ref_scan_value (const char *p,
                const char *end,
                gsize      *len)
{
  gboolean escaped;

  if (p >= end)
    return TSL_JSON_INCOMPLETE;
  if (*p == '"')
    {
      const char *q = ref_string_end (p, end, &escaped);

      if (q == NULL)
        return TSL_JSON_INCOMPLETE;
      *len = q - (p + 1);
      return TSL_JSON_OK;
    }
  if (*p == '{' || *p == '[')
    {
      guint depth = 1;

      for (const char *q = p + 1; q < end; q++)
        {
          if (*q == '"')
            {
              q = ref_string_end (q, end, &escaped);
              if (q == NULL)
                return TSL_JSON_INCOMPLETE;
            }
          else if (*q == '{' || *q == '[')
            depth++;
          else if ((*q == '}' || *q == ']') && --depth == 0)
            {
              *len = q + 1 - p;
              return TSL_JSON_OK;
            }
        }
      return TSL_JSON_INCOMPLETE;
    }
  if (*p == '}' || *p == ']' || *p == ',' || *p == ':')
    return TSL_JSON_ERROR;
  {
    const char *q = p;

    while (q < end && !ref_delimiter (*q))
      q++;
    if (q >= end)
      return TSL_JSON_INCOMPLETE;
    if (q == p || (guchar) *p < 0x20)
      return TSL_JSON_ERROR;
    *len = q - p;
    return TSL_JSON_OK;
  }
}

static void
random_bytes (GRand *rand,
              char  *buf,
              gsize  len)
{
  /* Mostly the bytes the scanners branch on. */
  static const char alphabet[] = "\"\"\"\\{}[]{}[],:  \n09123.5e-+aZ\t\r\x01\xc3\xa9";

  for (gsize i = 0; i < len; i++)
    buf[i] = g_rand_int_range (rand, 0, 4) == 0
             ? (char) g_rand_int_range (rand, 1, 256)
             : alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
}

static void
test_scan_value (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  char buf[300];
  guint n_ok = 0;
  guint n_containers = 0;

  for (guint i = 0; i < N_CASES; i++)
    {
      gsize len = g_rand_int_range (rand, 1, sizeof buf);
      const char *end = buf + len;
      TslJsonValue value = { 0 };
      TslJsonError error = { NULL, NULL };
      const char *after = NULL;
      TslJsonStatus got, want;
      gsize want_len = 0;

      random_bytes (rand, buf, len);
      /* Containers and strings most of the time. */
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0: buf[0] = '{'; break;
        case 1: buf[0] = '['; break;
        case 2: buf[0] = '"'; break;
        default: break;
        }

      want = ref_scan_value (buf, end, &want_len);
      got = tsl_json_scan_value (buf, end, &value, &after, &error);
      g_assert_cmpint (got, ==, want);
      if (got == TSL_JSON_OK)
        {
          n_ok++;
          n_containers += buf[0] == '{' || buf[0] == '[';
          g_assert_cmpuint (value.len, ==, want_len);
          g_assert_true (after == (buf[0] == '"' ? value.p + value.len + 1 : value.p + value.len));
        }
    }
  /* Enough of each outcome to mean something. */
  g_assert_cmpuint (n_ok, >, N_CASES / 10);
  g_assert_cmpuint (n_containers, >, N_CASES / 50);
}

static void
test_scan_number (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  static const char digits[] = "0123456789.";
  char buf[80];
  guint n_ok = 0;

  for (guint i = 0; i < N_CASES; i++)
    {
      gsize len = g_rand_int_range (rand, 2, sizeof buf);
      gsize run = g_rand_int_range (rand, 1, len + 1);
      TslJsonValue value = { 0 };
      TslJsonValue generic = { 0 };
      TslJsonError error = { NULL, NULL };
      const char *after = NULL, *generic_after = NULL;
      gboolean fast;

      random_bytes (rand, buf, len);
      for (gsize j = 0; j < run; j++)
        buf[j] = digits[g_rand_int_range (rand, 0, sizeof digits - 1)];
      buf[0] = '0' + g_rand_int_range (rand, 0, 10);

      fast = tsl_json_scan_number (buf, buf + len, &value, &after);
      /* Where it answers, it answers as the generic scan does. */
      if (fast)
        {
          n_ok++;
          g_assert_cmpint (tsl_json_scan_value (buf, buf + len, &generic, &generic_after, &error), ==, TSL_JSON_OK);
          g_assert_cmpint (value.type, ==, generic.type);
          g_assert_cmpuint (value.len, ==, generic.len);
          g_assert_true (after == generic_after);
        }
      else
        g_assert_cmpint (tsl_json_scan_value (buf, buf + len, &generic, &generic_after, &error), ==,
                         TSL_JSON_INCOMPLETE);
    }
  g_assert_cmpuint (n_ok, >, N_CASES / 10);
}

/* Microseconds as written to nanoseconds: the fast path is exact decimal
 * arithmetic (three decimals, the fourth rounds half up); numbers it does
 * not take (exponents, leading zeros, 16+ digits) go through a double. */
static void
test_us_as_ns (void)
{
  static const struct {
    const char *text;
    guint8      type;
    gboolean    ok;
    gint64      ns;
  } cases[] = {
    { "0", TSL_JSON_NUMBER, TRUE, 0 },
    { "1", TSL_JSON_NUMBER, TRUE, 1000 },
    { "1.5", TSL_JSON_NUMBER, TRUE, 1500 },
    { "1.25", TSL_JSON_NUMBER, TRUE, 1250 },
    { "1.234", TSL_JSON_NUMBER, TRUE, 1234 },
    { "1.2344999", TSL_JSON_NUMBER, TRUE, 1234 },
    { "1.2345", TSL_JSON_NUMBER, TRUE, 1235 },
    { "1.9996", TSL_JSON_NUMBER, TRUE, 2000 },
    { "0.001", TSL_JSON_NUMBER, TRUE, 1 },
    { "0.0004", TSL_JSON_NUMBER, TRUE, 0 },
    { "-3.5", TSL_JSON_NUMBER, TRUE, -3500 },
    { "3771607.901", TSL_JSON_NUMBER, TRUE, G_GINT64_CONSTANT (3771607901) },
    { "123456789012345.678", TSL_JSON_NUMBER, TRUE, G_GINT64_CONSTANT (123456789012345678) },
    { "1e3", TSL_JSON_NUMBER, TRUE, 1000000 },
    { "2.5E-1", TSL_JSON_NUMBER, TRUE, 250 },
    { "12.5", TSL_JSON_STRING, TRUE, 12500 },
    { "1.", TSL_JSON_NUMBER, FALSE, 0 },
    { "1.x", TSL_JSON_NUMBER, FALSE, 0 },
    { "abc", TSL_JSON_STRING, FALSE, 0 },
    { "1e300", TSL_JSON_NUMBER, FALSE, 0 },
    { "true", TSL_JSON_TRUE, FALSE, 0 },
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (29);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TslJsonValue value = { cases[i].text, strlen (cases[i].text), cases[i].type, 0 };
      gint64 ns = -1;
      gboolean ok = tsl_json_value_get_us_as_ns (&value, &ns);

      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (ok)
        g_assert_cmpint (ns, ==, cases[i].ns);
    }

  /* Random decimals against integer arithmetic on their digits. */
  for (guint i = 0; i < 100000; i++)
    {
      char text[40];
      guint n_whole = g_rand_int_range (rand, 1, 16);
      guint n_frac = g_rand_int_range (rand, 0, 8);
      gint64 whole = 0, ns = 0, expected;
      guint frac[8] = { 0 };
      gsize len = 0;
      gboolean neg = g_rand_boolean (rand);

      if (neg)
        text[len++] = '-';
      for (guint j = 0; j < n_whole; j++)
        {
          guint d = g_rand_int_range (rand, j == 0 && n_whole > 1 ? 1 : 0, 10);

          text[len++] = '0' + d;
          whole = whole * 10 + d;
        }
      if (n_frac > 0)
        text[len++] = '.';
      for (guint j = 0; j < n_frac; j++)
        {
          frac[j] = g_rand_int_range (rand, 0, 10);
          text[len++] = '0' + frac[j];
        }
      text[len] = '\0';
      expected = whole * 1000 + frac[0] * 100 + frac[1] * 10 + frac[2] + (frac[3] >= 5);
      if (neg)
        expected = -expected;

      {
        TslJsonValue value = { text, len, TSL_JSON_NUMBER, 0 };

        g_assert_true (tsl_json_value_get_us_as_ns (&value, &ns));
        if (ns != expected)
          g_error ("%s: %" G_GINT64_FORMAT " ns, expected %" G_GINT64_FORMAT, text, ns, expected);
      }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-scan/value", test_scan_value);
  g_test_add_func ("/json-scan/number", test_scan_number);
  g_test_add_func ("/json-scan/us-as-ns", test_us_as_ns);

  return g_test_run ();
}
