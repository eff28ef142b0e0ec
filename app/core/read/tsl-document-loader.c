/* tsl-document-loader.c: loads a trace on a worker thread with progress
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The parse runs in a GTask thread; progress is stored under a mutex and
 * published to the main context by at most one pending low-priority timeout,
 * so notifications never arrive once per chunk (Sysprof's loader does the
 * same). A window takes a new snapshot of the trace on each `events`
 * notification: the interval bounds how often it copies and repaints.
 */
#define G_LOG_DOMAIN "tsl-document-loader"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "tsl-document-loader.h"
#include "tsl-read-stream.h"

struct _TslDocumentLoader
{
  GObject       parent_instance;

  GFile        *file;
  TslTrace     *trace;
  GMainContext *main_context;

  GMutex        mutex;
  guint64       bytes;
  guint64       total;
  guint64       events;
  guint         notify_source;
  int           follow;   /* atomic: read by the worker at the end of input */
};

enum {
  PROP_0,
  PROP_FILE,
  PROP_TRACE,
  PROP_FRACTION,
  PROP_EVENTS,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TslDocumentLoader, tsl_document_loader, G_TYPE_OBJECT)

#define NOTIFY_INTERVAL_MS 250

static void
notify_progress (TslDocumentLoader *self)
{
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EVENTS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
  g_object_thaw_notify (G_OBJECT (self));
}

static gboolean
notify_progress_cb (gpointer data)
{
  TslDocumentLoader *self = data;

  g_mutex_lock (&self->mutex);
  self->notify_source = 0;
  g_mutex_unlock (&self->mutex);

  notify_progress (self);

  return G_SOURCE_REMOVE;
}

static void
progress_cb (guint64  bytes_read,
             guint64  bytes_total,
             guint64  events,
             gpointer user_data)
{
  TslDocumentLoader *self = user_data;

  g_mutex_lock (&self->mutex);
  self->bytes = bytes_read;
  self->total = bytes_total;
  self->events = events;
  if (self->notify_source == 0)
    {
      g_autoptr(GSource) source = g_timeout_source_new (NOTIFY_INTERVAL_MS);

      g_source_set_priority (source, G_PRIORITY_LOW);
      g_source_set_callback (source, notify_progress_cb, g_object_ref (self), g_object_unref);
      g_source_set_static_name (source, "[tsl-document-loader-progress]");
      self->notify_source = g_source_attach (source, self->main_context);
    }
  g_mutex_unlock (&self->mutex);
}

static gboolean
follow_cb (gpointer user_data)
{
  TslDocumentLoader *self = user_data;

  return g_atomic_int_get (&self->follow);
}

static void
load_worker (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  TslDocumentLoader *self = source_object;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (self->file);
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GFileInfo) info = NULL;

  stream = g_file_read (self->file, cancellable, &error);
  if (stream == NULL)
    {
      g_task_return_new_error (task, error->domain, error->code, "%s: %s", name, error->message);
      return;
    }

  info = g_file_input_stream_query_info (stream, G_FILE_ATTRIBUTE_STANDARD_SIZE, cancellable, NULL);

  if (!tsl_read_stream_full (self->trace, G_INPUT_STREAM (stream), name,
                             info ? (guint64) g_file_info_get_size (info) : 0,
                             progress_cb, follow_cb, self, cancellable, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
tsl_document_loader_load_async (TslDocumentLoader   *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TSL_IS_DOCUMENT_LOADER (self));

  g_clear_pointer (&self->main_context, g_main_context_unref);
  self->main_context = g_main_context_ref_thread_default ();

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, tsl_document_loader_load_async);
  g_task_set_check_cancellable (task, TRUE);
  g_task_run_in_thread (task, load_worker);
}

gboolean
tsl_document_loader_load_finish (TslDocumentLoader  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  /* Final figures, without waiting for the throttled notification. */
  notify_progress (self);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
tsl_document_loader_set_follow (TslDocumentLoader *self,
                                gboolean           follow)
{
  g_return_if_fail (TSL_IS_DOCUMENT_LOADER (self));

  g_atomic_int_set (&self->follow, !!follow);
}

gboolean
tsl_document_loader_get_follow (TslDocumentLoader *self)
{
  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), FALSE);

  return g_atomic_int_get (&self->follow);
}

double
tsl_document_loader_get_fraction (TslDocumentLoader *self)
{
  double fraction;

  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), 0);

  g_mutex_lock (&self->mutex);
  fraction = self->total ? MIN (1.0, (double) self->bytes / (double) self->total) : -1;
  g_mutex_unlock (&self->mutex);

  return fraction;
}

guint64
tsl_document_loader_get_bytes (TslDocumentLoader *self)
{
  guint64 bytes;

  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), 0);

  g_mutex_lock (&self->mutex);
  bytes = self->bytes;
  g_mutex_unlock (&self->mutex);

  return bytes;
}

guint64
tsl_document_loader_get_events (TslDocumentLoader *self)
{
  guint64 events;

  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), 0);

  g_mutex_lock (&self->mutex);
  events = self->events;
  g_mutex_unlock (&self->mutex);

  return events;
}

char *
tsl_document_loader_dup_message (TslDocumentLoader *self)
{
  g_autofree char *read = NULL;
  g_autofree char *total = NULL;
  guint64 bytes, all, events;

  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), NULL);

  g_mutex_lock (&self->mutex);
  bytes = self->bytes;
  all = self->total;
  events = self->events;
  g_mutex_unlock (&self->mutex);

  read = g_format_size (bytes);
  if (all == 0)
    /* Translators: bytes read, events */
    return g_strdup_printf (_("%s, %llu events"), read, (unsigned long long) events);

  total = g_format_size (all);
  /* Translators: bytes read, file size, events */
  return g_strdup_printf (_("%s of %s, %llu events"), read, total, (unsigned long long) events);
}

/**
 * tsl_document_loader_get_file:
 *
 * Returns: (transfer none): the file being loaded
 */
GFile *
tsl_document_loader_get_file (TslDocumentLoader *self)
{
  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), NULL);

  return self->file;
}

/**
 * tsl_document_loader_get_trace:
 *
 * Returns: (transfer none): the trace being filled
 */
TslTrace *
tsl_document_loader_get_trace (TslDocumentLoader *self)
{
  g_return_val_if_fail (TSL_IS_DOCUMENT_LOADER (self), NULL);

  return self->trace;
}

static void
tsl_document_loader_finalize (GObject *object)
{
  TslDocumentLoader *self = TSL_DOCUMENT_LOADER (object);

  g_clear_object (&self->file);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (tsl_document_loader_parent_class)->finalize (object);
}

static void
tsl_document_loader_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  TslDocumentLoader *self = TSL_DOCUMENT_LOADER (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;

    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;

    case PROP_FRACTION:
      g_value_set_double (value, tsl_document_loader_get_fraction (self));
      break;

    case PROP_MESSAGE:
      g_value_take_string (value, tsl_document_loader_dup_message (self));
      break;

    case PROP_EVENTS:
      g_value_set_uint64 (value, tsl_document_loader_get_events (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tsl_document_loader_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  TslDocumentLoader *self = TSL_DOCUMENT_LOADER (object);

  switch (prop_id)
    {
    case PROP_FILE:
      self->file = g_value_dup_object (value);
      break;

    case PROP_TRACE:
      self->trace = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tsl_document_loader_class_init (TslDocumentLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tsl_document_loader_finalize;
  object_class->get_property = tsl_document_loader_get_property;
  object_class->set_property = tsl_document_loader_set_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, TSL_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, -1, 1, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_EVENTS] =
    g_param_spec_uint64 ("events", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
tsl_document_loader_init (TslDocumentLoader *self)
{
  g_mutex_init (&self->mutex);
}

TslDocumentLoader *
tsl_document_loader_new (GFile    *file,
                         TslTrace *trace)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (TSL_IS_TRACE (trace), NULL);

  return g_object_new (TSL_TYPE_DOCUMENT_LOADER, "file", file, "trace", trace, NULL);
}
