/* tsl-render.h: the cairo painter shared by the window and export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws a TslSnapshot as a multi-track timeline: a time ruler, tracks grouped
 * by process, thread stacks as flame-chart columns (one column per kept sample
 * across its slice), counters and metrics as a line with the exact min/max
 * envelope of the slice summaries, and ranges A and B. GTK-free: the widget
 * calls it from snapshot, export on an image/SVG/PDF surface.
 */
#pragma once

#include <cairo.h>

#include "tsl-snapshot.h"

G_BEGIN_DECLS

#define TSL_RENDER_RULER_HEIGHT 30
#define TSL_RENDER_LABEL_WIDTH  200   /* default width of the track labels */
#define TSL_RENDER_MIN_LABEL_WIDTH 80
#define TSL_RENDER_COUNTER_HEIGHT 56
#define TSL_RENDER_MIN_COUNTER_HEIGHT 32
#define TSL_RENDER_MAX_COUNTER_HEIGHT 400
/* The one cap on flow arrows, for the window and every export alike: past
 * it none are drawn and a note says how many and what to do. */
#define TSL_RENDER_MAX_FLOWS 10000

/* Which flow arrows are drawn, as Perfetto does: by default only the
 * selected slice's (none without one), on demand every one in view. */
typedef enum {
  TSL_RENDER_FLOWS_SELECTED,
  TSL_RENDER_FLOWS_ALL,
} TslRenderFlows;

typedef struct {
  gint64      view_start_ns;  /* visible time window, from the trace start */
  gint64      view_end_ns;
  double      width;          /* logical pixels */
  double      label_width;    /* the label column; 0 is TSL_RENDER_LABEL_WIDTH */
  double      height;
  double      scroll_y;       /* tracks scrolled up by this many pixels */
  gboolean    dark;
  gboolean    has_a;
  gint64      a_start_ns;
  gint64      a_end_ns;
  gboolean    has_b;
  gint64      b_start_ns;
  gint64      b_end_ns;
  gint64      a_group;        /* merged files: the group (pid) a range lies in; 0: all */
  gint64      b_group;
  const char *highlight;      /* search text: matching frames/series stand out */
  gboolean    highlight_exact;/* the whole name literally, never a pattern (tsl-search.h) */
  const char *highlight_track;/* only on this track (name and pid); NULL: on all */
  gint64      highlight_pid;
  gboolean    has_mark;       /* the current search match: outlined */
  const char *mark_track;     /* its track's name and pid */
  gint64      mark_pid;
  guint       mark_depth;
  gint64      mark_start_ns;
  gint64      mark_end_ns;
  const char *title;          /* heading line (export); NULL for none */
  const char *empty_heading;  /* shown when the snapshot has no track; NULL: "Nothing to draw" */
  const char *empty_text;     /* the line under it; NULL: how many events were read */
  const gint64 *collapsed;    /* pids whose groups show only their header */
  guint       n_collapsed;
  gboolean    draw_note;      /* how the view was drawn, at the bottom (export) */
  double      counter_height; /* metric and counter tracks; 0 is TSL_RENDER_COUNTER_HEIGHT */
  guint       max_rows;       /* thread and async tracks show at most this many levels and
                               * a "+N levels" row marking where deeper ones lie; 0: every level */
  gboolean    has_crosshair;  /* a vertical line at crosshair_x, each series' value on it */
  double      crosshair_x;
  gint64      wall_clock_ns;  /* > 0: the ruler reads local wall-clock time, the trace
                               * starting at this absolute time (ns since the epoch) */
  TslRenderFlows flows;       /* which flow arrows: the selected slice's chain, or all */
  gboolean    has_selection;  /* a selected (clicked) slice: its track's name and pid, */
  const char *selection_track;/* depth and start, which stay valid across snapshots */
  gint64      selection_pid;
  guint       selection_depth;
  gint64      selection_start_ns;
  gint64      selection_end_ns; /* (outlined as the search mark is) */
  const char *selection_name; /* its name, NULL if unknown: tells apart slices of one start
                               * and depth (Chrome's instants of one microsecond) */
} TslRenderOptions;

typedef struct {
  gboolean                 on_group; /* the pointer is on a process header */
  gint64                   group_pid;
  int                      track;   /* -1 when none */
  const TslSnapshotSample *sample;
  const TslSnapshotSlice  *slice;   /* exact view: the slice under the pointer */
  int                      depth;   /* stack level under the pointer, -1 for none */
} TslRenderHit;

void              tsl_render_options_init       (TslRenderOptions       *options,
                                                 TslSnapshot            *snapshot,
                                                 double                  width,
                                                 double                  height);
/* A view the painter can draw: a finite, non-empty time window and size.
 * Anything else is refused (tsl_render_paint() then only clears). */
gboolean          tsl_render_view_is_valid      (const TslRenderOptions *options);
/* FALSE when the view was refused. tsl_render_paint_base() then
 * tsl_render_paint_overlay() with the same options draw the same picture
 * (the export's note aside): a window keeps the base, which is most of the
 * cost, while only ranges A and B or the crosshair change. */
gboolean          tsl_render_paint              (cairo_t                *cr,
                                                 TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options);
/* Everything but ranges A and B and the crosshair (options' own are ignored). */
gboolean          tsl_render_paint_base         (cairo_t                *cr,
                                                 TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options);
/* Ranges A and B and the crosshair, over a base. */
void              tsl_render_paint_overlay      (cairo_t                *cr,
                                                 TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options);
/* Whether a and b paint the same base: they may differ in ranges A and B
 * and the crosshair only. Strings and the collapsed pids by value. A field
 * added to TslRenderOptions must be compared here. */
gboolean          tsl_render_options_same_base  (const TslRenderOptions *a,
                                                 const TslRenderOptions *b);
double            tsl_render_label_width        (const TslRenderOptions *options);
/* Height of all tracks below the ruler (and title), for scrolling. */
double            tsl_render_content_height     (TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options);
double            tsl_render_header_height      (const TslRenderOptions *options);
/* Height of track `track` (its bottom gap included), collapsed or not. */
double            tsl_render_track_height       (TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options,
                                                 guint                   track);
/* Where track `track` starts below the header, scrolled to the top. */
double            tsl_render_track_top          (TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options,
                                                 guint                   track);
/* Where the row of `depth` of track `track` starts (a hidden level: the
 * "+N levels" row), as tsl_render_track_top() measures. */
double            tsl_render_row_top            (TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options,
                                                 guint                   track,
                                                 guint                   depth);
double            tsl_render_time_to_x          (const TslRenderOptions *options,
                                                 double                  time_ns);
double            tsl_render_x_to_time          (const TslRenderOptions *options,
                                                 double                  x);
gboolean          tsl_render_hit_test           (TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options,
                                                 double                  x,
                                                 double                  y,
                                                 TslRenderHit           *hit);
/* Times this large (ns) are taken as since the epoch (after 2001): a file
 * with absolute timestamps, such as an ISO CSV. */
/* highlight_pid: the track of that name in every group (merged files). */
#define TSL_RENDER_ANY_PID G_MININT64
#define TSL_RENDER_EPOCH_MIN_NS G_GINT64_CONSTANT (1000000000000000000)

/* (transfer full): the ruler's label for time t (ns from the trace start)
 * with ticks `step` ns apart: elapsed ("1.5 s"), or local wall-clock time
 * ("14:03:20", "14:03:20.250") when options->wall_clock_ns is set. */
char             *tsl_render_format_tick        (const TslRenderOptions *options,
                                                 double                  t,
                                                 double                  step);
/* The value series track `track` holds at time_ns (from the trace start):
 * its last kept point at or before it. FALSE before its first point. */
gboolean          tsl_render_series_value_at    (const TslSnapshotTrack *track,
                                                 gint64                  time_ns,
                                                 double                 *value);
/* The flow arrows these options draw, as indices into
 * tsl_snapshot_get_flows(): with TSL_RENDER_FLOWS_SELECTED the selected
 * slice's whole chain (every flow reached from it in either direction,
 * slice to slice), with TSL_RENDER_FLOWS_ALL every arrow in view (its time
 * span meets the view and both its tracks are shown, wherever the tracks
 * are scrolled, so that a window and its export count the same). More than
 * TSL_RENDER_MAX_FLOWS: an empty array, and *note (transfer full) says how
 * many and to zoom in; otherwise *note is NULL. */
GArray           *tsl_render_flows_shown        (TslSnapshot            *snapshot,
                                                 const TslRenderOptions *options,
                                                 char                  **note);
/* A stable colour for a frame or series name (r, g, b in 0..1). */
void              tsl_render_name_color         (const char             *name,
                                                 gboolean                dark,
                                                 double                 *rgb);

G_END_DECLS
