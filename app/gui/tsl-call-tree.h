/* tsl-call-tree.h: the call tree of a flame graph, as a sortable table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "tsl-flame.h"

G_BEGIN_DECLS

#define TSL_TYPE_CALL_TREE (tsl_call_tree_get_type ())
G_DECLARE_FINAL_TYPE (TslCallTree, tsl_call_tree, TSL, CALL_TREE, GtkWidget)

GtkWidget        *tsl_call_tree_new                  (void);
/* Shows `flame` (NULL: empty); a differential tree adds A, B, change and
 * q-value columns. Follow a TslFlameView with its notify::flame. */
void              tsl_call_tree_set_flame            (TslCallTree        *self,
                                                      TslFlame           *flame);
/* (transfer none) (nullable) */
TslFlame         *tsl_call_tree_get_flame            (TslCallTree        *self);
/* Top-level rows (children of "all"), for tests. */
GListModel       *tsl_call_tree_get_model            (TslCallTree        *self);

G_END_DECLS
