/* tsl-chrome-profile-private.h: a Chrome trace's V8 CPU profiles, for their checkpoints
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tsl-chrome-profile.c (the events read) and tsl-chrome-profile-checkpoint.c
 * (their state saved and restored) share.
 */
#pragma once

#include "tsl-chrome-profile.h"
#include "tsl-spool.h"

G_BEGIN_DECLS

typedef enum {
  WARN_NODE,        /* a damaged node or link */
  WARN_SAMPLE,      /* a sample naming no node, or not an integer */
  WARN_DELTA,       /* a negative or damaged delta */
  WARN_CHUNK,       /* a chunk without data, or with arrays of different lengths */
  N_WARN,
} WarnKind;

typedef struct {
  gint64  id;
  guint32 name;      /* interned frame; 0 until defined */
  guint32 parent;    /* index + 1; 0: a root */
  guint32 up;        /* index + 1 of an ancestor: the root found fast */
  guint32 defined;
} PNode;

typedef struct {
  char       *key;        /* "PID:ID", the id as written */
  gint64      pid;
  gint64      tid;        /* the Profile event's, or the first chunk's */
  gboolean    started;    /* the Profile event was read */
  gint64      start_ns;
  gint64      t_ns;       /* Σ deltas so far */
  guint       track;
  GArray     *nodes;      /* PNode */
  GHashTable *by_id;      /* gint64 id → index + 1 */
  guint32     n_listed;   /* nodes a checkpoint record holds */
  GArray     *changed;    /* indices below n_listed changed since */
  TslSpool    held;       /* (node + 1, delta) pairs before the Profile event */
  guint64     n_held;
  gint64      chunk_ns;   /* the first chunk's ts: the start without a Profile */
  gint64      chunk_tid;
} Profile;

struct _TslChromeProfiles {
  GHashTable *by_key;     /* key → Profile */
  GPtrArray  *order;      /* Profile, as made: saves and the end in file order */
  guint32     root_name;
  guint32     unknown_name;
  GString    *label;
  GString    *name;
  GArray     *path;       /* node indices, leaf first */
  guint64     warned[N_WARN];
  gboolean    listing;    /* checkpoints are made: changes are listed */
  gboolean    clamped;
};

TslChromeProfiles *_tsl_chrome_profiles_ensure (TslChromeModel *self);
Profile           *_tsl_chrome_profile_ensure  (TslChromeModel *self,
                                                gint64          pid,
                                                const char     *id,
                                                gsize           id_len);
/* The index of node `id`, made undefined if new. */
guint32            _tsl_chrome_profile_node    (Profile        *pr,
                                                gint64          id);
/* Makes `child` a child of `parent` unless that closes a cycle or gives it
 * a second parent; the message says which (NULL: linked, or already). */
char              *_tsl_chrome_profile_link    (TslChromeModel *self,
                                                Profile        *pr,
                                                guint32         parent,
                                                guint32         child);

G_END_DECLS
