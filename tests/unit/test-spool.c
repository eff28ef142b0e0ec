/* test-spool.c: values and records back from a spool, in order, however spilled
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Random values (the extremes among them) and random records (some longer
 * than a block) go through spools whose memory spills every few bytes, so
 * varints and records straddle the blocks read back from the file; they
 * must come back equal, in order, and again after a rewind. A spool whose
 * temporary file cannot be made keeps everything in memory; a parked one
 * keeps nothing there. Seeds are fixed.
 */
#include <string.h>

#include "tsl-spool.h"

static const gint64 extremes[] = { 0, -1, 1, 63, -64, 64, 127, 128, G_MAXINT64, G_MININT64, G_MAXINT32 };

static gint64
random_value (GRand *rand,
              guint  i)
{
  if (i < G_N_ELEMENTS (extremes))
    return extremes[i];
  /* Lengths of 1 to 10 bytes, either sign. */
  return (gint64) (((guint64) g_rand_int (rand) << 32 | g_rand_int (rand)) >> g_rand_int_range (rand, 0, 64));
}

static void
check_values (const char *name,
              gsize       max_bytes,
              gboolean    park,
              gboolean    in_file)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (gint64));
  TslSpool s;
  gint64 v;

  tsl_spool_init (&s, name, max_bytes, NULL);
  for (guint i = 0; i < 20000; i++)
    {
      v = random_value (rand, i);
      g_array_append_val (want, v);
      tsl_spool_push (&s, v);
    }
  if (park)
    {
      tsl_spool_park (&s);
      g_assert_null (s.mem);
    }
  g_assert_true ((s.file != NULL) == in_file);
  g_assert_true (s.in_file > 0 || !in_file);
  for (guint i = 0; i < want->len; i++)
    {
      g_assert_true (tsl_spool_pop (&s, &v));
      g_assert_cmpint (v, ==, g_array_index (want, gint64, i));
    }
  g_assert_false (tsl_spool_pop (&s, &v));
  g_assert_false (tsl_spool_pop (&s, &v));
  tsl_spool_clear (&s);
}

static void
test_values (void)
{
  /* Spilled every 64 bytes, read back 64 at a time. */
  check_values ("test", 64, FALSE, TRUE);
  check_values ("test", 64, TRUE, TRUE);
  /* All in memory. */
  check_values ("test", 1 << 30, FALSE, FALSE);
}

static void
test_no_file (void)
{
  /* A template with a directory in it: the temporary file cannot be made. */
  check_values ("no/such", 64, FALSE, FALSE);
}

static void
test_env_limit (void)
{
  TslSpool s;

  g_setenv ("TSL_TEST_SPOOL_BYTES", "5", TRUE);
  tsl_spool_init (&s, "test", 1024, "TSL_TEST_SPOOL_BYTES");
  g_assert_cmpuint (s.limit, ==, 5);
  tsl_spool_push (&s, 1);
  g_assert_null (s.file);
  for (int i = 0; i < 4; i++)
    tsl_spool_push (&s, 1);
  g_assert_nonnull (s.file);
  tsl_spool_clear (&s);
  g_unsetenv ("TSL_TEST_SPOOL_BYTES");
}

/* A record: a 4-byte length, then that many bytes. */
static gboolean
next_record (TslSpool      *s,
             const guint8 **data,
             guint32       *len)
{
  gsize need = 4, avail;
  const guint8 *p;

  while ((avail = tsl_spool_peek (s, need, &p)) > 0)
    {
      if (avail >= 4)
        {
          memcpy (len, p, 4);
          if (avail >= 4 + (gsize) *len)
            {
              *data = p + 4;
              tsl_spool_skip (s, 4 + *len);
              return TRUE;
            }
        }
      g_assert_cmpuint (avail, >=, need);   /* the writer's records are whole */
      need = 2 * avail;
    }
  return FALSE;
}

static void
test_records (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autoptr(GPtrArray) want = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  TslSpool s;

  tsl_spool_init (&s, "test", 1000, NULL);
  for (guint i = 0; i < 3000; i++)
    {
      /* Mostly short, some past a block (1000 bytes), some empty. */
      guint32 len = g_rand_int_range (rand, 0, 10) == 0 ? g_rand_int_range (rand, 1000, 5000) : g_rand_int_range (rand, 0, 60);
      guint8 *to = tsl_spool_reserve (&s, 4 + len);
      guint8 *bytes = g_malloc (len + 1);

      for (guint32 k = 0; k < len; k++)
        bytes[k] = (guint8) g_rand_int (rand);
      memcpy (to, &len, 4);
      memcpy (to + 4, bytes, len);
      tsl_spool_commit (&s, 4 + len);
      g_ptr_array_add (want, g_bytes_new_take (bytes, len));
    }
  g_assert_nonnull (s.file);
  for (int pass = 0; pass < 2; pass++)
    {
      const guint8 *data;
      guint32 len;

      tsl_spool_rewind (&s);
      for (guint i = 0; i < want->len; i++)
        {
          gsize want_len;
          const guint8 *want_data = g_bytes_get_data (want->pdata[i], &want_len);

          g_assert_true (next_record (&s, &data, &len));
          g_assert_cmpmem (data, len, want_data, want_len);
        }
      g_assert_false (next_record (&s, &data, &len));
    }
  tsl_spool_clear (&s);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/spool/values", test_values);
  g_test_add_func ("/spool/no-file", test_no_file);
  g_test_add_func ("/spool/env-limit", test_env_limit);
  g_test_add_func ("/spool/records", test_records);
  return g_test_run ();
}
