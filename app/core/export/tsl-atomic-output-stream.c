/* tsl-atomic-output-stream.c: a file that appears whole or not at all
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * g_file_replace() renames a temporary file into place only when the target
 * already exists; a new file is written in place and visible half-written.
 * It also replaces whatever the name points at: /dev/null, a FIFO or a
 * symlink became a regular file. This stream goes through a temporary file
 * beside a regular target, and writes straight into anything else.
 */
#define G_LOG_DOMAIN "tsl-atomic-output-stream"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixoutputstream.h>

#include "tsl-atomic-output-stream.h"

/* Symlink hops followed before giving up, as the kernel does (ELOOP). */
#define MAX_SYMLINKS 40
/* Temporary files a signal handler can remove; more at once go unguarded. */
#define MAX_TEMPORARIES 32

struct _TslAtomicOutputStream
{
  GFilterOutputStream  parent_instance;
  char                *name;      /* as the user gave it, for messages */
  char                *target;    /* renamed over on close; NULL: written through */
  char                *tmp;
  int                  slot;      /* in `temporaries`, or -1 */
  gboolean             disposing;
};

G_DEFINE_FINAL_TYPE (TslAtomicOutputStream, tsl_atomic_output_stream, G_TYPE_FILTER_OUTPUT_STREAM)

/* Read by a signal handler: only atomic loads and unlink() touch it there. */
static char *temporaries[MAX_TEMPORARIES];

static int
guard_temporary (char *tmp)
{
  for (int i = 0; i < MAX_TEMPORARIES; i++)
    if (g_atomic_pointer_compare_and_exchange (&temporaries[i], NULL, tmp))
      return i;
  return -1;
}

static void
unguard_temporary (TslAtomicOutputStream *self)
{
  if (self->slot >= 0)
    g_atomic_pointer_set (&temporaries[self->slot], NULL);
  self->slot = -1;
}

void
tsl_atomic_output_stream_remove_temporaries (void)
{
  for (int i = 0; i < MAX_TEMPORARIES; i++)
    {
      const char *tmp = g_atomic_pointer_get (&temporaries[i]);

      if (tmp != NULL)
        unlink (tmp);
    }
}

static void
on_fatal_signal (int signum)
{
  tsl_atomic_output_stream_remove_temporaries ();
  /* Die of the signal, so the parent sees how the run ended. */
  signal (signum, SIG_DFL);
  raise (signum);
}

void
tsl_atomic_output_stream_remove_temporaries_on_signals (void)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction old, action = { .sa_handler = on_fatal_signal };

      sigemptyset (&action.sa_mask);
      /* nohup ignores SIGHUP, a test harness may catch SIGINT: keep those. */
      if (sigaction (signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        sigaction (signals[i], &action, NULL);
    }
}

static void
set_error_prefixed (GError     **error,
                    const char  *name,
                    GError      *local_error)
{
  g_set_error (error, local_error->domain, local_error->code, "%s: %s", name, local_error->message);
}

static void
set_error_errno (GError     **error,
                 const char  *name,
                 int          saved_errno)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "%s: %s",
               name, g_strerror (saved_errno));
}

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
    set_error_prefixed (error, self->name, local_error);

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
  gboolean ok = g_output_stream_close (base, cancellable, &local_error);

  if (!ok)
    set_error_prefixed (error, self->name, local_error);

  if (self->target == NULL)
    return ok;

  if (ok && !self->disposing && rename (self->tmp, self->target) != 0)
    {
      set_error_errno (error, self->name, errno);
      ok = FALSE;
    }
  if (!ok || self->disposing)
    unlink (self->tmp);
  unguard_temporary (self);

  return ok;
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

  unguard_temporary (self);
  g_free (self->name);
  g_free (self->target);
  g_free (self->tmp);

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
  self->slot = -1;
}

/* The name a write to `path` lands on: symlinks followed to their end, even
 * when that end does not exist yet. NULL with errno set on failure. */
static char *
resolve_links (const char *path)
{
  g_autofree char *current = g_strdup (path);

  for (guint hops = 0; hops <= MAX_SYMLINKS; hops++)
    {
      g_autofree char *link = NULL;
      struct stat st;

      if (lstat (current, &st) != 0)
        return errno == ENOENT ? g_steal_pointer (&current) : NULL;
      if (!S_ISLNK (st.st_mode))
        return realpath (current, NULL);

      link = g_file_read_link (current, NULL);
      if (link == NULL)
        return NULL;
      if (!g_path_is_absolute (link))
        {
          g_autofree char *dir = g_path_get_dirname (current);

          g_free (current);
          current = g_build_filename (dir, link, NULL);
        }
      else
        {
          g_free (current);
          current = g_steal_pointer (&link);
        }
    }

  errno = ELOOP;
  return NULL;
}

/* ".NAME.XXXXXXXX.part" beside `target`, NAME cut so the whole fits in the
 * directory's longest file name. */
static char *
temporary_name (const char *target)
{
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  long name_max = pathconf (dir, _PC_NAME_MAX);
  gsize room;

  if (name_max <= 0)
    name_max = NAME_MAX;
  room = (gsize) MAX (name_max - (long) strlen (".." "00000000" ".part"), 1);
  if (strlen (base) > room)
    base[room] = '\0';

  return g_strdup_printf ("%s/.%s.%08x.part", dir, base, g_random_int ());
}

static GOutputStream *
stream_new (int         fd,
            const char *name)
{
  g_autoptr(GOutputStream) base = g_unix_output_stream_new (fd, TRUE);
  TslAtomicOutputStream *self = g_object_new (TSL_TYPE_ATOMIC_OUTPUT_STREAM, "base-stream", base, NULL);

  self->name = g_strdup (name);
  return G_OUTPUT_STREAM (self);
}

GOutputStream *
tsl_atomic_output_stream_new (GFile         *file,
                              GCancellable  *cancellable,
                              GError       **error)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *target = NULL;
  TslAtomicOutputStream *self;
  struct stat st;
  gboolean exists;
  int fd = -1;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  name = g_file_get_parse_name (file);
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s: not a local file", name);
      return NULL;
    }

  exists = stat (path, &st) == 0;
  if (!exists && errno != ENOENT)
    {
      set_error_errno (error, name, errno);
      return NULL;
    }

  /* A device, FIFO or socket is written through, never replaced; a
   * directory fails here with EISDIR. */
  if (exists && !S_ISREG (st.st_mode))
    {
      fd = open (path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0)
        {
          set_error_errno (error, name, errno);
          return NULL;
        }
      return stream_new (fd, name);
    }

  /* Replace what a symlink points at, not the link. */
  target = resolve_links (path);
  if (target == NULL)
    {
      set_error_errno (error, name, errno);
      return NULL;
    }

  for (guint attempt = 0; ; attempt++)
    {
      g_autofree char *tmp = temporary_name (target);
      /* Guarded before it exists: a signal right after open() must find it. */
      int slot = guard_temporary (tmp);

      /* The replacement starts with the old file's permissions, so a
       * private file is never readable by others, not even briefly. */
      fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC,
                 exists ? (st.st_mode & 0777) : 0666);
      if (fd < 0)
        {
          int saved_errno = errno;

          if (slot >= 0)
            g_atomic_pointer_set (&temporaries[slot], NULL);
          if (saved_errno == EEXIST && attempt < 8)
            continue;
          set_error_errno (error, name, saved_errno);
          return NULL;
        }

      /* Owner first: chown() clears set-user-ID bits. Only root may give a
       * file away; anyone else keeps the file as theirs, as editors do. */
      if (exists)
        {
          if (fchown (fd, st.st_uid, st.st_gid) != 0)
            (void) !fchown (fd, (uid_t) -1, st.st_gid);
          if (fchmod (fd, st.st_mode & 07777) != 0)
            {
              int saved_errno = errno;

              close (fd);
              unlink (tmp);
              if (slot >= 0)
                g_atomic_pointer_set (&temporaries[slot], NULL);
              set_error_errno (error, name, saved_errno);
              return NULL;
            }
        }

      self = TSL_ATOMIC_OUTPUT_STREAM (stream_new (fd, name));
      self->target = g_steal_pointer (&target);
      self->tmp = g_steal_pointer (&tmp);
      self->slot = slot;
      return G_OUTPUT_STREAM (self);
    }
}
