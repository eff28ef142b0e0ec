/* tsl-label-store.h: the payload strings of kept samples, collected when evicted
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Names (threads, functions, series) are few and interned for good. Labels —
 * whole stacks, one per kept sample — are as many as the input has distinct
 * stacks, so they live here and are dropped once no sampler holds them:
 * memory stays O(tracks × K) whatever the input.
 */
#pragma once

#include "tsl-sampler.h"

G_BEGIN_DECLS

/* Label ids carry this bit; name ids never do. */
#define TSL_LABEL_TAG 0x80000000u

typedef struct _TslLabelStore TslLabelStore;

TslLabelStore    *tsl_label_store_new           (void);
void              tsl_label_store_free          (TslLabelStore  *self);
/* Returns a tagged id. `str` (`len` bytes at a NUL) must be valid UTF-8. */
guint32           tsl_label_store_intern_len    (TslLabelStore  *self,
                                                 const char     *str,
                                                 gsize           len);
const char       *tsl_label_store_lookup        (TslLabelStore  *self,
                                                 guint32         id);
guint             tsl_label_store_get_size      (TslLabelStore  *self);
/* Keeps only the labels the samplers hold, renumbering them in place. */
void              tsl_label_store_collect       (TslLabelStore  *self,
                                                 TslSampler    **samplers,
                                                 guint           n_samplers);

G_END_DECLS
