/* tsl-chrome-reader-types.h: TslChrome's fields, shared by the reader's two files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Chrome JSON format's state is shared by two files:
 * tsl-chrome-reader.c (the TslFormat glue, the event lists on one, two or
 * every core, the chunk index's hooks) and tsl-chrome-document.c (the
 * top-level object: its members, stackFrames, held samples, the
 * document's end).
 */
#pragma once

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-chrome-private.h"
#include "tsl-chrome-pipe.h"
#include "tsl-chrome-parallel.h"
#include "tsl-scan-pool.h"

G_BEGIN_DECLS

typedef enum {
  ST_START,
  ST_OBJECT,         /* top-level object: before a member name or '}' */
  ST_OBJECT_NEXT,    /* after a member: ',' or '}' */
  ST_EVENTS,         /* inside traceEvents, the top-level array or samples */
  ST_FRAMES,         /* inside stackFrames */
  ST_SKIP,           /* a top-level member we do not need, however large */
  ST_HOLD_SAMPLES,   /* a samples array that came before stackFrames */
  ST_DONE,
} State;

typedef enum {
  STEP_CONTINUE,
  STEP_NEED_MORE,
  STEP_ERROR,
} Step;

struct _TslChrome {
  TslChromeModel    model;
  TslReaderContext *ctx;

  State             state;
  gboolean          list_is_samples;
  gboolean          object_form;
  gboolean          need_separator;
  gboolean          saw_events;
  gboolean          warned_trailing;
  gboolean          had_samples;    /* a "samples" list: no chunk index */
  TslJsonSkip       skip;
  GByteArray       *held_samples;
  guint64           n_events;
  guint64           event_bytes;
  TslChromeShape    shape;          /* this thread's scanner's */
  TslChromePipe    *pipe;
  double            split_share;    /* of a big buffer, scanned by the worker */
  guint             contended;      /* split calls in a row that mostly waited */
  gint64            balanced_at;    /* µs, the end of the last split call */
  gint64            idle_all_us;    /* the worker's, since then */
  guint64           pipe_resume_at; /* event_bytes from which to use the pipe again */
  /* Scanning on every core (a regular file): instead of the pipe. NULL
   * when the read stays off it. */
  TslScanCutter     *cutter;
  TslChromeScanners *scanners;
  GArray            *rescan;        /* TslChromeEvent, after a wrong guess */
  guint64           n_segments;
  guint64           n_wrong;        /* segments that did not start at an event */
};

typedef struct _TslChrome TslChrome;

/* tsl-chrome-document.c: the parse steps of the top-level structure. */
Step              _tsl_chrome_parse_member      (TslChrome        *self,
                                                 const char       *buf,
                                                 const char      **pp,
                                                 const char       *end,
                                                 GError          **error);
Step              _tsl_chrome_parse_frames      (TslChrome        *self,
                                                 const char       *buf,
                                                 const char      **pp,
                                                 const char       *end,
                                                 gboolean          at_eof,
                                                 GError          **error);
/* A samples array that arrived before stackFrames, read now. */
void              _tsl_chrome_flush_held_samples (TslChrome       *self);
/* The end of the input: what the document left open is warned about. */
void              _tsl_chrome_finish            (TslChrome        *self);

G_END_DECLS
