/* tsl-cli.h: the headless subcommands (info, sample, compare, export)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit statuses, docs/ARCHITECTURE.md, "Errors, warnings and exit statuses". */
#define TSL_EXIT_OK    0
#define TSL_EXIT_INPUT 1
#define TSL_EXIT_USAGE 2

gboolean          tsl_cli_is_command            (const char  *name);
/* TRUE when argv[1] is meant for the command line: a known command, or a
 * word such as "frobnicate" that names no file (an unknown command, exit 2,
 * rather than a window that may have no display to open). */
gboolean          tsl_cli_claims_argument       (const char  *arg);
/* argv[1] is the command. Returns the exit status. */
int               tsl_cli_run                   (int          argc,
                                                 char       **argv);
/* --offset FILE=DURATION (a duration may be negative), for the window's
 * and export's --merge: the file as given and the offset in ns. */
gboolean          tsl_cli_parse_offset          (const char  *spec,
                                                 char       **file,
                                                 gint64      *ns,
                                                 GError     **error);
/* (transfer full): one line per command, for `timeslice --help`. */
char             *tsl_cli_describe_commands     (void);

/* Locale, message catalogue, one malloc arena, and the removal of an
 * export's temporary file on SIGINT/SIGTERM: first thing in main(). */
void              tsl_cli_init_process          (void);
/* Replaces the process with the window's executable (timeslice-gui), argv
 * unchanged. Returns only on failure, with a message and exit status 1. */
int               tsl_cli_exec_window           (int          argc,
                                                 char       **argv);

G_END_DECLS
