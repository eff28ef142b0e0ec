/* fuzz-state.c: a libFuzzer harness for the sampler state reader
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The first input byte picks what the rest is: even, a whole file as it
 * stands (the frame checks: magic, version, lengths, checksum); odd, a body,
 * wrapped in a valid header and checksum so that mutations reach the body's
 * parser and the sampler checks behind it. A state that loads must save to
 * bytes that load and save again to the same bytes, paint, and merge with
 * itself as another source and, in time mode, as the next part of a stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <gio/gio.h>

#include "tsl-render.h"
#include "tsl-snapshot.h"
#include "tsl-trace-state.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* Criticals and errors are bugs: said, then abort () so that libFuzzer keeps
 * the input (GLib's own fatal path raises SIGTRAP, which it does not catch). */
static void
log_handler (const char     *log_domain,
             GLogLevelFlags  log_level,
             const char     *message,
             gpointer        user_data)
{
  if (log_level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    {
      fprintf (stderr, "%s: %s\n", log_domain != NULL ? log_domain : "", message);
      abort ();
    }
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_log_set_default_handler (log_handler, NULL);
  return 0;
}

static void
paint (TslTrace *trace)
{
  g_autoptr(TslSnapshot) snapshot = tsl_snapshot_new (trace);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 160, 120);
  cairo_t *cr = cairo_create (surface);
  TslRenderOptions options;

  tsl_render_options_init (&options, snapshot, 160, 120);
  options.title = "fuzz";
  tsl_render_paint (cr, snapshot, &options);
  g_assert (cairo_status (cr) == CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* A header and checksum around `body`. */
static GBytes *
wrap (const guint8 *body,
      gsize         len)
{
  static const guint8 magic[8] = { 0x89, 'T', 'S', 'S', '\r', '\n', 0x1A, '\n' };
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint32 version = GUINT32_TO_LE (TSL_STATE_VERSION), flags = 0;
  guint64 body_len = GUINT64_TO_LE ((guint64) len);
  guint8 digest[32];
  gsize digest_len = sizeof digest;

  g_byte_array_append (out, magic, 8);
  g_byte_array_append (out, (const guint8 *) &version, 4);
  g_byte_array_append (out, (const guint8 *) &flags, 4);
  g_byte_array_append (out, (const guint8 *) &body_len, 8);
  g_byte_array_append (out, body, len);
  g_checksum_update (sum, out->data, out->len);
  g_checksum_get_digest (sum, digest, &digest_len);
  g_byte_array_append (out, digest, sizeof digest);
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

static TslTrace *
load (GBytes *bytes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TslTrace) trace = tsl_trace_new_from_state (bytes, "fuzz.tss", &error);

  if (trace == NULL)
    {
      /* Refusals name the file and a byte. */
      g_assert (error != NULL && error->domain == TSL_STATE_ERROR);
      g_assert (g_str_has_prefix (error->message, "fuzz.tss: byte "));
      return NULL;
    }
  return g_steal_pointer (&trace);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GBytes) input = NULL;
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslTrace) again = NULL;
  g_autoptr(TslTrace) groups = NULL;
  g_autoptr(GBytes) saved = NULL;
  g_autoptr(GBytes) resaved = NULL;

  if (size == 0)
    return 0;
  input = (data[0] & 1) ? wrap (data + 1, size - 1) : g_bytes_new (data + 1, size - 1);
  trace = load (input);
  if (trace == NULL)
    return 0;

  saved = tsl_trace_save_state (trace);
  again = load (saved);
  g_assert (again != NULL);
  resaved = tsl_trace_save_state (again);
  g_assert (g_bytes_equal (saved, resaved));
  paint (again);

  groups = tsl_trace_new (tsl_trace_get_mode (trace), tsl_trace_get_k (trace), tsl_trace_get_seed (trace));
  g_assert (tsl_trace_merge (groups, trace, "one", 0, NULL));
  g_assert (tsl_trace_merge (groups, again, "two", 1, NULL));
  if (tsl_trace_get_mode (trace) == TSL_SAMPLER_TIME)
    g_assert (tsl_trace_merge (trace, again, NULL, 0, NULL));
  paint (groups);
  paint (trace);
  return 0;
}
