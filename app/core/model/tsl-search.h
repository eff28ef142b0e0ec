/* tsl-search.h: the timeline's search, by name, with next and previous
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A search text matches a frame's whole name, unless it holds a glob
 * character ('*' or '?'): then it is a pattern (g_pattern_match_simple), so
 * "parse" finds parse and not parse_header, and "parse*" finds both.
 */
#pragma once

#include "tsl-snapshot.h"
#include "tsl-trace.h"

G_BEGIN_DECLS

typedef struct {
  guint  track;     /* index in the snapshot */
  guint  depth;     /* stack level, 0 the root */
  gint64 start_ns;  /* from the trace start */
  gint64 end_ns;
} TslSearchMatch;

gboolean          tsl_search_is_pattern         (const char     *text);
gboolean          tsl_search_matches            (const char     *text,
                                                 const char     *name);
/* Every call (exact tracks: each slice; sampled ones: each run of samples
 * holding the name at one level) of a thread or async track whose name
 * matches, by start time, then track, then depth. (transfer full)
 * (element-type TslSearchMatch) */
GArray           *tsl_search_find               (TslSnapshot    *snapshot,
                                                 const char     *text);
/* The index of the first match starting at or after `time_ns`, wrapping
 * to 0; -1 when there is none: where "next" goes from no current match. */
int               tsl_search_first_from         (GArray         *matches,
                                                 gint64          time_ns);

/* Every call of a whole input, not only the samples a snapshot holds:
 * attached to a trace before it reads the file (it observes every event,
 * tsl_trace_set_event_func()), it keeps each span or instant of a thread
 * or async track whose innermost name matches, at its depth, up to `max`
 * of them (32 bytes each), and counts the rest. A sampled profile's
 * tracks have no calls to count: their ids are listed apart, for
 * tsl_search_find() on the snapshot. Used from the thread reading. It
 * sets the trace's time filter to all time: every event is read, even of
 * a file whose whole state is cached. */
typedef struct _TslSearchScan TslSearchScan;

TslSearchScan    *tsl_search_scan_new           (TslTrace       *trace,
                                                 const char     *text,
                                                 guint           max);
/* Detaches from the trace. (transfer full) (element-type TslSearchMatch):
 * the calls by start, their `track` the trace's index, times from the
 * trace's start; `n_found` every match, kept or not; `sampled` (optional,
 * element-type guint) the trace indices of sampled profiles. */
GArray           *tsl_search_scan_finish        (TslSearchScan  *self,
                                                 guint64        *n_found,
                                                 GArray        **sampled);
void              tsl_search_scan_free          (TslSearchScan  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslSearchScan, tsl_search_scan_free)

G_END_DECLS
