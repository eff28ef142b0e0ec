/* tsl-compare-item.c: one row of the compare table, for list models
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-compare-item"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tsl-block-test.h"
#include "tsl-compare-item.h"

struct _TslCompareItem
{
  GObject        parent_instance;
  TslCompareRow *row;
  guint          rank;   /* position in the core's order, by impact */
  gsize          thread_len; /* length of the thread's name in series; 0: unknown */
  double         confidence; /* the interval's level, for its tooltip */
};

enum {
  PROP_0,
  PROP_SERIES,
  PROP_SIGNIFICANT,
  PROP_MAGNITUDE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (TslCompareItem, tsl_compare_item, G_TYPE_OBJECT)

static void
tsl_compare_item_finalize (GObject *object)
{
  TslCompareItem *self = TSL_COMPARE_ITEM (object);

  g_clear_pointer (&self->row, tsl_compare_row_free);

  G_OBJECT_CLASS (tsl_compare_item_parent_class)->finalize (object);
}

static void
tsl_compare_item_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  TslCompareItem *self = TSL_COMPARE_ITEM (object);

  switch (prop_id)
    {
    case PROP_SERIES:
      g_value_set_string (value, tsl_compare_item_get_series (self));
      break;

    case PROP_SIGNIFICANT:
      g_value_set_boolean (value, tsl_compare_item_get_significant (self));
      break;

    case PROP_MAGNITUDE:
      g_value_set_double (value, tsl_compare_item_get_magnitude (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tsl_compare_item_class_init (TslCompareItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = tsl_compare_item_finalize;
  object_class->get_property = tsl_compare_item_get_property;

  /* Read-only views of the row, for GtkExpression-based sorters and filters. */
  properties[PROP_SERIES] =
    g_param_spec_string ("series", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SIGNIFICANT] =
    g_param_spec_boolean ("significant", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MAGNITUDE] =
    g_param_spec_double ("magnitude", NULL, NULL, -1, G_MAXDOUBLE, -1, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
tsl_compare_item_init (TslCompareItem *self)
{
}

TslCompareItem *
tsl_compare_item_new (TslCompareRow *row,
                      guint          rank)
{
  TslCompareItem *self;

  g_return_val_if_fail (row != NULL, NULL);

  self = g_object_new (TSL_TYPE_COMPARE_ITEM, NULL);
  self->row = row;
  self->rank = rank;
  self->confidence = 0.95;
  return self;
}

guint
tsl_compare_item_get_rank (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), G_MAXUINT);

  return self->rank;
}

void
tsl_compare_item_set_thread_length (TslCompareItem *self,
                                    gsize           length)
{
  g_return_if_fail (TSL_IS_COMPARE_ITEM (self));
  g_return_if_fail (length <= strlen (self->row->series));

  self->thread_len = length;
}

/* A series is "THREAD/FUNCTION", or a metric's track name alone. Without
 * the thread's length known, the first '/' splits it: function names hold
 * '/' (script URLs, paths) more often than thread names. */
static gsize
thread_length (TslCompareItem *self)
{
  const char *slash;

  if (self->thread_len > 0)
    return self->thread_len;
  slash = strchr (self->row->series, '/');
  return slash != NULL ? (gsize) (slash - self->row->series) : strlen (self->row->series);
}

char *
tsl_compare_item_dup_thread (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  return g_strndup (self->row->series, thread_length (self));
}

const char *
tsl_compare_item_get_function (TslCompareItem *self)
{
  const char *rest;

  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  rest = self->row->series + thread_length (self);
  return rest[0] == '/' ? rest + 1 : "";
}

const TslCompareRow *
tsl_compare_item_get_row (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  return self->row;
}

const char *
tsl_compare_item_get_series (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  return self->row->series;
}

gboolean
tsl_compare_item_get_significant (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), FALSE);

  /* Too little data is said, never flagged. */
  return self->row->significant && self->row->test != TSL_COMPARE_TEST_TOO_FEW &&
         self->row->test != TSL_COMPARE_TEST_TOO_DEPENDENT;
}

double
tsl_compare_item_get_magnitude (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), -1);

  return isnan (self->row->change) ? -1 : fabs (self->row->change);
}

static char *
format_untested (const TslCompareRow *row)
{
  if (row->test == TSL_COMPARE_TEST_TOO_DEPENDENT)
    /* Translators: a compare row not tested: its series moves more slowly than the ranges are long */
    return g_strdup (_("too dependent to test at this length"));
  return tsl_compare_row_dup_too_few (row);
}

static char *
format_waiting (double wall_change,
                double cpu_change)
{
  /* Translators: a function's wall time grew while its CPU time did not,
   * e.g. "wall +40 %, CPU +2 %: waiting" (off CPU, not computing) */
  /* + 0.0: a change that rounds to zero reads +0, not -0. */
  return g_strdup_printf (_("wall %+.0f %%, CPU %+.0f %%: waiting"),
                          round (wall_change * 100) + 0.0, round (cpu_change * 100) + 0.0);
}

char *
tsl_compare_item_dup_untested (TslCompareItem *self)
{
  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  return format_untested (self->row);
}

/* What the Significance column says of untested and waiting rows, with
 * two-digit counts and changes: the texts its width is made for. The
 * longer note of calls in too few time blocks is elided, whole in its
 * tooltip. */
GStrv
tsl_compare_item_dup_typical_notes (void)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);

  for (int calls = 0; calls <= 1; calls++)
    {
      TslCompareRow row = { 0 };

      row.test = TSL_COMPARE_TEST_TOO_FEW;
      row.duration = calls;
      row.n_a = TSL_BLOCK_MIN_OBSERVATIONS - 1;
      row.n_b = 99;
      g_ptr_array_add (notes, format_untested (&row));
      row.n_a = 99;
      g_ptr_array_add (notes, format_untested (&row));
    }
  g_ptr_array_add (notes, g_strdup (_("too dependent to test at this length")));
  g_ptr_array_add (notes, format_waiting (0.99, 0.09));
  for (guint i = 0; i < notes->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (notes, i));
  return g_strv_builder_end (builder);
}

char *
tsl_compare_item_dup_waiting (TslCompareItem *self)
{
  const TslCompareRow *row;

  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  row = self->row;
  if (!row->waiting)
    return NULL;
  return format_waiting (row->wall_change, row->cpu_change);
}

void
tsl_compare_item_set_confidence (TslCompareItem *self,
                                 double          confidence)
{
  g_return_if_fail (TSL_IS_COMPARE_ITEM (self));

  self->confidence = confidence;
}

char *
tsl_compare_item_dup_unbounded (TslCompareItem *self)
{
  const TslCompareRow *row;
  double level;

  g_return_val_if_fail (TSL_IS_COMPARE_ITEM (self), NULL);

  /* Fieller's interval of B / A − 1 (tsl-block-test.c) is unbounded
   * exactly when A's value is not told from 0 at this level: from some
   * ratio upwards where B is told from 0, else every ratio. */
  row = self->row;
  level = self->confidence * 100;
  if (isinf (row->ci_low) && isinf (row->ci_high))
    /* Translators: tooltip of a confidence interval "−∞ … +∞"; %g %% is
     * the confidence level, e.g. "95 %" */
    return g_strdup_printf (_("Unbounded: range A’s value cannot be told apart from zero, "
                              "so the change has no limit either way at %g %% confidence"), level);
  if (isinf (row->ci_high))
    /* Translators: tooltip of a confidence interval such as "−99.7 % … +∞" */
    return g_strdup_printf (_("Unbounded: range A’s value cannot be told apart from zero, "
                              "so the change has no upper limit at %g %% confidence"), level);
  if (isinf (row->ci_low))
    /* Translators: tooltip of a confidence interval such as "−∞ … +12.0 %" */
    return g_strdup_printf (_("Unbounded: range A’s value cannot be told apart from zero, "
                              "so the change has no lower limit at %g %% confidence"), level);
  return NULL;
}
