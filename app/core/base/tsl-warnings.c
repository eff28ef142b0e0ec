/* tsl-warnings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "tsl-warnings.h"

/* Distinct messages kept; more are folded into one counted line so a broken
 * file cannot grow memory with its number of lines. */
#define MAX_WARNINGS 200

typedef struct
{
  char    *message;
  guint64  count;
  gboolean once;     /* a fact about the input, not counted */
} Warning;

struct _TslWarnings
{
  GPtrArray  *warnings;   /* Warning * in first-seen order */
  GHashTable *ids;        /* message → Warning */
  guint64     dropped;
};

static void
warning_free (gpointer data)
{
  Warning *warning = data;

  g_free (warning->message);
  g_free (warning);
}

TslWarnings *
tsl_warnings_new (void)
{
  TslWarnings *self = g_new0 (TslWarnings, 1);

  self->warnings = g_ptr_array_new_with_free_func (warning_free);
  self->ids = g_hash_table_new (g_str_hash, g_str_equal);
  return self;
}

void
tsl_warnings_free (TslWarnings *self)
{
  if (self == NULL)
    return;

  g_hash_table_unref (self->ids);
  g_ptr_array_unref (self->warnings);
  g_free (self);
}

static void
take (TslWarnings *self,
      char        *message,
      gboolean     once);

void
tsl_warnings_take (TslWarnings *self,
                   char        *message)
{
  take (self, message, FALSE);
}

void
tsl_warnings_take_once (TslWarnings *self,
                        char        *message)
{
  take (self, message, TRUE);
}

static void
take (TslWarnings *self,
      char        *message,
      gboolean     once)
{
  Warning *warning;

  /* Warnings quote the input, which may not be UTF-8. */
  if (!g_utf8_validate (message, -1, NULL))
    {
      char *valid = g_utf8_make_valid (message, -1);

      g_free (message);
      message = valid;
    }

  warning = g_hash_table_lookup (self->ids, message);
  if (warning != NULL)
    {
      if (!once && !warning->once)
        warning->count++;
      warning->once |= once;
      g_free (message);
      return;
    }

  if (self->warnings->len >= MAX_WARNINGS)
    {
      self->dropped++;
      g_free (message);
      return;
    }

  warning = g_new0 (Warning, 1);
  warning->message = message;
  warning->count = 1;
  warning->once = once;
  g_ptr_array_add (self->warnings, warning);
  g_hash_table_insert (self->ids, warning->message, warning);
}

GStrv
tsl_warnings_dup (TslWarnings *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < self->warnings->len; i++)
    {
      const Warning *warning = g_ptr_array_index (self->warnings, i);
      g_autofree char *line = NULL;

      if (warning->count == 1)
        line = g_strdup (warning->message);
      else
        line = g_strdup_printf ("%s (%" G_GUINT64_FORMAT " times)",
                                warning->message, warning->count);
      g_strv_builder_add (builder, line);
    }

  if (self->dropped > 0)
    {
      g_autofree char *line = g_strdup_printf ("%" G_GUINT64_FORMAT " more warnings of other kinds",
                                               self->dropped);

      g_strv_builder_add (builder, line);
    }

  return g_strv_builder_end (builder);
}

GStrv
tsl_warnings_dup_counted (TslWarnings *self,
                          GArray      *counts)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_array_set_size (counts, 0);
  for (guint i = 0; i < self->warnings->len; i++)
    {
      const Warning *warning = g_ptr_array_index (self->warnings, i);

      g_strv_builder_add (builder, warning->message);
      g_array_append_val (counts, warning->count);
    }
  if (self->dropped > 0)
    {
      g_strv_builder_add (builder, "warnings of other kinds");
      g_array_append_val (counts, self->dropped);
    }

  return g_strv_builder_end (builder);
}

void
tsl_warnings_add_counted (TslWarnings *self,
                          const char  *message,
                          guint64      count,
                          gboolean     once)
{
  Warning *warning;

  if (count == 0)
    return;
  take (self, g_strdup (message), once);
  warning = g_hash_table_lookup (self->ids, message);
  if (warning != NULL && !warning->once)
    warning->count += count - 1;
  else if (warning == NULL)
    self->dropped += count - 1;   /* past MAX_WARNINGS */
}

guint64
tsl_warnings_get_dropped (TslWarnings *self)
{
  return self->dropped;
}

void
tsl_warnings_add_dropped (TslWarnings *self,
                          guint64      count)
{
  self->dropped += count;
}

guint
tsl_warnings_get_n (TslWarnings *self)
{
  return self->warnings->len;
}

const char *
tsl_warnings_get_nth (TslWarnings *self,
                      guint        i,
                      guint64     *count,
                      gboolean    *once)
{
  const Warning *warning;

  g_return_val_if_fail (i < self->warnings->len, NULL);

  warning = g_ptr_array_index (self->warnings, i);
  if (count != NULL)
    *count = warning->count;
  if (once != NULL)
    *once = warning->once;
  return warning->message;
}
