/* tsl-speedscope-private.h: the speedscope reader's shared state
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader's state (TslSpeedscope) and what the files of this folder
 * call of each other: tsl-speedscope-reader.c (the format and the
 * streaming driver), tsl-speedscope-document.c (held documents, errors,
 * the streaming pieces), tsl-speedscope-profile.c (the model),
 * tsl-speedscope-parallel.c (events on every core) and tsl-speedscope-checkpoint.c
 * (checkpoints).
 */
#pragma once

#include <math.h>
#include <stdio.h>

#include "tsl-format-private.h"
#include "tsl-json-scan.h"
#include "tsl-scan-pool.h"

G_BEGIN_DECLS

#define MAX_DEPTH 4096

typedef enum {
  ST_START,     /* before the top-level '{' */
  ST_TOP,       /* in the top-level object, before a member or after one */
  ST_SHARED,    /* collecting "shared" */
  ST_PROFILES,  /* in "profiles", before an element or after one */
  ST_PROFILE,   /* at a profile's '{', its fields not yet all seen */
  ST_HELD,      /* collecting a whole profile */
  ST_EVENTS,    /* in a streamed profile's "events" */
  ST_TAIL,      /* in a streamed profile, after its "events" */
  ST_SAMPLES,   /* in a streamed sampled profile's "samples" */
  ST_STAIL,     /* in a streamed sampled profile, after its "samples" */
  ST_WEIGHTS,   /* in its "weights" */
  ST_SKIP,      /* passing over a value, then back to `after_skip` */
  ST_AFTER,     /* after the top-level value */
  ST_HOLD,      /* the frames come after the profiles: all held in doc */
} Stage;

typedef struct {
  guint32 frame;
  gint64  start_ns;
} Open;

/* The fields of a profile besides its arrays. */
typedef struct {
  char   *type;
  char   *name;
  char   *unit;
  double  start;
  double  end;    /* NAN when absent */
  gboolean has_start;
} Header;

/* The profile being streamed. */
typedef struct {
  guint   index;
  guint   track;
  char   *name;
  double  factor;
  double  start;
  double  end;
  guint   bad;    /* malformed events so far */
} Current;

typedef struct {
  TslTrace         *trace;
  TslReaderContext *ctx;
  GByteArray       *doc;      /* ST_HOLD: the document; before the frames: the text so far */
  GArray           *frames;   /* frame index → interned name */
  GArray           *stack;    /* Open, while reading an evented profile */
  GString          *scratch;
  GString          *label;
  guint32           unnamed;
  gboolean          unknown_frames;  /* a frame index past the shared table */

  Stage             stage;
  Stage             after_skip;
  gboolean          first;           /* of the container the stage is in */
  gboolean          frames_read;
  gboolean          saw_profiles;
  gboolean          streamed;        /* a profile was streamed: no going back to ST_HOLD */
  gboolean          no_index;
  gboolean          skip_warns;      /* the value skipped is a profile that is not an object */
  guint             n_profiles;
  guint64           n_events;        /* not yet added to the trace */
  TslJsonSkip       skip;
  GByteArray       *held;            /* a value collected across buffers */
  guint64           held_line;       /* and the position of its first byte */
  guint64           held_column;
  Current           cur;

  /* A sampled profile streamed (ST_SAMPLES, ST_STAIL, ST_WEIGHTS; cur holds
   * its track, name, factor and start): its samples' text is spooled until
   * their weights come, in memory up to a few MiB and then in a temporary
   * file (tsl-speedscope-sampled.c). */
  GByteArray       *spool;           /* records (guint32 length, the text) after those in the file */
  FILE             *spool_file;      /* the records before, in blocks; NULL: none */
  GByteArray       *back;            /* reading back: a block of the file */
  gsize             back_at;         /* the next record in `back` (or, past the file, in `spool`) */
  guint64           file_bytes;      /* of whole blocks written to the file */
  guint64           file_read;       /* of them read back */
  gboolean          spooling;        /* blocks go to the file (FALSE: it failed) */
  gboolean          reading_back;
  guint64           n_pending;       /* samples spooled, not yet offered */
  guint64           n_samples;       /* of the profile */
  double            sampled_t;       /* Σ weights so far */
  gint64            sampled_start_ns;

  /* A regular file's events scanned on every core (NULL: one thread). */
  TslScanDriver    *driver;
  const char       *plan_end;        /* what the scanners read up to */
} TslSpeedscope;

/* A syntax error in a value: one in the current parse buffer `buf`, one
 * held (self->held, from held_line:held_column) or the held document. */
typedef struct {
  const char *doc;
  const char *pos;
  const char *message;
  const char *buf;
} DocError;

/* An event's fields, from its bytes alone (scanner threads make these). */
typedef struct {
  double  at;
  gint64  frame;
  char    type;    /* 0: not an object, or no one-letter type */
} Event;

/* An event's fields (an object's "type", "at", "frame"), from its bytes
 * alone: inline, for the scanner threads (tsl-speedscope-parallel.c) and the
 * one-thread loop (tsl-speedscope-profile.c) alike. */
static inline void
tsl_speedscope_parse_event (const TslJsonValue *event,
                            Event              *e)
{
  TslJsonIter miter;
  TslJsonValue key, value;
  TslJsonError jerr;

  e->type = 0;
  e->at = NAN;
  e->frame = -1;
  if (event->type != TSL_JSON_OBJECT)
    return;
  tsl_json_iter_init (&miter, event->p, event->p + event->len);
  while (tsl_json_iter_next_member (&miter, &key, &value, &jerr) == TSL_JSON_OK)
    {
      if (TSL_JSON_KEY_IS (&key, "type") && value.type == TSL_JSON_STRING && value.len == 1)
        e->type = value.p[0];
      else if (TSL_JSON_KEY_IS (&key, "at"))
        tsl_json_value_get_double (&value, &e->at);
      else if (TSL_JSON_KEY_IS (&key, "frame"))
        tsl_json_value_get_int64 (&value, &e->frame);
    }
}

/* The profile at p ('{'): its fields up to its first array, read again
 * from its start until they are all in one buffer (nothing is consumed
 * until then). MORE: more input needed; WHOLE: the whole profile is in the
 * buffer, *at past it; STREAM: its events can be streamed from *at; SAMPLES:
 * its samples can be streamed from *at (its name, unit and start came
 * first, and its type if any yet; its weights come after); HOLD:
 * it must be held whole (its fields may follow its arrays, it is sampled
 * with its weights first,
 * or its fields exceed MAX_HEAD). */
typedef enum { HEAD_MORE, HEAD_WHOLE, HEAD_STREAM, HEAD_SAMPLES, HEAD_HOLD, HEAD_ERROR } HeadResult;

/* tsl-speedscope-document.c */

gboolean tsl_speedscope_find_truncation (const char *doc,
                                         gsize       len,
                                         gsize      *cut,
                                         GByteArray *open);
void tsl_speedscope_repair_truncation (TslSpeedscope *self);
gboolean tsl_speedscope_read_document (TslSpeedscope  *self,
                                       GError        **error);
TslJsonStatus tsl_speedscope_next_item (const char    *p,
                                        const char    *end,
                                        gboolean       first,
                                        char           open,
                                        char           close,
                                        TslJsonValue  *key,
                                        const char   **item,
                                        TslJsonError  *jerr);
void tsl_speedscope_begin_value (TslSpeedscope *self,
                                 Stage          stage,
                                 Stage          after_skip);
gboolean tsl_speedscope_collect_value (TslSpeedscope *self,
                                       const guint8  *buf,
                                       const char    *p,
                                       const char    *end,
                                       gboolean       at_eof,
                                       gboolean       keep,
                                       TslJsonValue  *value,
                                       const char   **after);
gboolean tsl_speedscope_read_whole_profile (TslSpeedscope      *self,
                                            const guint8       *buf,
                                            const TslJsonValue *value,
                                            GError            **error);
gboolean tsl_speedscope_read_shared (TslSpeedscope      *self,
                                     const guint8       *buf,
                                     const TslJsonValue *value,
                                     GError            **error);
HeadResult tsl_speedscope_scan_head (TslSpeedscope  *self,
                                     const char     *p,
                                     const char     *end,
                                     Header         *h,
                                     const char    **at,
                                     TslJsonError   *jerr);

/* tsl-speedscope-profile.c */

gboolean tsl_speedscope_read_frames (TslSpeedscope      *self,
                                     const TslJsonValue *shared,
                                     DocError           *err);
void tsl_speedscope_model_event (TslSpeedscope *self,
                                 guint          track,
                                 const char    *profile,
                                 const Event   *e,
                                 double         factor,
                                 guint         *bad);
void tsl_speedscope_process_event (TslSpeedscope      *self,
                                   guint               track,
                                   const char         *profile,
                                   const TslJsonValue *event,
                                   double              factor,
                                   guint              *bad);
void tsl_speedscope_header_clear (Header *h);
gboolean tsl_speedscope_header_member (TslSpeedscope      *self,
                                       Header             *h,
                                       const TslJsonValue *key,
                                       const TslJsonValue *value);
gint64 tsl_speedscope_end_ns_of (double start,
                                 double end,
                                 double factor);
gboolean tsl_speedscope_read_profile (TslSpeedscope      *self,
                                      guint               index,
                                      const TslJsonValue *profile,
                                      guint64            *n_events,
                                      DocError           *err);
void tsl_speedscope_flush_events (TslSpeedscope *self);
void tsl_speedscope_begin_stream (TslSpeedscope *self,
                                  Header        *h);
void tsl_speedscope_end_stream (TslSpeedscope *self);

/* tsl-speedscope-parallel.c */

const char *tsl_speedscope_after_event (const char *at,
                                        const char *end);
extern const TslScanFuncs      tsl_speedscope_scan_funcs;
extern const TslScanDriveFuncs tsl_speedscope_drive_funcs;

/* tsl-speedscope-checkpoint.c */

TslCheckpoint tsl_speedscope_checkpoint (gpointer      state,
                                         const guint8 *buf,
                                         gsize         consumed,
                                         gsize        *back,
                                         GByteArray   *saved);
gboolean tsl_speedscope_restore (gpointer      state,
                                 const guint8 *saved,
                                 gsize         len);

/* tsl-speedscope-profile.c, for the streamed sampled profile */

void tsl_speedscope_begin_current (TslSpeedscope *self,
                                   Header        *h);
guint tsl_speedscope_start_profile (TslSpeedscope *self,
                                    guint          index,
                                    Header        *h,
                                    double        *factor);
void tsl_speedscope_emit_sample (TslSpeedscope      *self,
                                 guint               track,
                                 const TslJsonValue *sample,
                                 double              w,
                                 double              factor,
                                 gint64              start_ns,
                                 double             *t);
void tsl_speedscope_end_sampled (TslSpeedscope *self,
                                 guint64        n,
                                 double         t,
                                 double         factor,
                                 gint64         start_ns);

/* tsl-speedscope-sampled.c */

void tsl_speedscope_begin_sampled (TslSpeedscope *self,
                                   Header        *h);
void tsl_speedscope_push_sample (TslSpeedscope      *self,
                                 const TslJsonValue *sample);
void tsl_speedscope_push_weight (TslSpeedscope      *self,
                                 const TslJsonValue *weight);
/* The profile's end (or the input's): the samples without a weight weigh 1. */
void tsl_speedscope_end_sampled_stream (TslSpeedscope *self);
void tsl_speedscope_sampled_clear (TslSpeedscope *self);

G_END_DECLS
