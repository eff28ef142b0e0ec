/* test-proto.c: the protobuf wire decoder (tsl-proto.h) at its edges
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>

#include "tsl-proto.h"

static TslProtoStatus
varint_of (const char *bytes,
           gsize       len,
           guint64    *out,
           gsize      *used)
{
  const guint8 *p = (const guint8 *) bytes;
  TslProtoStatus st = tsl_proto_varint (&p, p + len, out);

  *used = p - (const guint8 *) bytes;
  return st;
}

static void
test_varint (void)
{
  guint64 v = 0;
  gsize used = 0;

  g_assert_cmpint (varint_of ("\x00", 1, &v, &used), ==, TSL_PROTO_OK);
  g_assert_cmpuint (v, ==, 0);
  g_assert_cmpuint (used, ==, 1);
  g_assert_cmpint (varint_of ("\xac\x02", 2, &v, &used), ==, TSL_PROTO_OK);
  g_assert_cmpuint (v, ==, 300);
  g_assert_cmpuint (used, ==, 2);
  /* 2^64 - 1: ten bytes, the last holding one bit. */
  g_assert_cmpint (varint_of ("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10, &v, &used), ==,
                   TSL_PROTO_OK);
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_cmpuint (used, ==, 10);
  /* Eleven bytes is no varint; a cut one is truncated and moves nothing. */
  g_assert_cmpint (varint_of ("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, &v, &used), ==,
                   TSL_PROTO_BAD);
  g_assert_cmpint (varint_of ("\xff\xff", 2, &v, &used), ==, TSL_PROTO_TRUNCATED);
  g_assert_cmpuint (used, ==, 0);
  g_assert_cmpint (varint_of ("", 0, &v, &used), ==, TSL_PROTO_TRUNCATED);
}

static void
test_fields (void)
{
  /* 1: varint 150; 2: "hi"; 3: fixed64 1.5; 4: fixed32 7. */
  static const guint8 msg[] = {
    0x08, 0x96, 0x01,
    0x12, 0x02, 'h', 'i',
    0x19, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
    0x25, 7, 0, 0, 0,
  };
  TslProtoCursor c;
  TslProtoField f;

  tsl_proto_cursor_init (&c, msg, sizeof msg);
  g_assert_cmpint (tsl_proto_next (&c, &f), ==, TSL_PROTO_OK);
  g_assert_cmpuint (f.number, ==, 1);
  g_assert_cmpuint (f.wire, ==, TSL_PROTO_VARINT);
  g_assert_cmpuint (f.value, ==, 150);
  g_assert_cmpint (tsl_proto_next (&c, &f), ==, TSL_PROTO_OK);
  g_assert_cmpuint (f.number, ==, 2);
  g_assert_cmpuint (f.len, ==, 2);
  g_assert_cmpmem (f.data, f.len, "hi", 2);
  g_assert_cmpint (tsl_proto_next (&c, &f), ==, TSL_PROTO_OK);
  g_assert_cmpuint (f.wire, ==, TSL_PROTO_I64);
  g_assert_cmpfloat (tsl_proto_double (f.value), ==, 1.5);
  g_assert_cmpint (tsl_proto_next (&c, &f), ==, TSL_PROTO_OK);
  g_assert_cmpuint (f.wire, ==, TSL_PROTO_I32);
  g_assert_cmpuint (f.value, ==, 7);
  g_assert_cmpint (tsl_proto_next (&c, &f), ==, TSL_PROTO_END);
}

static void
test_malformed (void)
{
  static const struct {
    const char    *name;
    const char    *bytes;
    gsize          len;
    TslProtoStatus status;
  } cases[] = {
    { "length past the end", "\x12\x05" "ab", 4, TSL_PROTO_TRUNCATED },
    { "length of 2^63", "\x12\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11, TSL_PROTO_TRUNCATED },
    { "fixed64 cut", "\x19\x01\x02", 3, TSL_PROTO_TRUNCATED },
    { "fixed32 cut", "\x25\x01", 2, TSL_PROTO_TRUNCATED },
    { "group start (wire type 3)", "\x0b", 1, TSL_PROTO_BAD },
    { "group end (wire type 4)", "\x0c", 1, TSL_PROTO_BAD },
    { "wire type 6", "\x0e\x00", 2, TSL_PROTO_BAD },
    { "wire type 7", "\x0f\x00", 2, TSL_PROTO_BAD },
    { "field number 0", "\x00\x01", 2, TSL_PROTO_BAD },
    { "key varint too long", "\x88\x88\x88\x88\x88\x88\x88\x88\x88\x88\x01", 11, TSL_PROTO_BAD },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TslProtoCursor c;
      TslProtoField f;
      const guint8 *start = (const guint8 *) cases[i].bytes;

      tsl_proto_cursor_init (&c, start, cases[i].len);
      g_test_message ("%s", cases[i].name);
      g_assert_cmpint (tsl_proto_next (&c, &f), ==, cases[i].status);
      /* The cursor stays at the damaged field. */
      g_assert_true (c.p == start);
    }
}

static void
test_packed (void)
{
  static const guint8 varints[] = { 0x01, 0xac, 0x02, 0xff };
  static const guint8 fixed[] = { 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0 };
  const guint8 *p = varints;
  guint64 v;

  g_assert_true (tsl_proto_packed_next (&p, varints + sizeof varints, TSL_PROTO_VARINT, &v));
  g_assert_cmpuint (v, ==, 1);
  g_assert_true (tsl_proto_packed_next (&p, varints + sizeof varints, TSL_PROTO_VARINT, &v));
  g_assert_cmpuint (v, ==, 300);
  /* A varint cut by the end of the run. */
  g_assert_false (tsl_proto_packed_next (&p, varints + sizeof varints, TSL_PROTO_VARINT, &v));

  p = fixed;
  g_assert_true (tsl_proto_packed_next (&p, fixed + sizeof fixed, TSL_PROTO_I64, &v));
  g_assert_cmpuint (v, ==, 1);
  g_assert_false (tsl_proto_packed_next (&p, fixed + sizeof fixed, TSL_PROTO_I64, &v));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proto/varint", test_varint);
  g_test_add_func ("/proto/fields", test_fields);
  g_test_add_func ("/proto/malformed", test_malformed);
  g_test_add_func ("/proto/packed", test_packed);
  return g_test_run ();
}
