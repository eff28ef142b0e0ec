/* tsl-document-loader.h: loads a trace on a worker thread with progress
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "tsl-trace.h"

G_BEGIN_DECLS

#define TSL_TYPE_DOCUMENT_LOADER (tsl_document_loader_get_type ())
G_DECLARE_FINAL_TYPE (TslDocumentLoader, tsl_document_loader, TSL, DOCUMENT_LOADER, GObject)

TslDocumentLoader *tsl_document_loader_new          (GFile               *file,
                                                     TslTrace            *trace);
GFile             *tsl_document_loader_get_file     (TslDocumentLoader   *self);
/* Threading: create, load and read properties on one thread, the one whose
 * thread-default main context called load_async(); the parse runs on a
 * worker, and the `fraction`, `events` and `message` notifications (at most
 * one batch per 250 ms, then once more at the end) arrive on that context.
 * The trace being filled is readable while loading only under
 * tsl_trace_lock(). */
TslTrace          *tsl_document_loader_get_trace    (TslDocumentLoader   *self);
/* Follow mode: at the end of the file, wait for it to grow (checked by the
 * worker, so it can be switched off while loading to finish the load). */
void               tsl_document_loader_set_follow   (TslDocumentLoader   *self,
                                                     gboolean             follow);
gboolean           tsl_document_loader_get_follow   (TslDocumentLoader   *self);
/* 0..1, or -1 when the total size is unknown (a pipe). */
double             tsl_document_loader_get_fraction (TslDocumentLoader   *self);
guint64            tsl_document_loader_get_bytes    (TslDocumentLoader   *self);
guint64            tsl_document_loader_get_events   (TslDocumentLoader   *self);
/* (transfer full): the `message` property, e.g. "12.5 MB of 40 MB, 180000 events". */
char              *tsl_document_loader_dup_message  (TslDocumentLoader   *self);
void               tsl_document_loader_load_async   (TslDocumentLoader   *self,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
gboolean           tsl_document_loader_load_finish  (TslDocumentLoader   *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

G_END_DECLS
