/* tsl-trace-state-private.h: what the state file's writer and reader share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout is docs/state-format.md.
 */
#pragma once

#include <glib.h>

#include "tsl-trace-state.h"

G_BEGIN_DECLS

extern const guint8 _tsl_state_magic[TSL_STATE_MAGIC_LEN];

/* A file's size at most (a state holds tracks × 2K samples of 80 bytes). */
#define TSL_STATE_MAX_BYTES (G_GUINT64_CONSTANT (1) << 36)

enum {
  TSL_STATE_TRACE_HAS_TIME = 1 << 0,
  TSL_STATE_TRACE_HAS_SPAN = 1 << 1,
  TSL_STATE_TRACE_HAS_CPU = 1 << 2,    /* version 3: spans carry thread time */
};

enum {
  TSL_STATE_TRACK_SAMPLED = 1 << 0,
  TSL_STATE_TRACK_FOLDED = 1 << 1,
  TSL_STATE_TRACK_TITLED = 1 << 2,   /* version 2: a title string follows the flags */
};

G_END_DECLS
