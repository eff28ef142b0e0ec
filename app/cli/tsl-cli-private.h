/* tsl-cli-private.h: shared by the subcommand files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "tsl-cli.h"
#include "tsl-export.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

typedef int (*TslCliCommandFunc) (int argc, char **argv);

/* Every command's defaults: K as in the window, so `info` counts the samples
 * it shows; any fixed seed keeps runs reproducible, this one is memorable. */
#define TSL_CLI_DEFAULT_K    2000
#define TSL_CLI_DEFAULT_SEED G_GUINT64_CONSTANT (0x5EED)

typedef struct {
  const char        *name;
  const char        *synopsis;  /* shown by --help */
  TslCliCommandFunc  run;
} TslCliCommand;

/* Parses argv with `entries`; on a usage error prints it and returns FALSE.
 * `parameter` is e.g. "FILE". A FILENAME option is an output and must not
 * name an operand or a FILENAME_ARRAY option's file (the inputs). */
gboolean          tsl_cli_parse_options         (const char          *command,
                                                 const char          *parameter,
                                                 const char          *summary,
                                                 const GOptionEntry  *entries,
                                                 int                 *argc,
                                                 char              ***argv);
/* Prints "timeslice: MESSAGE" on stderr; returns `status`. */
int               tsl_cli_fail                  (int                  status,
                                                 const char          *format,
                                                 ...) G_GNUC_PRINTF (2, 3);
/* Opens OUT for writing ("-" or NULL is stdout); replaces atomically. */
GOutputStream    *tsl_cli_open_output           (const char          *path,
                                                 GError             **error);
/* The memory budget every trace of the process shares (set by the options). */
TslBudget        *tsl_cli_get_budget            (void);
/* Reads PATH ("-" is stdin) into a new trace. */
TslTrace         *tsl_cli_load                  (const char          *path,
                                                 TslSamplerMode       mode,
                                                 guint                k,
                                                 guint64              seed,
                                                 GError             **error);
/* A trace that knows only `path`'s span when a chunk index of the file is
 * known (this process or the cache: no read at all), else tsl_cli_load().
 * `from_index` (nullable) says which. */
TslTrace         *tsl_cli_load_span             (const char          *path,
                                                 TslSamplerMode       mode,
                                                 guint                k,
                                                 guint64              seed,
                                                 gboolean            *from_index,
                                                 GError             **error);
/* The largest --k: a track keeps up to 2K + 1 samples of 80 bytes. */
#define TSL_CLI_MAX_K 1000000

/* The one check of --k for every subcommand: FALSE, with the message
 * printed, when `k` is outside 1..TSL_CLI_MAX_K (exit TSL_EXIT_USAGE). */
gboolean          tsl_cli_check_k               (const char          *command,
                                                 int                  k);
/* Resolves the range `text` of `option` (--a, --b) against a trace whose
 * events lie at 0..span_ns from its start; "…..100%" holds the last event.
 * A range partly after the end is clipped with a warning on stderr; one
 * holding no data prints the error and returns FALSE (exit TSL_EXIT_USAGE). */
gboolean          tsl_cli_resolve_range         (const char          *command,
                                                 const char          *option,
                                                 const char          *text,
                                                 gint64               span_ns,
                                                 gint64              *start_ns,
                                                 gint64              *end_ns);
/* `text` for a terminal: control characters (C0, DEL, C1), which could
 * recolour it or break a table's line, become \n, \r, \t, \xHH or \uHHHH;
 * invalid UTF-8 becomes U+FFFD. */
char             *tsl_cli_printable             (const char          *text);
/* Decimal or 0x-prefixed hexadecimal, as --seed takes it. */
gboolean          tsl_cli_parse_seed            (const char          *text,
                                                 guint64             *seed);

int               tsl_cli_info                  (int                  argc,
                                                 char               **argv);
int               tsl_cli_sample                (int                  argc,
                                                 char               **argv);
int               tsl_cli_merge                 (int                  argc,
                                                 char               **argv);
int               tsl_cli_compare               (int                  argc,
                                                 char               **argv);
int               tsl_cli_changes               (int                  argc,
                                                 char               **argv);
int               tsl_cli_export                (int                  argc,
                                                 char               **argv);
/* `export -o OUT.csv --a A --b B`: the compare table, as `compare` writes it. */
int               tsl_cli_export_compare        (const char          *path,
                                                 const char          *range_a,
                                                 const char          *range_b,
                                                 guint                k,
                                                 const char          *output);

/* `export --merge FILE FILE…` (tsl-cli-export-merge.c). */
typedef struct {
  char           **paths;
  guint            n_paths;
  char           **offsets;     /* (nullable) FILE=DURATION */
  const char      *output;
  TslExportFormat  format;
  const char      *range_a;     /* (nullable) of the merged axis */
  const char      *range_b;
  gboolean         dark;
  int              width;
  int              height;      /* 0: tall enough */
  int              max_side;
  guint            k;
} TslCliMergeOptions;

int               tsl_cli_export_merged         (const TslCliMergeOptions *options);
/* Each --offset spec's ns into offsets[i] of the path it names (as given,
 * or its base name); an unknown file is an error. */
gboolean          tsl_cli_match_offsets         (const char * const  *specs,
                                                 const char * const  *paths,
                                                 guint                n,
                                                 gint64              *offsets,
                                                 GError             **error);

/* `export --flamegraph` and `export -o OUT.folded` (tsl-cli-flame.c). */
typedef struct {
  const char  *path;
  const char  *output;
  const char  *range_a;       /* (nullable) */
  const char  *range_b;       /* (nullable) */
  char       **threads;       /* (nullable) thread names; none: every thread */
  gboolean     per_thread;    /* one top frame per thread instead of merging */
  const char  *weight;        /* auto, samples or time; NULL is auto */
  gboolean     folded;        /* collapsed stacks instead of a picture or CSV */
  gboolean     icicle;
  gboolean     dark;
  int          width;
  int          height;        /* 0: tall enough for every level */
  guint        k;
  guint        rounds;
  double       confidence;
  guint64      seed;
} TslCliFlameOptions;

int               tsl_cli_export_flame          (const TslCliFlameOptions *options);

/* `export --view START..END [--tracks PATTERN]` (tsl-cli-view.c). */
typedef struct {
  const char  *path;
  const char  *output;
  const char  *view;
  const char  *tracks;        /* (nullable) glob on track names, CSV only */
  int          format;        /* TslExportFormat */
  gboolean     dark;
  int          width;
  int          height;        /* 0: tall enough for every track */
  guint        k;
  guint64      seed;
  gboolean     flows;         /* OUT.csv lists the flow arrows, not the slices */
} TslCliViewOptions;

/* Parses and resolves --view for a span; an empty view is an error. */
gboolean          tsl_cli_resolve_view          (const char          *text,
                                                 gint64               span_ns,
                                                 gint64              *start_ns,
                                                 gint64              *end_ns,
                                                 GError             **error);
int               tsl_cli_export_view           (const TslCliViewOptions *options);

/* `export --report -o OUT.pdf|OUT.html` (tsl-cli-report.c). */
typedef struct {
  const char  *path;
  const char  *output;
  const char  *range_a;       /* (nullable) default 0%..50% */
  const char  *range_b;       /* (nullable) default 50%..100% */
  const char  *table;         /* (nullable) also write the compare CSV here */
  guint        top;           /* rows in the table */
  guint        k;
  guint        rounds;
  double       confidence;
  guint64      seed;
} TslCliReportOptions;

int               tsl_cli_export_report         (const TslCliReportOptions *options);

G_END_DECLS
