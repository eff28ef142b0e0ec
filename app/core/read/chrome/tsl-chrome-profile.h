/* tsl-chrome-profile.h: V8 CPU profiles embedded as Profile/ProfileChunk events
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the model (tsl-chrome-model.c), its checkpoints
 * (tsl-chrome-checkpoint.c) and their records (tsl-chrome-async.c) call of
 * tsl-chrome-profile.c and tsl-chrome-profile-checkpoint.c.
 */
#pragma once

#include "tsl-chrome-private.h"

G_BEGIN_DECLS

/* The record tag of a checkpoint's profile nodes, beside the async
 * entries' 0 (begin) and 1 (end) (tsl-chrome-async.c). */
#define TSL_CHROME_PROFILE_RECORD 2

/* A 'P' event named "Profile" or "ProfileChunk": TRUE if it is one (then
 * it is read here), FALSE for any other 'P' event. */
gboolean          _tsl_chrome_profile_event     (TslChromeModel       *self,
                                                 const TslChromeEvent *ev);
/* The end of the input: chunks whose Profile event never came are placed,
 * and the counts past the positioned warnings said. */
void              _tsl_chrome_profiles_finish   (TslChromeModel       *self);
void              _tsl_chrome_profiles_free     (TslChromeModel       *self);

/* Checkpoints. The own part: each profile's thread and clock; FALSE while
 * a profile holds chunks that wait for their Profile event (no checkpoint
 * then). */
gboolean          _tsl_chrome_profiles_save     (TslChromeModel       *self,
                                                 GByteArray           *saved);
/* The nodes made or changed since the last checkpoint, as one record's
 * bytes (nothing appended when there are none). */
void              _tsl_chrome_profiles_nodes    (TslChromeModel       *self,
                                                 GByteArray           *record);
/* Restoring: forget every profile, then the records' nodes, in serial
 * order, then the own part (`*used` its bytes). */
void              _tsl_chrome_profiles_reset    (TslChromeModel       *self);
gboolean          _tsl_chrome_profiles_replay   (TslChromeModel       *self,
                                                 const guint8         *record,
                                                 gsize                 len);
gboolean          _tsl_chrome_profiles_restore  (TslChromeModel       *self,
                                                 const guint8         *saved,
                                                 gsize                 len,
                                                 gsize                *used);

G_END_DECLS
