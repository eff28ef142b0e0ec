/* test-follow.h: a thread that follows a growing file, for the tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * follow_thread() reads f->path into f->trace in follow mode until
 * f->following is cleared, then sets f->ok; the read must not fail.
 */
#pragma once

#include "tsl-read-stream.h"

typedef struct {
  const char *path;
  TslTrace   *trace;
  gint        following;
  gboolean    ok;
} Follower;

static inline gboolean
keep_following (gpointer data)
{
  Follower *f = data;

  return g_atomic_int_get (&f->following);
}

static inline gpointer
follow_thread (gpointer data)
{
  Follower *f = data;
  g_autoptr(GFile) file = g_file_new_for_path (f->path);
  g_autoptr(GFileInputStream) stream = g_file_read (file, NULL, NULL);
  g_autoptr(GError) error = NULL;

  f->ok = stream != NULL &&
          tsl_read_stream_full (f->trace, G_INPUT_STREAM (stream), f->path, 0, NULL, keep_following,
                                f, NULL, &error);
  g_assert_no_error (error);
  return NULL;
}
