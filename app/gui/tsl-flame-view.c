/* tsl-flame-view.c: flame graph of a range, or of A against B
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws through core's flame painter (tsl-render-flame.c), so the window and
 * `timeslice export --flamegraph` show the same picture. A range's tree is
 * built on the main thread (one pass over at most tracks × 2K samples); a
 * differential tree runs the bootstrap, so it is built by a GTask that a
 * newer request cancels. The zoom is kept as a call path, so it survives a
 * rebuild when the ranges move. By CPU time every tree is exact, the whole
 * trace too (the range 0 %..100 %): kept samples carry no thread time.
 * Which tree to show and building it are in tsl-flame-view-build.c.
 */
#define G_LOG_DOMAIN "tsl-flame-view"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tsl-style.h"
#include "tsl-flame-view-private.h"

static GParamSpec *properties[N_PROPS];

G_DEFINE_ENUM_TYPE (TslFlameMode, tsl_flame_mode,
                    G_DEFINE_ENUM_VALUE (TSL_FLAME_MODE_WHOLE, "whole"),
                    G_DEFINE_ENUM_VALUE (TSL_FLAME_MODE_A, "a"),
                    G_DEFINE_ENUM_VALUE (TSL_FLAME_MODE_B, "b"),
                    G_DEFINE_ENUM_VALUE (TSL_FLAME_MODE_DIFF, "diff"))

G_DEFINE_FINAL_TYPE (TslFlameView, tsl_flame_view, GTK_TYPE_WIDGET)

void
_tsl_flame_view_notify (TslFlameView     *self,
                        TslFlameViewProp  prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

const char *
_tsl_flame_view_empty_text (TslFlameView *self)
{
  if (self->snapshot == NULL)
    return _("No trace");
  if (self->cpu && !tsl_flame_view_get_cpu_available (self))
    return _("No thread (CPU) time to show: the trace has none, or cannot be re-read");
  if (self->mode == TSL_FLAME_MODE_DIFF && !(self->has_range[0] && self->has_range[1]))
    return _("Select ranges A and B to compare their flame graphs");
  if ((self->mode == TSL_FLAME_MODE_A && !self->has_range[0]) ||
      (self->mode == TSL_FLAME_MODE_B && !self->has_range[1]))
    return _("Select the range to see its flame graph");
  if (self->cancellable != NULL)
    return self->mode == TSL_FLAME_MODE_DIFF ? _("Testing every call path…")
         : self->mode == TSL_FLAME_MODE_WHOLE ? _("Reading every event of the trace…")
         : _("Reading every event of the range…");
  return NULL;
}

/* What the numbers are: every event of the ranges, or kept samples. */
static const char *
scope_text (TslFlameView *self)
{
  if (self->flame == NULL)
    return NULL;
  if (tsl_flame_get_weight (self->flame) == TSL_FLAME_WEIGHT_CPU)
    return tsl_flame_is_diff (self->flame)
           ? _("CPU time, exact: every event of A and B; each frame's change tested on time blocks")
           : self->mode == TSL_FLAME_MODE_WHOLE ? _("CPU time, exact: every event of the trace")
           : _("CPU time, exact: every event of the range");
  if (tsl_flame_is_exact (self->flame))
    return tsl_flame_is_diff (self->flame)
           ? _("Exact: every event of A and B; each frame's change tested on time blocks")
           : _("Exact: every event of the range");
  if (self->mode == TSL_FLAME_MODE_WHOLE)
    return _("Whole trace, sampled: drawn from the kept samples, not from every event");
  return _("Sampled: drawn from the kept samples of the range");
}

static void
fill_options (TslFlameView          *self,
              TslFlameRenderOptions *o)
{
  tsl_render_flame_options_init (o, gtk_widget_get_width (GTK_WIDGET (self)),
                                 gtk_widget_get_height (GTK_WIDGET (self)));
  o->dark = tsl_style_is_dark (GTK_WIDGET (self));
  o->icicle = self->icicle;
  o->zoom = self->zoom;
  o->highlight = self->highlight;
  o->legend = TRUE;
  o->empty_text = _tsl_flame_view_empty_text (self);
  o->subtitle = o->empty_text == NULL ? scope_text (self) : NULL;
}

void
tsl_flame_view_get_render_options (TslFlameView          *self,
                                   TslFlameRenderOptions *options)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  fill_options (self, options);
}

/* After the snapshot or the source changed. */
static void
update_cpu_available (TslFlameView *self)
{
  gboolean available = tsl_flame_view_get_cpu_available (self);

  if (available == self->cpu_available)
    return;
  self->cpu_available = available;
  /* Back to wall time is always allowed. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "flame.cpu", available || self->cpu);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CPU_AVAILABLE]);
}

void
tsl_flame_view_set_snapshot (TslFlameView *self,
                             TslSnapshot  *snapshot)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (snapshot == self->snapshot)
    return;
  if (snapshot != NULL)
    tsl_snapshot_ref (snapshot);
  g_clear_pointer (&self->snapshot, tsl_snapshot_unref);
  self->snapshot = snapshot;
  _tsl_flame_view_rebuild (self);
  update_cpu_available (self);
}

void
tsl_flame_view_set_source (TslFlameView *self,
                           GFile        *file,
                           TslTrace     *trace,
                           guint         k)
{
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (g_strcmp0 (path, self->path) == 0 && trace == self->trace && k == self->k)
    return;
  g_free (self->path);
  self->path = g_steal_pointer (&path);
  g_set_object (&self->trace, trace);
  self->k = k;
  if (self->mode != TSL_FLAME_MODE_WHOLE || self->cpu)
    _tsl_flame_view_queue_rebuild (self);
  update_cpu_available (self);
}

void
tsl_flame_view_set_ranges (TslFlameView *self,
                           gboolean      has_a,
                           gint64        a_start_ns,
                           gint64        a_end_ns,
                           gboolean      has_b,
                           gint64        b_start_ns,
                           gint64        b_end_ns)
{
  gboolean has[2] = { has_a && a_end_ns > a_start_ns, has_b && b_end_ns > b_start_ns };
  gint64 start[2] = { a_start_ns, b_start_ns }, end[2] = { a_end_ns, b_end_ns };
  gboolean changed = FALSE;

  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  for (guint r = 0; r < 2; r++)
    {
      if (has[r] == self->has_range[r] &&
          (!has[r] || (start[r] == self->range_start[r] && end[r] == self->range_end[r])))
        continue;
      self->has_range[r] = has[r];
      self->range_start[r] = start[r];
      self->range_end[r] = end[r];
      changed |= self->mode != TSL_FLAME_MODE_WHOLE;
    }

  if (changed)
    _tsl_flame_view_rebuild (self);
}

void
tsl_flame_view_set_mode (TslFlameView *self,
                         TslFlameMode  mode)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));
  g_return_if_fail (mode <= TSL_FLAME_MODE_DIFF);

  if (mode == self->mode)
    return;
  self->mode = mode;
  _tsl_flame_view_rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODE]);
}

TslFlameMode
tsl_flame_view_get_mode (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), TSL_FLAME_MODE_WHOLE);

  return self->mode;
}

void
tsl_flame_view_set_tracks (TslFlameView *self,
                           const guint  *tracks,
                           guint         n_tracks)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  g_array_set_size (self->tracks, 0);
  if (tracks != NULL)
    g_array_append_vals (self->tracks, tracks, n_tracks);
  _tsl_flame_view_queue_rebuild (self);
}

void
tsl_flame_view_set_merge_threads (TslFlameView *self,
                                  gboolean      merge)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (!!merge == self->merge_threads)
    return;
  self->merge_threads = !!merge;
  _tsl_flame_view_queue_rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MERGE_THREADS]);
}

gboolean
tsl_flame_view_get_merge_threads (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), TRUE);

  return self->merge_threads;
}

/* Root at the bottom: the scrolled window shows the bottom, where the
 * root and the widest frames are. Left at its top, a trace 30 levels deep
 * (Chromium's V8 stacks) showed an empty page above its flames. */
static void
anchor_root (TslFlameView *self)
{
  double upper, page;

  if (self->vadjustment == NULL || self->icicle)
    return;
  upper = gtk_adjustment_get_upper (self->vadjustment);
  page = gtk_adjustment_get_page_size (self->vadjustment);
  if (upper > page)
    gtk_adjustment_set_value (self->vadjustment, upper - page);
}

static gboolean
anchor_root_idle (gpointer data)
{
  TslFlameView *self = data;

  self->anchor_id = 0;
  anchor_root (self);
  return G_SOURCE_REMOVE;
}

/* Its upper or page size moved (a new graph, a resize). Not at once: the
 * viewport configures the adjustment again after this, value and all. */
static void
on_vadjustment_changed (TslFlameView *self)
{
  if (self->anchor_id == 0 && !self->icicle)
    self->anchor_id = g_idle_add (anchor_root_idle, self);
}

static void
tsl_flame_view_root (GtkWidget *widget)
{
  TslFlameView *self = TSL_FLAME_VIEW (widget);
  GtkWidget *scrolled;

  GTK_WIDGET_CLASS (tsl_flame_view_parent_class)->root (widget);
  scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  if (scrolled == NULL)
    return;
  self->vadjustment = g_object_ref (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled)));
  self->vadjustment_changed_id = g_signal_connect_swapped (self->vadjustment, "changed",
                                                           G_CALLBACK (on_vadjustment_changed), self);
}

static void
tsl_flame_view_unroot (GtkWidget *widget)
{
  TslFlameView *self = TSL_FLAME_VIEW (widget);

  g_clear_signal_handler (&self->vadjustment_changed_id, self->vadjustment);
  g_clear_object (&self->vadjustment);
  g_clear_handle_id (&self->anchor_id, g_source_remove);
  GTK_WIDGET_CLASS (tsl_flame_view_parent_class)->unroot (widget);
}

void
tsl_flame_view_set_icicle (TslFlameView *self,
                           gboolean      icicle)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (!!icicle == self->icicle)
    return;
  self->icicle = !!icicle;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  /* The root moves to the bottom: go with it; an icicle stays where it is. */
  anchor_root (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ICICLE]);
}

gboolean
tsl_flame_view_get_icicle (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), FALSE);

  return self->icicle;
}

void
tsl_flame_view_set_cpu (TslFlameView *self,
                        gboolean      cpu)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (!!cpu == self->cpu)
    return;
  self->cpu = !!cpu;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "flame.cpu", self->cpu_available || self->cpu);
  _tsl_flame_view_queue_rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CPU]);
}

gboolean
tsl_flame_view_get_cpu (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), FALSE);

  return self->cpu;
}

gboolean
tsl_flame_view_get_cpu_available (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), FALSE);

  return self->snapshot != NULL && tsl_snapshot_get_has_cpu (self->snapshot) && _tsl_flame_view_can_reread (self);
}

void
tsl_flame_view_set_highlight (TslFlameView *self,
                              const char   *text)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  g_free (self->highlight);
  self->highlight = (text && *text) ? g_strdup (text) : NULL;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
tsl_flame_view_set_test_settings (TslFlameView *self,
                                  guint         rounds,
                                  double        confidence)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));
  g_return_if_fail (rounds > 0 && confidence > 0 && confidence < 1);

  if (rounds == self->rounds && confidence == self->confidence)
    return;
  self->rounds = rounds;
  self->confidence = confidence;
  if (self->mode == TSL_FLAME_MODE_DIFF)
    _tsl_flame_view_queue_rebuild (self);
}

/**
 * tsl_flame_view_get_flame:
 *
 * Returns: (transfer none) (nullable): the tree shown
 */
TslFlame *
tsl_flame_view_get_flame (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), NULL);

  return self->flame;
}

gboolean
tsl_flame_view_get_busy (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), FALSE);

  return self->cancellable != NULL || self->rebuild_id != 0;
}

void
tsl_flame_view_zoom_to (TslFlameView       *self,
                        const TslFlameNode *node)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (node != NULL && node->parent == NULL)
    node = NULL;
  self->zoom = node;

  for (; node != NULL && node->parent != NULL; node = node->parent)
    g_ptr_array_insert (names, 0, g_strdup (node->name));
  g_ptr_array_add (names, NULL);
  g_strfreev (self->zoom_path);
  self->zoom_path = (GStrv) g_ptr_array_steal (names, NULL);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "flame.zoom-out", self->zoom != NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
tsl_flame_view_zoom_out (TslFlameView *self)
{
  g_return_if_fail (TSL_IS_FLAME_VIEW (self));

  if (self->zoom != NULL)
    tsl_flame_view_zoom_to (self, self->zoom->parent);
}

/**
 * tsl_flame_view_get_zoom:
 *
 * Returns: (transfer none) (nullable): the zoomed frame
 */
const TslFlameNode *
tsl_flame_view_get_zoom (TslFlameView *self)
{
  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), NULL);

  return self->zoom;
}

gboolean
tsl_flame_view_click (TslFlameView *self,
                      double        x,
                      double        y)
{
  TslFlameRenderOptions o;
  const TslFlameNode *node;

  g_return_val_if_fail (TSL_IS_FLAME_VIEW (self), FALSE);

  fill_options (self, &o);
  node = tsl_render_flame_hit_test (self->flame, &o, x, y);
  if (node == NULL)
    return FALSE;

  tsl_flame_view_zoom_to (self, node);
  return TRUE;
}

static void
on_click_released (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   TslFlameView    *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
  tsl_flame_view_click (self, x, y);
}

static gboolean
query_tooltip (GtkWidget  *widget,
               int         x,
               int         y,
               gboolean    keyboard,
               GtkTooltip *tooltip)
{
  TslFlameView *self = TSL_FLAME_VIEW (widget);
  TslFlameRenderOptions o;
  const TslFlameNode *node;
  g_autofree char *text = NULL;

  fill_options (self, &o);
  node = tsl_render_flame_hit_test (self->flame, &o, x, y);
  if (node == NULL)
    return FALSE;

  text = tsl_render_flame_describe (self->flame, node, TRUE);
  gtk_tooltip_set_markup (tooltip, text);
  return TRUE;
}

static void
tsl_flame_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  TslFlameView *self = TSL_FLAME_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  TslFlameRenderOptions options;
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  fill_options (self, &options);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  tsl_render_flame_paint (cr, self->flame, &options);
  cairo_destroy (cr);
}

/* Tall enough for every level, so a GtkScrolledWindow around it scrolls. */
static void
tsl_flame_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  TslFlameView *self = TSL_FLAME_VIEW (widget);
  TslFlameRenderOptions o;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 200;
      *natural = 800;
      return;
    }

  fill_options (self, &o);
  *minimum = *natural = (int) tsl_render_flame_natural_height (self->flame, &o);
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  tsl_flame_view_zoom_out (TSL_FLAME_VIEW (widget));
}

static void
reset_zoom_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  tsl_flame_view_zoom_to (TSL_FLAME_VIEW (widget), NULL);
}

static void
set_mode_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  GEnumClass *klass = g_type_class_ref (TSL_TYPE_FLAME_MODE);
  GEnumValue *value = g_enum_get_value_by_nick (klass, g_variant_get_string (param, NULL));

  if (value != NULL)
    tsl_flame_view_set_mode (TSL_FLAME_VIEW (widget), value->value);
  g_type_class_unref (klass);
}

static void
on_dark_changed (TslFlameView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
tsl_flame_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  TslFlameView *self = TSL_FLAME_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_MERGE_THREADS:
      g_value_set_boolean (value, self->merge_threads);
      break;
    case PROP_ICICLE:
      g_value_set_boolean (value, self->icicle);
      break;
    case PROP_CPU:
      g_value_set_boolean (value, self->cpu);
      break;
    case PROP_CPU_AVAILABLE:
      g_value_set_boolean (value, tsl_flame_view_get_cpu_available (self));
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, tsl_flame_view_get_busy (self));
      break;
    case PROP_FLAME:
      g_value_set_boxed (value, self->flame);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tsl_flame_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  TslFlameView *self = TSL_FLAME_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODE:
      tsl_flame_view_set_mode (self, g_value_get_enum (value));
      break;
    case PROP_MERGE_THREADS:
      tsl_flame_view_set_merge_threads (self, g_value_get_boolean (value));
      break;
    case PROP_ICICLE:
      tsl_flame_view_set_icicle (self, g_value_get_boolean (value));
      break;
    case PROP_CPU:
      tsl_flame_view_set_cpu (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tsl_flame_view_dispose (GObject *object)
{
  TslFlameView *self = TSL_FLAME_VIEW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  g_clear_handle_id (&self->anchor_id, g_source_remove);
  g_clear_pointer (&self->snapshot, tsl_snapshot_unref);
  g_clear_pointer (&self->path, g_free);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->flame, tsl_flame_unref);
  self->zoom = NULL;
  g_clear_pointer (&self->zoom_path, g_strfreev);
  g_clear_pointer (&self->highlight, g_free);
  g_clear_pointer (&self->tracks, g_array_unref);

  G_OBJECT_CLASS (tsl_flame_view_parent_class)->dispose (object);
}

static void
tsl_flame_view_class_init (TslFlameViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_flame_view_dispose;
  object_class->get_property = tsl_flame_view_get_property;
  object_class->set_property = tsl_flame_view_set_property;

  widget_class->snapshot = tsl_flame_view_snapshot;
  widget_class->measure = tsl_flame_view_measure;
  widget_class->root = tsl_flame_view_root;
  widget_class->unroot = tsl_flame_view_unroot;
  widget_class->query_tooltip = query_tooltip;

  properties[PROP_MODE] =
    g_param_spec_enum ("mode", NULL, NULL, TSL_TYPE_FLAME_MODE, TSL_FLAME_MODE_WHOLE,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MERGE_THREADS] =
    g_param_spec_boolean ("merge-threads", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ICICLE] =
    g_param_spec_boolean ("icicle", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CPU] =
    g_param_spec_boolean ("cpu", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CPU_AVAILABLE] =
    g_param_spec_boolean ("cpu-available", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_FLAME] =
    g_param_spec_boxed ("flame", NULL, NULL, TSL_TYPE_FLAME,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "flame.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "flame.reset-zoom", NULL, reset_zoom_action);
  gtk_widget_class_install_action (widget_class, "flame.set-mode", "s", set_mode_action);
  gtk_widget_class_install_property_action (widget_class, "flame.icicle", "icicle");
  gtk_widget_class_install_property_action (widget_class, "flame.merge-threads", "merge-threads");
  gtk_widget_class_install_property_action (widget_class, "flame.cpu", "cpu");

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_BackSpace, 0, "flame.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "flame.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "flame.reset-zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_i, 0, "flame.icicle", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, 0, "flame.cpu", NULL);

  gtk_widget_class_set_css_name (widget_class, "flamegraph");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tsl_flame_view_init (TslFlameView *self)
{
  GtkGesture *click;

  self->tracks = g_array_new (FALSE, FALSE, sizeof (guint));
  self->merge_threads = TRUE;
  self->rounds = 10000;
  self->confidence = 0.95;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "flame.zoom-out", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "flame.cpu", FALSE);

  click = gtk_gesture_click_new ();
  g_signal_connect_object (click, "released", G_CALLBACK (on_click_released), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
}

GtkWidget *
tsl_flame_view_new (void)
{
  return g_object_new (TSL_TYPE_FLAME_VIEW, NULL);
}
