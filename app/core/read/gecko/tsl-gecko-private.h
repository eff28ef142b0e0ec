/* tsl-gecko-private.h: the Firefox Profiler format reader's shared state
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's state (TslGecko) and what the files of this folder call of
 * each other: tsl-gecko-reader.c (the format and the walk down the
 * document), tsl-gecko-thread.c (a thread's tables, rows and columns, and
 * its samples and markers placed on tracks at its end; they wait in
 * spools, tsl-spool.c, until then).
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-ahead.h"
#include "tsl-spool.h"

G_BEGIN_DECLS

/* Times are kept within ±2^62 ns (±146 years), as the V8 reader keeps them. */
#define TSL_GECKO_TIME_LIMIT (G_MAXINT64 / 2)
/* A cell that is null or absent. */
#define TSL_GECKO_NULL G_MININT64
/* Warnings that name a position, per kind; past these only a count. */
#define TSL_GECKO_POS_WARNINGS 10
/* Nesting of objects and arrays the walk follows (processes in processes
 * add two levels each); deeper values are skipped. */
#define TSL_GECKO_MAX_LEVELS 40

/* Weights and CPU deltas are spooled as a double's bits. */
static inline gint64
tsl_gecko_double_bits (double v)
{
  gint64 bits;

  memcpy (&bits, &v, sizeof bits);
  return bits;
}

static inline double
tsl_gecko_bits_double (gint64 bits)
{
  double v;

  memcpy (&v, &bits, sizeof v);
  return v;
}

/* The hot case of an integer cell, a stack index or a CPU delta: up to 18
 * plain digits, without the general number parser. */
static inline gboolean
tsl_gecko_small_int (const TslJsonValue *value,
                     gint64             *out)
{
  const char *p, *end;
  gint64 v = 0;

  /* An absent cell has no text at all (p is NULL). */
  if (value->type != TSL_JSON_NUMBER || value->len == 0 || value->len > 18)
    return FALSE;
  p = value->p;
  end = p + value->len;
  for (; p < end; p++)
    {
      guint d = (guchar) *p - '0';

      if (d >= 10)
        return FALSE;
      v = v * 10 + d;
    }
  *out = v;
  return TRUE;
}

/* The hot case of a time cell, "12345.678901" ms: ns in integers, exactly,
 * without a double (a third of the reading's time went to parsing
 * doubles), not yet clamped. FALSE for any other form. */
static inline gboolean
tsl_gecko_fast_ms (const TslJsonValue *value,
                   gint64             *ns)
{
  static const gint64 scale[7] = { 1000000, 100000, 10000, 1000, 100, 10, 1 };
  const char *p, *end, *whole_end, *frac_end;
  gint64 whole = 0, frac = 0;
  int digits;

  if (value->type != TSL_JSON_NUMBER || value->len > 19)
    return FALSE;
  p = value->p;
  end = p + value->len;
  /* At most 12 digits before the point: whole * 10^6 stays in range; at
   * most 6 after it. */
  whole_end = MIN (end, p + 12);
  while (p < whole_end && (guchar) (*p - '0') < 10)
    whole = whole * 10 + (*p++ - '0');
  if (p > value->p && p < end && *p == '.')
    {
      const char *frac_start = ++p;

      for (frac_end = MIN (end, p + 6); p < frac_end && (guchar) (*p - '0') < 10; p++)
        frac = frac * 10 + (*p - '0');
      digits = p - frac_start;
    }
  else
    digits = 0;
  if (p != end || p[-1] == '.')
    return FALSE;
  *ns = whole * 1000000 + frac * scale[digits];
  return TRUE;
}

/* A sample's stack cell as spooled: -1 for none. */
static inline gint64
tsl_gecko_stack_value (gint64 v)
{
  return v == TSL_GECKO_NULL || v < 0 ? -1 : v;
}

/* The tables of a thread (and a counter's samples). */
typedef enum {
  TBL_NONE,
  TBL_SAMPLES,
  TBL_MARKERS,
  TBL_STACKS,
  TBL_FRAMES,
  TBL_FUNCS,
  TBL_COUNTER,
  N_TABLES,
} TableKind;

/* The columns read; the rest of a row is passed over. */
typedef enum {
  COL_NONE = -1,
  COL_STACK,
  COL_TIME,
  COL_TIME_DELTA,
  COL_WEIGHT,
  COL_CPU,
  COL_NAME,
  COL_START,
  COL_END,
  COL_PHASE,
  COL_PREFIX,
  COL_FRAME,
  COL_LOCATION,
  COL_FUNC,
  COL_COUNT,
  N_COLS,
} Column;

/* The most cells of a row that are looked at (the schema's positions). */
#define TSL_GECKO_ROW_CELLS 16

typedef enum {
  WARN_PREFIX,       /* a stack's prefix that does not come before it */
  WARN_INDEX,        /* an index past its table */
  WARN_TIME,         /* time that goes back */
  WARN_VALUE,        /* a cell of the wrong type */
  WARN_MARKER,       /* a marker that ends before it starts */
  N_WARN_KINDS,
} WarnKind;

typedef struct {
  guint          index;       /* in the document's order, from 0 */
  char          *name;
  char          *process_name;
  gint64         pid;
  gint64         tid;
  gboolean       have_pid;
  gboolean       have_tid;
  gint64         offset_ns;   /* its process's start after the first's */

  /* Positions of columns in a row (gecko "schema"), per table; -1: absent. */
  gint8          schema[N_TABLES][N_COLS];
  /* Cells pushed per column (processed tables are column arrays). */
  guint64        n_col[N_TABLES][N_COLS];
  gint64         last_time[N_TABLES];    /* for "time": the one before, ns */
  Column         time_col[N_TABLES];     /* "time" or "timeDeltas", the first seen */

  TslSpool  s_stack, s_time, s_cpu, s_weight;
  gboolean       has_cpu, has_weight;
  double         weight_factor;
  TslSpool  m_name, m_start, m_end, m_phase;
  gboolean       has_phase;

  GArray        *prefix;      /* gint32 per stack; -1: a root */
  GArray        *frame;       /* gint32 per stack */
  GArray        *location;    /* gint32 string per frame (Gecko) */
  GArray        *func;        /* gint32 function per frame (processed) */
  GArray        *func_name;   /* gint32 string per function */
  GArray        *strings;     /* guint32 interned; NULL: none of its own */
} TslGeckoThread;

typedef struct {
  char          *name;
  char          *category;
  gint64         pid;
  gboolean       have_pid;
  gint64         main_thread;  /* index in its process's threads, or -1 */
  gint64         offset_ns;
  gint8          schema[N_COLS];
  Column         time_col;
  gint64         last_time;
  guint          n_time;      /* cells of its time column */
  guint          n_count;     /* of its "count" */
  GArray        *points;      /* CounterPoint */
} TslGeckoCounter;

typedef struct {
  gint64   time_ns;
  double   count;
  gboolean has_time;
  gboolean has_count;
} CounterPoint;

typedef enum {
  CTX_DOC,        /* before the top-level '{' */
  CTX_PROFILE,    /* the document, or an element of "processes" */
  CTX_META,
  CTX_THREADS,
  CTX_THREAD,
  CTX_TABLE,      /* "samples", "markers", "stackTable", ... */
  CTX_ROWS,       /* a Gecko table's "data" */
  CTX_COLUMN,     /* a processed table's column */
  CTX_STRINGS,    /* "stringTable", "stringArray" */
  CTX_PROCESSES,
  CTX_COUNTERS,
  CTX_COUNTER,
  CTX_SHARED,
  CTX_AFTER,      /* after the document, or after damage */
} Ctx;

typedef struct {
  Ctx       ctx;
  guint8    is_array;
  guint8    first;
  guint8    table;      /* TableKind of CTX_TABLE / ROWS / COLUMN */
  gint8     column;     /* Column of CTX_COLUMN */
  gint64    offset_ns;  /* CTX_PROFILE: its start after the first profile's */
  guint     first_thread; /* CTX_PROFILE: index of its first thread */
  GPtrArray *counters;  /* CTX_PROFILE: TslGeckoCounter, placed at its end */
} Level;

/* A spooled sample popped, its time summed: what placing it takes. */
typedef struct {
  gint64   stack;
  gint64   at;       /* ns, not yet clamped */
  double   weight;
  gint64   cpu;      /* the CPU delta's bits; cpu_ok: one to place */
  guint8   cpu_ok;
  guint8   first;
} TslGeckoPlaced;

typedef struct _TslGeckoPlace TslGeckoPlace;

typedef struct {
  TslTrace          *trace;
  TslReaderContext  *ctx;
  const guint8      *buf;       /* of the current parse() call */
  GString           *scratch;
  GString           *label;
  GArray            *path;      /* scratch: a stack's frames, leaf first */

  Level              levels[TSL_GECKO_MAX_LEVELS];
  guint              depth;
  TslJsonSkip        skip;
  gboolean           skipping;

  gboolean           have_root_start;
  double             root_start_ms;
  gboolean           cpu_is_ns;      /* meta.sampleUnits.threadCPUDelta */
  gboolean           cpu_is_time;

  TslGeckoThread    *thread;         /* being read */
  TslGeckoCounter   *counter;        /* being read */
  guint              n_threads;
  GPtrArray         *pending;        /* threads that wait for shared strings */
  GArray            *shared_strings; /* guint32 interned; NULL until read */
  GArray            *reading_strings;/* the array being read */
  GHashTable        *thread_pids;    /* thread index → pid, for counters */

  guint32            unknown_frame;
  guint64            n_events;
  gboolean           clamped;
  guint64            warned[N_WARN_KINDS];
  TslScanAhead      *ahead;          /* rows scanned on a second thread */
  /* A thread whose samples are placed in slices while the next one's rows
   * are scanned (tsl-gecko-place.c); placing_now: in such a slice. */
  TslGeckoPlace     *placing;
  gboolean           placing_now;
  gboolean           in_rows;        /* a job of rows is under way */
  gboolean           rows_ahead;     /* the last buffer's rows went ahead */
  guint64            n_placed_early; /* samples placed in such slices */
  guint64            n_popped_ahead; /* samples popped on the second thread */
} TslGecko;

/* tsl-gecko-reader.c */
gboolean tsl_gecko_may_warn (TslGecko   *self,
                             WarnKind    kind);
/* A warning about the byte at buf + offset of the current parse() call. */
void     tsl_gecko_warn_at  (TslGecko   *self,
                             gsize       offset,
                             const char *format,
                             ...) G_GNUC_PRINTF (3, 4);
gint64   tsl_gecko_clamp    (TslGecko   *self,
                             gint64      ns);

/* The innermost profile level: the process a thread or counter is in. */
Level   *tsl_gecko_profile_level (TslGecko *self);

/* tsl-gecko-ahead.c */

/* Rows of the table at `level` (CTX_ROWS) from p, scanned on a second
 * thread and read here when the reader may use one and enough of the
 * buffer is left; returns where the walk goes on (p when nothing was
 * done). */
const char *tsl_gecko_rows_ahead (TslGecko   *self,
                                  Level      *level,
                                  const char *p,
                                  const char *end);

/* The rest of pl's samples popped on the second thread and placed here,
 * when the last rows went ahead and no job is under way; FALSE (nothing
 * done) otherwise. */
gboolean    tsl_gecko_place_ahead (TslGecko      *self,
                                   TslGeckoPlace *pl);

/* tsl-gecko-members.c */

typedef enum {
  ACT_SKIP,
  ACT_VALUE,     /* scanned whole, then read */
  ACT_DESCEND,   /* an object or array whose members are walked */
} Action;

/* What the member `key` of an object at `level` is to the walk: for
 * ACT_DESCEND, the level it opens (and its table and column). */
Action   tsl_gecko_member_action (TslGecko           *self,
                                  Level              *level,
                                  const TslJsonValue *key,
                                  Ctx                *child,
                                  TableKind          *table,
                                  Column             *column);
/* A member read whole (ACT_VALUE) of the object at `level`, at buf + offset. */
void     tsl_gecko_member_value  (TslGecko           *self,
                                  Level              *level,
                                  const TslJsonValue *key,
                                  const TslJsonValue *value,
                                  gsize               offset);
/* The row positions of a table of the thread or counter being read. */
gint8   *tsl_gecko_schema_of     (TslGecko           *self,
                                  TableKind           table);

/* tsl-gecko-thread.c */
TslGeckoThread *tsl_gecko_thread_new     (TslGecko       *self,
                                          gint64          offset_ns);
void            tsl_gecko_thread_free    (TslGeckoThread *th);
/* Column of a member of a table of this kind, COL_NONE if not read. */
Column          tsl_gecko_column_for     (TableKind       table,
                                          const TslJsonValue *name);
/* A table's "schema" object: row positions of its columns. */
void            tsl_gecko_set_schema     (gint8          *schema,
                                          TableKind       table,
                                          const TslJsonValue *value);
/* One cell of a table (a row's, or an element of a column), at buf + offset. */
void            tsl_gecko_cell           (TslGecko       *self,
                                          TableKind       table,
                                          Column          column,
                                          const TslJsonValue *value,
                                          gsize           offset);
/* A sample's time cell read already: cell_time()'s value, clamped (or
 * TSL_GECKO_NULL). */
void            tsl_gecko_sample_time    (TslGecko       *self,
                                          Column          column,
                                          gint64          ns,
                                          gsize           offset);
/* The end of a row of a Gecko table whose cells at the positions in the
 * bit mask `got` were read: cells of absent columns count as null. */
void            tsl_gecko_row_end        (TslGecko       *self,
                                          TableKind       table,
                                          guint32         got,
                                          gsize           offset);
/* tsl-gecko-place.c */

/* The thread's end (its '}' at buf + offset): placed on tracks, or kept
 * for shared strings still to come. Takes th. */
void            tsl_gecko_thread_end     (TslGecko       *self,
                                          TslGeckoThread *th,
                                          gsize           offset);
/* Some more samples of the thread being placed (in the time the reading
 * thread would wait for the next rows); FALSE when none are left. */
gboolean        tsl_gecko_place_some     (TslGecko       *self);
/* Places the rest of that thread: before anything else touches the trace,
 * so it sees the calls one thread makes, in its order. */
void            tsl_gecko_settle         (TslGecko       *self);
/* The next sample of pl: FALSE when none is left. Touches only pl's
 * spools and its running time (the decoding thread may call it). */
gboolean        tsl_gecko_place_pop      (TslGeckoPlace  *pl,
                                          TslGeckoPlaced *s);
/* Places a popped sample (the reading thread). */
void            tsl_gecko_place_apply    (TslGeckoPlace  *pl,
                                          const TslGeckoPlaced *s);
/* Samples of pl still spooled. */
guint64         tsl_gecko_place_left     (TslGeckoPlace  *pl);
/* Drops that thread unplaced (the reading stops). */
void            tsl_gecko_place_drop     (TslGecko       *self);
/* Places what waited for shared strings (at the end of the input: with
 * none, its names are unknown). */
void            tsl_gecko_flush_pending  (TslGecko       *self);
/* A counter's samples placed on its track. */
void            tsl_gecko_counter_place  (TslGecko       *self,
                                          TslGeckoCounter *c,
                                          gint64          pid);
void            tsl_gecko_counter_free   (TslGeckoCounter *c);

G_END_DECLS
