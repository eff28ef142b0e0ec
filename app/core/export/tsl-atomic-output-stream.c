/* tsl-atomic-output-stream.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * g_file_replace() renames a temporary file into place only when the target
 * already exists; a new file is written in place and visible half-written.
 * This stream always goes through a temporary file in the same directory.
 */
#define G_LOG_DOMAIN "tsl-atomic-output-stream"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "tsl-atomic-output-stream.h"

struct _TslAtomicOutputStream
{
  GFilterOutputStream  parent_instance;
  GFile               *file;
  GFile               *tmp;
  gboolean             disposing;
};

G_DEFINE_FINAL_TYPE (TslAtomicOutputStream, tsl_atomic_output_stream, G_TYPE_FILTER_OUTPUT_STREAM)

/* Stream errors ("No space left on device") name no file: this one names
 * the file the user asked for, for every writer at once. */
static gssize
tsl_atomic_output_stream_write (GOutputStream  *stream,
                                const void     *buffer,
                                gsize           count,
                                GCancellable   *cancellable,
                                GError        **error)
{
  TslAtomicOutputStream *self = TSL_ATOMIC_OUTPUT_STREAM (stream);
  GOutputStream *base = g_filter_output_stream_get_base_stream (G_FILTER_OUTPUT_STREAM (stream));
  g_autoptr(GError) local_error = NULL;
  gssize written = g_output_stream_write (base, buffer, count, cancellable, &local_error);

  if (written < 0)
    {
      g_autofree char *name = g_file_get_parse_name (self->file);

      g_set_error (error, local_error->domain, local_error->code, "%s: %s", name, local_error->message);
    }

  return written;
}

static gboolean
tsl_atomic_output_stream_close (GOutputStream  *stream,
                                GCancellable   *cancellable,
                                GError        **error)
{
  TslAtomicOutputStream *self = TSL_ATOMIC_OUTPUT_STREAM (stream);
  GOutputStream *base = g_filter_output_stream_get_base_stream (G_FILTER_OUTPUT_STREAM (stream));
  g_autoptr(GError) local_error = NULL;

  if (!g_output_stream_close (base, cancellable, &local_error) || self->disposing ||
      !g_file_move (self->tmp, self->file, G_FILE_COPY_OVERWRITE | G_FILE_COPY_NO_FALLBACK_FOR_MOVE,
                    cancellable, NULL, NULL, &local_error))
    {
      g_file_delete (self->tmp, NULL, NULL);
      if (local_error != NULL)
        {
          g_autofree char *name = g_file_get_parse_name (self->file);

          g_set_error (error, local_error->domain, local_error->code, "%s: %s", name, local_error->message);
          return FALSE;
        }
    }

  return TRUE;
}

static void
tsl_atomic_output_stream_dispose (GObject *object)
{
  TslAtomicOutputStream *self = TSL_ATOMIC_OUTPUT_STREAM (object);

  /* GOutputStream closes an open stream on dispose: that is an abandon. */
  self->disposing = TRUE;

  G_OBJECT_CLASS (tsl_atomic_output_stream_parent_class)->dispose (object);
}

static void
tsl_atomic_output_stream_finalize (GObject *object)
{
  TslAtomicOutputStream *self = TSL_ATOMIC_OUTPUT_STREAM (object);

  g_clear_object (&self->file);
  g_clear_object (&self->tmp);

  G_OBJECT_CLASS (tsl_atomic_output_stream_parent_class)->finalize (object);
}

static void
tsl_atomic_output_stream_class_init (TslAtomicOutputStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GOutputStreamClass *stream_class = G_OUTPUT_STREAM_CLASS (klass);

  object_class->dispose = tsl_atomic_output_stream_dispose;
  object_class->finalize = tsl_atomic_output_stream_finalize;
  stream_class->write_fn = tsl_atomic_output_stream_write;
  stream_class->close_fn = tsl_atomic_output_stream_close;
}

static void
tsl_atomic_output_stream_init (TslAtomicOutputStream *self)
{
}

GOutputStream *
tsl_atomic_output_stream_new (GFile         *file,
                              GCancellable  *cancellable,
                              GError       **error)
{
  g_autoptr(GFile) parent = NULL;
  g_autofree char *base = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  parent = g_file_get_parent (file);
  base = g_file_get_basename (file);
  if (parent == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME, _("%s: not a file name"), base);
      return NULL;
    }

  for (guint attempt = 0; ; attempt++)
    {
      g_autofree char *tmp_name = g_strdup_printf (".%s.%08x.part", base, g_random_int ());
      g_autoptr(GFile) tmp = g_file_get_child (parent, tmp_name);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GFileOutputStream) out = g_file_create (tmp, G_FILE_CREATE_NONE, cancellable, &local_error);
      TslAtomicOutputStream *self;

      if (out == NULL)
        {
          g_autofree char *name = NULL;

          if (attempt < 8 && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
            continue;
          /* Name the file the user asked for, not our temporary. */
          name = g_file_get_parse_name (file);
          g_set_error (error, local_error->domain, local_error->code, "%s: %s", name, local_error->message);
          return NULL;
        }

      self = g_object_new (TSL_TYPE_ATOMIC_OUTPUT_STREAM, "base-stream", out, NULL);
      self->file = g_object_ref (file);
      self->tmp = g_steal_pointer (&tmp);
      return G_OUTPUT_STREAM (self);
    }
}
