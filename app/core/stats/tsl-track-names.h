/* tsl-track-names.h: one file's track names made unique for a table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _TslTrackNames TslTrackNames;

TslTrackNames *_tsl_track_names_new    (void);
void           _tsl_track_names_free   (TslTrackNames *self);
/* Notes a track (kind, pid, tid, name); a track noted twice counts once.
 * All tracks are added before the first get. */
void           _tsl_track_names_add    (TslTrackNames *self,
                                        int            kind,
                                        gint64         pid,
                                        gint64         tid,
                                        const char    *name);
/* How many distinct tracks were added. */
guint          _tsl_track_names_get_n  (TslTrackNames *self);
/* (transfer full): the name as a table shows it: "name (tid T)" where
 * another thread of the process shares the name (a recording's dozen
 * "ThreadPoolForegroundWorker"; the window's snapshot names them so), then
 * "… [pid]" where another track still shares it. */
char          *_tsl_track_names_get    (TslTrackNames *self,
                                        int            kind,
                                        gint64         pid,
                                        gint64         tid,
                                        const char    *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TslTrackNames, _tsl_track_names_free)

G_END_DECLS
