/* tsl-chrome-private.h: Chrome trace events into a TslTrace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tokenizer side of the Chrome reader (tsl-chrome-reader.c) hands each
 * scanned event to this model, which keeps the per-thread stacks of open
 * spans, the counter and async tracks and the stackFrames table, and feeds
 * the trace's samplers.
 */
#pragma once

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

/* The members of one event that routing needs; slices of the input. */
typedef struct {
  TslJsonValue ph;
  TslJsonValue ts;
  TslJsonValue dur;
  TslJsonValue pid;
  TslJsonValue tid;
  TslJsonValue name;
  TslJsonValue cat;
  TslJsonValue id;
  TslJsonValue id2;
  TslJsonValue scope;
  TslJsonValue args;
  TslJsonValue sf;
  TslJsonValue stack;
  TslJsonValue bind_id;   /* flow v2: the rare members beside it (flow_in,
                           * flow_out, bp) are found by a second look */
  TslJsonValue tdur;      /* thread (CPU) time: an X's, and a B's or E's clock */
  TslJsonValue tts;
  /* The event's '{' in the buffer, for TslChromeModel.offset_buf, and the
   * byte after its '}'; the size stays a multiple of 16 for clear_event(). */
  const char  *start;
  const char  *stop;
} TslChromeEvent;

/* Recent names by their bytes: interning is a hash lookup plus a copy,
 * and every B/X event needs its name. */
#define TSL_CHROME_NAME_CACHE     1024
#define TSL_CHROME_NAME_CACHE_LEN 59

typedef struct {
  guint32 id;
  guint8  len;
  char    text[TSL_CHROME_NAME_CACHE_LEN];
} TslChromeName;

/* A "pid" or "tid" as written: runs of events mostly repeat the last. */
#define TSL_CHROME_RAW_ID_LEN 22

typedef struct {
  guint8  type;
  guint8  len;
  char    text[TSL_CHROME_RAW_ID_LEN];
} TslChromeRawId;

typedef struct _TslChromeProfiles TslChromeProfiles;

typedef struct {
  TslTrace   *trace;
  TslReaderContext *ctx;      /* for warnings' positions; may be NULL */

  TslChromeRawId last_pid_raw;  /* the last event's ids, when they fit */
  TslChromeRawId last_tid_raw;
  gint64      last_pid;
  gint64      last_tid;
  gboolean    have_last_ids;

  GHashTable *threads;        /* (pid, tid) → Thread */
  gpointer    last_thread;
  gpointer    folded_thread;  /* the Thread of every (pid, tid) the budget folded */
  GHashTable *tid_pids;       /* tid → pid, for samples without a pid */
  GHashTable *string_ids;     /* non-numeric pid/tid strings → synthetic ids */
  GHashTable *counters;       /* CounterKey → track */
  GHashTable *async_tracks;   /* (pid, cat or name) → track */
  GHashTable *async_open;     /* (category, name, id) → TslChromeAsync */
  GHashTable *async_ends;     /* ends seen before their begin */
  guint64     async_serial;   /* the last entry's (tsl-chrome-async.c) */
  guint64     async_saved;    /* entries up to this one were saved */
  GArray     *async_gone;     /* serials of saved entries gone since */
  GPtrArray  *async_new;      /* TslChromeAsync * above async_saved (dead:
                               * gone before a checkpoint saved it) */
  gboolean    async_listing;  /* async_new is kept: checkpoints are made */
  GHashTable *frames;         /* stackFrames id → Frame */
  GHashTable *frame_labels;   /* stackFrames id → interned stack label */
  gboolean    frames_done;
  TslChromeProfiles *profiles; /* Profile/ProfileChunk events (tsl-chrome-profile.c);
                                * NULL until the first */

  /* When the trace wants event offsets: the current buffer and its input
   * offset (set by the reader before each parse call's first event). */
  gboolean    want_offsets;
  gboolean    want_cpu;       /* tsl_trace_wants_cpu(): tdur and tts are read */
  const char *offset_buf;
  gint64      offset_base;

  /* Flow endpoints of 's'/'t'/'f' events while the trace wants flows:
   * their thread may have no track yet (Chrome writes an 'X' after the
   * flow events inside it), so they are recorded at the end. */
  GArray     *pending_flows;
  guint64     flows_dropped;

  guint32     unnamed;
  TslChromeName *names;       /* TSL_CHROME_NAME_CACHE entries */
  GString    *scratch;
  GString    *label;
  GString    *key;
} TslChromeModel;

/* A pending async span: a begin waiting for its end, or an end seen first. */
typedef struct {
  gint64      start_ns;
  guint       track;
  guint32     name;
  guint64     serial;   /* rising: the order of a whole read, kept by range reads */
  const char *key;      /* its table's key */
  gboolean    ends;     /* in async_ends, not async_open */
  gboolean    dead;     /* out of its table, freed at the next checkpoint */
} TslChromeAsync;

/* tsl-chrome-async.c: entries in and out of async_open and async_ends. */
void              tsl_chrome_async_remember     (TslChromeModel       *self,
                                                 GHashTable           *table,
                                                 const char           *key,
                                                 gint64                ts,
                                                 guint                 track,
                                                 guint32               name);
void              tsl_chrome_async_forget       (TslChromeModel       *self,
                                                 GHashTable           *table,
                                                 const char           *key);
/* A table's entries by serial. (transfer container) */
GPtrArray        *tsl_chrome_async_sorted       (GHashTable           *table);
/* Frees what async_new holds of entries gone: before the tables let go of
 * theirs (finish, restore, clear). */
void              tsl_chrome_async_drop_new     (TslChromeModel       *self);
/* A checkpoint's records (tsl-chunk-records.h): the entries gone and new
 * since the last. */
gboolean          tsl_chrome_async_save         (TslChromeModel       *self,
                                                 GByteArray           *saved);
/* Every entry of a checkpoint, as the chunk index gives them back. */
gboolean          tsl_chrome_async_restore      (TslChromeModel       *self,
                                                 const guint8         *records,
                                                 gsize                 len);

void              tsl_chrome_model_init         (TslChromeModel       *self,
                                                 TslTrace             *trace);
void              tsl_chrome_model_clear        (TslChromeModel       *self);
/* One entry of traceEvents (or of the top-level array). */
void              tsl_chrome_model_event        (TslChromeModel       *self,
                                                 const TslChromeEvent *ev);
/* One entry of the top-level "samples" array. */
void              tsl_chrome_model_sample       (TslChromeModel       *self,
                                                 const TslChromeEvent *ev);
void              tsl_chrome_model_add_frame    (TslChromeModel       *self,
                                                 const TslJsonValue   *id,
                                                 const TslJsonValue   *frame);
void              tsl_chrome_model_frames_done  (TslChromeModel       *self);
gboolean          tsl_chrome_model_has_frames   (TslChromeModel       *self);
/* End of input: closes open spans. */
void              tsl_chrome_model_finish       (TslChromeModel       *self);
/* For a chunk index: appends the spans open on each thread (the state's
 * own part, FALSE past max_len bytes) and the async entries gone and new
 * since the last checkpoint (its records, tsl-chunk-records.h). */
gboolean          tsl_chrome_model_save         (TslChromeModel       *self,
                                                 GByteArray           *saved,
                                                 gsize                 max_len);
/* Replaces the open spans and pending async entries with those saved
 * (own part and records); FALSE if they cannot be. */
gboolean          tsl_chrome_model_restore      (TslChromeModel       *self,
                                                 const guint8         *saved,
                                                 gsize                 len);

/* The bytes from one member's value to the next one's (separator, key,
 * colon) at each member position of recent events, and the slot they lead
 * to: a thread's scanner state (tsl_chrome_scan_event()). Zeroed: empty. */
#define TSL_CHROME_SHAPE_MEMBERS 16
#define TSL_CHROME_SHAPE_WAYS    2

typedef struct {
  char    bytes[16];
  guint16 mask;       /* of the bytes that must match; 0: unused */
  guint8  len;
  guint8  slot;       /* index into TslChromeEvent, as TslJsonValues */
} TslChromeLead;

typedef struct {
  TslChromeLead leads[TSL_CHROME_SHAPE_MEMBERS][TSL_CHROME_SHAPE_WAYS];
} TslChromeShape;

/* tsl-chrome-scan.c. One event object at p (its '{'): on OK every member
 * routing needs is in *ev and *after is past the '}'. */
TslJsonStatus     tsl_chrome_scan_event         (const char           *p,
                                                 const char           *end,
                                                 TslChromeEvent       *ev,
                                                 TslChromeShape       *shape,
                                                 const char          **after,
                                                 TslJsonError         *error);
/* A TslChromeRunFunc (tsl-chrome-pipe.h): events and ',' from p, nothing
 * else, into `events`. */
const char       *tsl_chrome_run_events         (const char           *p,
                                                 const char           *end,
                                                 GArray               *events,
                                                 TslChromeShape       *shape,
                                                 gboolean             *need_separator);
/* A likely event start at or after `from`, or NULL. */
const char       *tsl_chrome_guess_event_start  (const char           *from,
                                                 const char           *end);

/* Shared by the model's files. */
guint32           tsl_chrome_model_intern       (TslChromeModel       *self,
                                                 const TslJsonValue   *value);
guint32           tsl_chrome_model_sample_label (TslChromeModel       *self,
                                                 const TslChromeEvent *ev);
void              tsl_chrome_frame_free         (gpointer              frame);

G_END_DECLS
