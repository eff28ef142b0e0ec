/* tsl-trace-labels.c: the labels of a trace's kept samples
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A kept event's label (its stack, or its name) goes to its track's sampler,
 * through the trace's label store, to the exact recorder when the event is
 * in its window, and to an observer (tsl_trace_set_event_func()) with the
 * event. Labels no sampler holds any more are collected, so the store
 * stays about as large as what the samplers keep.
 */
#define G_LOG_DOMAIN "tsl-trace"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "tsl-trace-private.h"

/* Collects the labels no sampler holds any more once a quarter more than
 * the last collection kept (at least 4096) have come in: amortised O(1) per
 * label, and the store never much larger than what the samplers hold, so
 * peak memory does not grow with the input. */
void
_tsl_trace_collect_labels (TslTrace *self)
{
  g_autofree TslSampler **samplers = NULL;
  guint live;

  samplers = g_new (TslSampler *, MAX (self->tracks->len, 1));
  for (guint i = 0; i < self->tracks->len; i++)
    samplers[i] = get_track (self, i)->sampler;
  tsl_label_store_collect (self->labels, samplers, self->tracks->len);

  live = tsl_label_store_get_size (self->labels);
  self->next_label_collect = live + MAX (4096, live / 4);
}

static void
maybe_collect_labels (TslTrace *self)
{
  if (tsl_label_store_get_size (self->labels) > self->next_label_collect)
    _tsl_trace_collect_labels (self);
}

/* FALSE when the label is for an event its sampler did not keep. */
static gboolean
observe_label (TslTrace   *self,
               guint       track,
               const char *label)
{
  if (G_LIKELY (self->event_func == NULL))
    return TRUE;
  if (!self->has_pending || self->pending_track != track)
    return TRUE;

  _tsl_trace_deliver_pending (self, label);
  return self->pending_kept;
}

void
tsl_trace_set_label (TslTrace   *self,
                     guint       track,
                     const char *label)
{
  g_autofree char *valid = NULL;
  g_autofree char *cut = NULL;

  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);

  if (label == NULL)
    {
      if (observe_label (self, track, NULL) &&
          (self->event_func != NULL || self->exact == NULL || self->label_sampler))
        tsl_sampler_set_label (get_track (self, track)->sampler, 0);
      return;
    }

  /* As for names: damaged text is repaired once, here. */
  if (!g_utf8_validate (label, -1, NULL))
    {
      valid = g_utf8_make_valid (label, -1);
      tsl_trace_add_warning_once (self, _("names that are not valid UTF-8 were read; "
                             "their bad bytes are shown as U+FFFD"));
      label = valid;
    }
  if ((cut = _tsl_trace_cut_long_parts (self, label, strlen (label))) != NULL)
    label = cut;

  tsl_trace_set_label_joined (self, track, label, strlen (label));
}

void
tsl_trace_set_label_joined (TslTrace   *self,
                            guint       track,
                            const char *label,
                            gsize       len)
{
  g_return_if_fail (TSL_IS_TRACE (self));
  g_return_if_fail (track < self->tracks->len);
  g_return_if_fail (label != NULL && label[len] == '\0');

  if (!observe_label (self, track, label))
    return;
  if (G_UNLIKELY (self->exact != NULL && self->event_func == NULL))
    {
      if (self->label_exact)
        tsl_exact_set_label (self->exact, label, len);
      if (!self->label_sampler)
        return;
    }
  tsl_sampler_set_label (get_track (self, track)->sampler,
                         tsl_label_store_intern_len (self->labels, label, len));
  maybe_collect_labels (self);
}

guint
tsl_trace_get_n_labels (TslTrace *self)
{
  g_return_val_if_fail (TSL_IS_TRACE (self), 0);

  return tsl_label_store_get_size (self->labels);
}

void
tsl_trace_set_label_len (TslTrace   *self,
                         guint       track,
                         const char *label,
                         gsize       len)
{
  char stack[256];
  g_autofree char *heap = NULL;
  g_autofree char *no_nuls = _tsl_trace_replace_nuls (self, label, len);
  char *buf;

  if (G_UNLIKELY (no_nuls != NULL))
    {
      tsl_trace_set_label (self, track, no_nuls);
      return;
    }
  buf = len < sizeof stack ? stack : (heap = g_malloc (len + 1));
  memcpy (buf, label, len);
  buf[len] = '\0';
  tsl_trace_set_label (self, track, buf);
}

/* An observer, the exact recorder, or no such track. */
static G_GNUC_NO_INLINE void
set_label_id_unusual (TslTrace *self,
                      guint     track,
                      guint32   label)
{
  if (G_UNLIKELY (track >= self->tracks->len))
    {
      g_critical ("%s: no track %u", "tsl_trace_set_label_id", track);
      return;
    }

  if (G_UNLIKELY (self->event_func != NULL) &&
      !observe_label (self, track, label != 0 ? tsl_trace_lookup (self, label) : NULL))
    return;
  if (G_UNLIKELY (self->exact != NULL && self->event_func == NULL))
    {
      const char *text = tsl_trace_lookup (self, label);

      if (self->label_exact && text != NULL)
        tsl_exact_set_label (self->exact, text, strlen (text));
      if (!self->label_sampler)
        return;
    }
  tsl_sampler_set_label (get_track (self, track)->sampler, label);
}

void
tsl_trace_set_label_id (TslTrace *self,
                        guint     track,
                        guint32   label)
{
  /* Per kept event: no type check, one test for anything unusual (out of
   * line, so that this saves no registers), and the text looked up only for
   * an observer or the exact recorder. */
  if (G_UNLIKELY (track >= self->tracks->len || self->event_func != NULL || self->exact != NULL))
    {
      set_label_id_unusual (self, track, label);
      return;
    }
  tsl_sampler_set_label (get_track (self, track)->sampler, label);
}
