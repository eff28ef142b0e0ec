/* tsl-cli-common.c: option parsing, errors, output and loading for subcommands
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-cli"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>

#include "tsl-cli-private.h"
#include "tsl-atomic-output-stream.h"
#include "tsl-chunk-index.h"
#include "tsl-range.h"
#include "tsl-chunk-index.h"
#include "tsl-read-stream.h"

/* The process's memory budget: --memory-budget, else TIMESLICE_MEMORY_BUDGET,
 * else 256 MiB; every trace a subcommand reads takes from it. */
static TslBudget *cli_budget;

TslBudget *
tsl_cli_get_budget (void)
{
  if (cli_budget == NULL)
    cli_budget = tsl_budget_new_for_process (TSL_BUDGET_DEFAULT_PROCESS);
  return cli_budget;
}

static gboolean
set_budget (const char  *option,
            GError     **error)
{
  guint64 bytes;

  if (option != NULL)
    {
      if (!tsl_budget_parse_mib (option, &bytes, error))
        {
          g_prefix_error (error, "--memory-budget: ");
          return FALSE;
        }
    }
  else
    {
      bytes = tsl_budget_process_bytes_from_env (error);
      if (error != NULL && *error != NULL)
        return FALSE;
    }

  g_clear_pointer (&cli_budget, tsl_budget_unref);
  cli_budget = tsl_budget_new_for_process (bytes);
  return TRUE;
}

/* Whether the input `path` ("-" is stdin) is the file `out` (dev and inode). */
static gboolean
is_file (const char     *path,
         const GStatBuf *out)
{
  GStatBuf st;

  if (g_str_equal (path, "-") ? fstat (STDIN_FILENO, &st) != 0 : g_stat (path, &st) != 0)
    return FALSE;
  return st.st_dev == out->st_dev && st.st_ino == out->st_ino;
}

static gboolean
is_input (const GOptionEntry  *entries,
          int                  argc,
          char               **argv,
          const GStatBuf      *out)
{
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    {
      char **paths = e->arg == G_OPTION_ARG_FILENAME_ARRAY ? *(char ***) e->arg_data : NULL;

      for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
        if (is_file (paths[i], out))
          return TRUE;
    }
  for (int i = 1; i < argc; i++)
    if (is_file (argv[i], out))
      return TRUE;
  return FALSE;
}

/* An output that is one of the inputs, however it is named (a symlink, a
 * hard link, stdin redirected from it), would be replaced by what was read
 * from it: refuse it before reading. Outputs are the FILENAME options (-o,
 * --table), inputs the FILENAME_ARRAY options (--after) and the operands. */
static gboolean
check_outputs (const GOptionEntry  *entries,
               int                  argc,
               char               **argv,
               GError             **error)
{
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    {
      const char *output = e->arg == G_OPTION_ARG_FILENAME ? *(char **) e->arg_data : NULL;
      GStatBuf st;

      /* Only a regular file is replaced; a device or FIFO is written through. */
      if (output == NULL || g_str_equal (output, "-") ||
          g_stat (output, &st) != 0 || !S_ISREG (st.st_mode) ||
          !is_input (entries, argc, argv, &st))
        continue;

      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--%s %s is an input file; write to another file", e->long_name, output);
      return FALSE;
    }
  return TRUE;
}

gboolean
tsl_cli_parse_options (const char          *command,
                       const char          *parameter,
                       const char          *summary,
                       const GOptionEntry  *entries,
                       int                 *argc,
                       char              ***argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) description = g_string_new (NULL);
  g_autofree char *program = g_strdup_printf ("timeslice %s", command);
  g_autofree char *budget = NULL;
  gboolean no_cache = FALSE;
  const GOptionEntry common[] = {
    { "memory-budget", 0, 0, G_OPTION_ARG_STRING, &budget,
      "Stay within SIZE of memory (MiB, or with M or G; default 256, or TIMESLICE_MEMORY_BUDGET)",
      "SIZE" },
    { "no-cache", 0, 0, G_OPTION_ARG_NONE, &no_cache,
      "Neither use nor write the cache of file indexes and sampler states", NULL },
    { NULL }
  };
  gboolean ok;

  context = g_option_context_new (parameter);
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_main_entries (context, common, NULL);

  g_string_append (description, "FILE is a trace or metric file, or “-” for standard input.\n");
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    {
      if (g_strcmp0 (e->arg_description, "RANGE") == 0)
        {
          g_string_append (description,
                           "RANGE is START..END from the trace start, with units ns, us, ms, s, min\n"
                           "or h (default s), or percentages of the span (25%..50%); half-open.\n");
          break;
        }
    }
  g_string_append (description,
                   "Exit status: 0 success, 1 bad or unreadable input, 2 usage error.");
  g_option_context_set_description (context, description->str);

  /* The usage line starts with the program name: make it "timeslice COMMAND"
   * for the parse, since argv[0] is the command name here. */
  g_set_prgname (program);
  ok = g_option_context_parse (context, argc, argv, &error) &&
       /* An export's compare table parses again: keep what the first parse set. */
       ((budget == NULL && cli_budget != NULL) || set_budget (budget, &error));
  g_set_prgname ("timeslice");
  if (no_cache)
    tsl_cache_set_enabled (FALSE);
  if (!ok)
    {
      tsl_cli_fail (TSL_EXIT_USAGE, "%s: %s (see “timeslice %s --help”)",
                    command, error->message, command);
      return FALSE;
    }

  /* GOptionContext leaves the "--" that ends the options in argv: drop it,
   * so `info -- -dash.json` names the file -dash.json. */
  for (int i = 1; i < *argc; i++)
    {
      if (g_str_equal ((*argv)[i], "--"))
        {
          memmove (&(*argv)[i], &(*argv)[i + 1], (gsize) (*argc - i) * sizeof (char *));
          (*argc)--;
          break;
        }
    }

  if (!check_outputs (entries, *argc, *argv, &error))
    {
      tsl_cli_fail (TSL_EXIT_USAGE, "%s: %s", command, error->message);
      return FALSE;
    }

  return TRUE;
}

int
tsl_cli_fail (int         status,
              const char *format,
              ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  fprintf (stderr, "timeslice: %s\n", message);
  return status;
}

GOutputStream *
tsl_cli_open_output (const char  *path,
                     GError     **error)
{
  g_autoptr(GFile) file = NULL;

  if (path == NULL || g_str_equal (path, "-"))
    return g_unix_output_stream_new (STDOUT_FILENO, FALSE);

  /* A path, even with a colon: "out:1.csv" is no URI. A regular file is
   * renamed into place on close, so a failed run never leaves a half-written
   * file or damages an existing one; /dev/null or a FIFO is written through. */
  file = g_file_new_for_path (path);
  return tsl_atomic_output_stream_new (file, NULL, error);
}

TslTrace *
tsl_cli_load (const char      *path,
              TslSamplerMode   mode,
              guint            k,
              guint64          seed,
              GError         **error)
{
  g_autoptr(TslTrace) trace = tsl_trace_new (mode, k, seed);

  tsl_trace_set_budget (trace, tsl_cli_get_budget ());
  if (!tsl_read_path (trace, path, NULL, NULL, NULL, error))
    return NULL;

  return g_steal_pointer (&trace);
}

TslTrace *
tsl_cli_load_span (const char      *path,
                   TslSamplerMode   mode,
                   guint            k,
                   guint64          seed,
                   gboolean        *from_index,
                   GError         **error)
{
  gint64 start, end;

  if (from_index != NULL)
    *from_index = FALSE;
  if (tsl_chunk_index_get_file_span (path, &start, &end))
    {
      g_autoptr(TslTrace) trace = tsl_trace_new (mode, k, seed);

      tsl_trace_set_budget (trace, tsl_cli_get_budget ());
      tsl_trace_note_time (trace, start);
      tsl_trace_note_time (trace, end);
      if (from_index != NULL)
        *from_index = TRUE;
      return g_steal_pointer (&trace);
    }
  return tsl_cli_load (path, mode, k, seed, error);
}

gboolean
tsl_cli_check_k (const char *command,
                 int         k)
{
  if (k >= 1 && k <= TSL_CLI_MAX_K)
    return TRUE;

  tsl_cli_fail (TSL_EXIT_USAGE, "%s: --k must be between 1 and %d, not %d", command, TSL_CLI_MAX_K, k);
  return FALSE;
}

gboolean
tsl_cli_resolve_range (const char *command,
                       const char *option,
                       const char *text,
                       gint64      span_ns,
                       gint64     *start_ns,
                       gint64     *end_ns)
{
  g_autoptr(GError) error = NULL;
  TslRangeSpec spec;
  TslRangeFit fit;

  if (!tsl_range_spec_parse (text, &spec, &error))
    {
      tsl_cli_fail (TSL_EXIT_USAGE, "%s: %s", command, error->message);
      return FALSE;
    }
  fit = tsl_range_spec_fit (&spec, span_ns, start_ns, end_ns);
  if (fit == TSL_RANGE_OUTSIDE)
    {
      g_autofree char *span = tsl_duration_format ((double) span_ns);

      tsl_cli_fail (TSL_EXIT_USAGE, "%s: %s %s holds no data: it starts after the end of the trace "
                    "(its span is 0..%s)", command, option, text, span);
      return FALSE;
    }

  if (fit == TSL_RANGE_CLIPPED)
    {
      g_autofree char *span = tsl_duration_format ((double) span_ns);

      tsl_cli_fail (0, "warning: %s %s ends after the trace; clipped to its span (0..%s)", option, text, span);
    }

  return TRUE;
}

gboolean
tsl_cli_parse_seed (const char *text,
                    guint64    *seed)
{
  char *end = NULL;

  if (text == NULL || *text == '\0' || *text == '-')
    return FALSE;

  errno = 0;
  /* Base 0 accepts decimal and 0x-prefixed hexadecimal. */
  *seed = g_ascii_strtoull (text, &end, 0);
  return errno == 0 && end != text && *end == '\0';
}

char *
tsl_cli_printable (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c >= 0x80 && c < 0xa0)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}
