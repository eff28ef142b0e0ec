/* test-chrome-scan.c: the event scanner's shape cache changes nothing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tsl_chrome_scan_event() predicts each member from the bytes that led to
 * it in earlier events (TslChromeShape). Here random streams of events,
 * dense in what could mislead a prediction (the same keys in other orders,
 * other spacing, whitespace after a colon, escaped and long keys, unknown
 * keys, malformed members, buffers cut short), are scanned twice: with one
 * shape carried from event to event, and each with an empty shape, which
 * never predicts. Status, end, error and every slot must be the same.
 */
#include <string.h>

#include "tsl-chrome-private.h"

#define N_EVENTS 200000

static const char *const keys[] = {
  "ph", "ts", "dur", "pid", "tid", "name", "cat", "id", "id2", "s", "args", "sf", "stack",
  "tdur", "bind_id", "\\u0070h", "n\\\"ame", "verylongkeyname", "",
};

static const char *const values[] = {
  "\"B\"", "\"X\"", "\"E\"", "\"C\"", "1", "12.5", "-3", "1e3", "\"12.5\"", "3771607.901",
  "\"Composite\"", "\"a\\\"b\"", "{}", "{\"a\": 1}", "{\"data\": {\"url\": \"x},{y\"}}", "[1, [2]]",
  "null", "true", "\"\"", "\"x\\\\\"",
};

/* Spacing around a member: most events alike, some not. */
static const char *const separators[] = { ", ", ", ", ", ", ",\n  ", ",", " , " };
static const char *const colons[] = { ": ", ": ", ": ", ":", " : ", ":  ", ":\n" };

static void
append_event (GRand   *rand,
              GString *out,
              guint    style)
{
  guint n = g_rand_int_range (rand, 0, 11);
  /* A few fixed orders, as writers have, and sometimes any order. */
  gboolean any = g_rand_int_range (rand, 0, 8) == 0;

  g_string_append_c (out, '{');
  for (guint i = 0; i < n; i++)
    {
      const char *key = any ? keys[g_rand_int_range (rand, 0, G_N_ELEMENTS (keys))]
                            : keys[(i * (style + 1) + style) % 13];
      guint sep = g_rand_int_range (rand, 0, 10) < 8 ? 0 : g_rand_int_range (rand, 0, G_N_ELEMENTS (separators));
      guint colon = g_rand_int_range (rand, 0, 10) < 8 ? 0 : g_rand_int_range (rand, 0, G_N_ELEMENTS (colons));

      if (i > 0)
        g_string_append (out, separators[sep]);
      /* Now and then a malformed member. */
      switch (g_rand_int_range (rand, 0, 160))
        {
        case 0: g_string_append (out, "pid: 1"); continue;
        case 1: g_string_append_printf (out, "\"%s\" 1", key); continue;
        case 2: g_string_append_printf (out, "\"%s\": ,", key); continue;
        case 3: g_string_append (out, ",,"); continue;
        case 4:
          /* The separator, and only it, wrong. */
          if (i > 0)
            {
              out->str[out->len - strlen (separators[sep])] = ';';
              g_string_append_printf (out, "\"%s\": 1", key);
              continue;
            }
          break;
        default: break;
        }
      g_string_append_printf (out, "\"%s\"%s%s", key, colons[colon],
                              values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))]);
    }
  g_string_append (out, g_rand_int_range (rand, 0, 6) == 0 ? " }" : "}");
}

static void
assert_same_value (const TslJsonValue *a,
                   const TslJsonValue *b)
{
  g_assert_true (a->p == b->p);
  g_assert_cmpuint (a->len, ==, b->len);
  g_assert_cmpuint (a->type, ==, b->type);
  g_assert_cmpuint (a->escaped, ==, b->escaped);
}

static void
test_shape_changes_nothing (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (31);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree TslChromeShape *shape = g_new0 (TslChromeShape, 1);
  guint n_ok = 0, n_error = 0, n_incomplete = 0;
  guint style = 0;

  for (guint i = 0; i < N_EVENTS; i++)
    {
      TslChromeShape empty = { 0 };
      TslChromeEvent a, b;
      TslJsonError ea = { NULL, NULL }, eb = { NULL, NULL };
      const char *after_a = NULL, *after_b = NULL;
      TslJsonStatus sa, sb;
      const char *end;

      /* Runs of events of one style, as a writer makes them. */
      if (g_rand_int_range (rand, 0, 50) == 0)
        style = g_rand_int_range (rand, 0, 4);
      g_string_truncate (text, 0);
      append_event (rand, text, style);
      /* What may follow an event in a buffer; or the buffer ends inside it. */
      g_string_append (text, ",\n{\"pid\": 1, \"tid\": 2, \"ts\": 3}");
      end = text->str + (g_rand_int_range (rand, 0, 10) == 0
                         ? (gsize) g_rand_int_range (rand, 1, text->len + 1) : text->len);

      sa = tsl_chrome_scan_event (text->str, end, &a, shape, &after_a, &ea);
      sb = tsl_chrome_scan_event (text->str, end, &b, &empty, &after_b, &eb);

      g_assert_cmpint (sa, ==, sb);
      switch (sa)
        {
        case TSL_JSON_OK:
          n_ok++;
          g_assert_true (after_a == after_b);
          for (guint k = 0; k < sizeof a / sizeof (TslJsonValue); k++)
            assert_same_value ((TslJsonValue *) &a + k, (TslJsonValue *) &b + k);
          break;
        case TSL_JSON_ERROR:
          n_error++;
          g_assert_true (ea.pos == eb.pos);
          g_assert_cmpstr (ea.message, ==, eb.message);
          break;
        default:
          n_incomplete++;
          break;
        }
    }
  g_test_message ("%u events scanned, %u errors, %u cut short", n_ok, n_error, n_incomplete);
  /* Each outcome came up often enough to mean something. */
  g_assert_cmpuint (n_ok, >, N_EVENTS / 2);
  g_assert_cmpuint (n_error, >, N_EVENTS / 100);
  g_assert_cmpuint (n_incomplete, >, N_EVENTS / 50);
}

/* The cache does predict: a run of like events is scanned from it. */
static void
test_shape_predicts (void)
{
  const char *event = "{\"pid\": 1, \"tid\": 2, \"ts\": 3.5, \"ph\": \"X\", \"name\": \"n\", \"dur\": 4}, ";
  g_autofree TslChromeShape *shape = g_new0 (TslChromeShape, 1);
  TslChromeEvent ev;
  TslJsonError error = { NULL, NULL };
  const char *after;

  g_assert_cmpint (tsl_chrome_scan_event (event, event + strlen (event), &ev, shape, &after, &error),
                   ==, TSL_JSON_OK);
  /* Each member's lead was learnt, with its slot. */
  g_assert_cmpuint (shape->leads[0][0].len, ==, strlen ("\"pid\": "));
  g_assert_cmpuint (shape->leads[1][0].len, ==, strlen (", \"tid\": "));
  g_assert_cmpuint (shape->leads[5][0].len, ==, strlen (", \"dur\": "));
  g_assert_true ((TslJsonValue *) &ev + shape->leads[3][0].slot == &ev.ph);
  g_assert_cmpuint (shape->leads[6][0].mask, ==, 0);
}

/* Member names are routed by their exact bytes: one ending in a NUL byte
 * ("ph\0") is not "ph", short or long, fast path or not. */
static void
test_names (void)
{
  static const char event[] = "{\"ph\0\": \"B\", \"s\0\": \"g\", \"ph\": \"X\", \"pid\0\": 7, "
                              "\"stack\": [1], \"stacks\": 2, \"\": 3}, {}";
  const char *end = event + sizeof event - 1;

  for (guint round = 0; round < 2; round++)
    {
      g_autofree TslChromeShape *shape = g_new0 (TslChromeShape, 1);
      TslChromeEvent ev;
      TslJsonError error = { NULL, NULL };
      const char *after;

      /* Once with the whole buffer (the word-at-a-time path), once cut
       * right after the event (the string path for its last names). */
      if (round == 1)
        end = event + sizeof event - 1 - strlen (", {}");
      g_assert_cmpint (tsl_chrome_scan_event (event, end, &ev, shape, &after, &error), ==, TSL_JSON_OK);
      g_assert_cmpuint (ev.ph.len, ==, 1);
      g_assert_cmpint (ev.ph.p[0], ==, 'X');
      g_assert_cmpuint (ev.scope.type, ==, TSL_JSON_NONE);
      g_assert_cmpuint (ev.pid.type, ==, TSL_JSON_NONE);
      g_assert_cmpuint (ev.stack.type, ==, TSL_JSON_ARRAY);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chrome-scan/shape-changes-nothing", test_shape_changes_nothing);
  g_test_add_func ("/chrome-scan/shape-predicts", test_shape_predicts);
  g_test_add_func ("/chrome-scan/names", test_names);

  return g_test_run ();
}
