/* tsl-warnings.c: a reader's warnings, grouped by message and bounded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-warnings"

#include "config.h"

#include <string.h>

#include "tsl-time-math.h"
#include "tsl-warnings.h"

/* Distinct messages kept; more are folded into one counted line so a broken
 * file cannot grow memory with its number of lines. */
#define MAX_WARNINGS 200

typedef struct
{
  char           *message;
  guint64         count;
  TslWarningKind  kind;
} Warning;

struct _TslWarnings
{
  /* Warning *: the others in first-seen order, then the tallies by message
   * (a reader reports them at its end, so parts merged in any order
   * give the whole's order). */
  GPtrArray  *warnings;
  guint       n_untallied;
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

static Warning *take (TslWarnings *self, char *message, TslWarningKind kind, guint64 count);

void
tsl_warnings_take (TslWarnings *self,
                   char        *message)
{
  take (self, message, TSL_WARNING_COUNTED, 1);
}

void
tsl_warnings_take_once (TslWarnings *self,
                        char        *message)
{
  take (self, message, TSL_WARNING_ONCE, 1);
}

/* `count` more of `message` (taken); NULL past MAX_WARNINGS. A message
 * keeps the kind it was first seen with, but a counted one seen as a fact
 * becomes one. */
static Warning *
take (TslWarnings    *self,
      char           *message,
      TslWarningKind  kind,
      guint64         count)
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
      if (kind == TSL_WARNING_ONCE && warning->kind != TSL_WARNING_TALLY)
        {
          warning->kind = TSL_WARNING_ONCE;
          warning->count = 1;
        }
      else if (warning->kind != TSL_WARNING_ONCE)
        warning->count = tsl_sat_add_u64 (warning->count, count);   /* 0 would read as damaged */
      g_free (message);
      return warning;
    }

  if (self->warnings->len >= MAX_WARNINGS)
    {
      self->dropped += kind == TSL_WARNING_ONCE ? 1 : count;
      g_free (message);
      return NULL;
    }

  warning = g_new0 (Warning, 1);
  warning->message = message;
  warning->count = kind == TSL_WARNING_ONCE ? 1 : count;
  warning->kind = kind;
  if (kind == TSL_WARNING_TALLY)
    {
      guint at = self->n_untallied;

      while (at < self->warnings->len &&
             strcmp (((Warning *) g_ptr_array_index (self->warnings, at))->message, message) < 0)
        at++;
      g_ptr_array_insert (self->warnings, at, warning);
    }
  else
    g_ptr_array_insert (self->warnings, self->n_untallied++, warning);
  g_hash_table_insert (self->ids, warning->message, warning);
  return warning;
}

void
tsl_warnings_add_tally (TslWarnings *self,
                        const char  *message,
                        guint64      count)
{
  if (count > 0)
    take (self, g_strdup (message), TSL_WARNING_TALLY, count);
}

char *
tsl_format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

GStrv
tsl_warnings_dup (TslWarnings *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < self->warnings->len; i++)
    {
      const Warning *warning = g_ptr_array_index (self->warnings, i);
      g_autofree char *line = NULL;

      if (warning->kind == TSL_WARNING_TALLY)
        {
          g_autofree char *count = tsl_format_count (warning->count);

          line = g_strdup_printf ("%s %s", count, warning->message);
        }
      else if (warning->count == 1)
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
tsl_warnings_add_counted (TslWarnings    *self,
                          const char     *message,
                          guint64         count,
                          TslWarningKind  kind)
{
  if (count > 0)
    take (self, g_strdup (message), kind, count);
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
  self->dropped = tsl_sat_add_u64 (self->dropped, count);
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
                      TslWarningKind *kind)
{
  const Warning *warning;

  g_return_val_if_fail (i < self->warnings->len, NULL);

  warning = g_ptr_array_index (self->warnings, i);
  if (count != NULL)
    *count = warning->count;
  if (kind != NULL)
    *kind = warning->kind;
  return warning->message;
}
