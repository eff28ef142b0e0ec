/* tsl-changes-cache.c: change-point tables saved per file and options
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An entry is one text file: a first line naming the program version, this
 * format's version, the file's key, the hash of its ends and the options,
 * then the CSV exactly as written. Tables are small (about 150 bytes a row)
 * and there is one per file and options, so entries are not counted against
 * the state cache's TSL_CACHE_MAX_BYTES; a table over MAX_ENTRY_BYTES is
 * not kept.
 */
#define G_LOG_DOMAIN "tsl-changes"

#include "config.h"

#include <string.h>

#include "tsl-changes-cache.h"

/* Bump when the rows change for the same input and options. */
#define CHANGES_CACHE_VERSION 3
#define MAX_ENTRY_BYTES (16 << 20)

static gboolean
cache_on (void)
{
  const char *env = g_getenv ("TSL_CACHE_MAX_BYTES");

  return tsl_cache_get_enabled () && (env == NULL || g_ascii_strtoull (env, NULL, 10) > 0);
}

gboolean
tsl_changes_source_query (const char       *path,
                          TslChangesSource *out)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) stream = NULL;

  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (path == NULL || !cache_on () || g_str_equal (path, "-"))
    return FALSE;
  file = g_file_new_for_path (path);
  stream = g_file_read (file, NULL, NULL);
  return stream != NULL && tsl_file_key_query (stream, &out->key) &&
         tsl_file_hash_ends (stream, out->key.size, out->ends);
}

/* The options the rows depend on, printed: the same options, the same text. */
static char *
options_of (const TslCompareRequest *request,
            guint                    top)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup_printf ("a=%s..%s%s k=%u seed=%" G_GUINT64_FORMAT " budget=%" G_GUINT64_FORMAT
                          " confidence=%s top=%u",
                          g_ascii_dtostr (a, sizeof a, request->a.start),
                          g_ascii_dtostr (b, sizeof b, request->a.end),
                          request->a.is_fraction ? "f" : "ns", request->k, request->seed,
                          request->budget != NULL ? tsl_budget_get_limit (request->budget) : 0,
                          g_ascii_dtostr (c, sizeof c, request->confidence), top);
}

static char *
header_of (const TslChangesSource  *source,
           const TslCompareRequest *request,
           guint                    top)
{
  g_autofree char *options = options_of (request, top);
  g_autofree char *ends = NULL;
  GString *hex = g_string_new (NULL);

  for (guint i = 0; i < 32; i++)
    g_string_append_printf (hex, "%02x", source->ends[i]);
  ends = g_string_free (hex, FALSE);
  return g_strdup_printf ("timeslice %s changes-cache %d %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                          " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %s %s\n",
                          PACKAGE_VERSION, CHANGES_CACHE_VERSION, source->key.dev, source->key.inode,
                          source->key.size, source->key.mtime_us, ends, options);
}

static char *
entry_path (const TslChangesSource  *source,
            const TslCompareRequest *request,
            guint                    top)
{
  g_autofree char *dir = tsl_cache_get_dir ();
  g_autofree char *options = options_of (request, top);
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, options, -1);
  g_autofree char *name = NULL;

  sum[16] = '\0';
  name = g_strdup_printf ("changes-%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x-%s.csv",
                          source->key.dev, source->key.inode, sum);
  return g_build_filename (dir, name, NULL);
}

char *
tsl_changes_cache_lookup (const TslChangesSource  *source,
                          const TslCompareRequest *request,
                          guint                    top)
{
  g_autofree char *path = NULL;
  g_autofree char *header = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0, header_length;

  g_return_val_if_fail (source != NULL && request != NULL, NULL);

  if (!cache_on ())
    return NULL;
  path = entry_path (source, request, top);
  header = header_of (source, request, top);
  header_length = strlen (header);
  if (!g_file_get_contents (path, &contents, &length, NULL) ||
      length < header_length || memcmp (contents, header, header_length) != 0 ||
      memchr (contents, '\0', length) != NULL)
    return NULL;
  return g_strdup (contents + header_length);
}

void
tsl_changes_cache_save (const TslChangesSource  *source,
                        const TslCompareRequest *request,
                        guint                    top,
                        const char              *csv)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *header = NULL;
  g_autofree char *entry = NULL;

  g_return_if_fail (source != NULL && request != NULL && csv != NULL);

  if (!cache_on () || strlen (csv) > MAX_ENTRY_BYTES)
    return;
  dir = tsl_cache_get_dir ();
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return;
  path = entry_path (source, request, top);
  header = header_of (source, request, top);
  entry = g_strconcat (header, csv, NULL);
  /* Written aside and renamed: a reader never sees half an entry. */
  g_file_set_contents (path, entry, -1, NULL);
}
