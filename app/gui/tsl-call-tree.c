/* tsl-call-tree.c: the call tree of a flame graph, as a sortable table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Rows are frames of the TslFlame, expanded lazily through a GtkTreeListModel;
 * GtkTreeListRowSorter sorts siblings and keeps children under their parent.
 */
#define G_LOG_DOMAIN "tsl-call-tree"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "tsl-call-tree.h"
#include "tsl-column-view.h"

/* ---- one row ---- */

#define TSL_TYPE_CALL_TREE_ITEM (tsl_call_tree_item_get_type ())
G_DECLARE_FINAL_TYPE (TslCallTreeItem, tsl_call_tree_item, TSL, CALL_TREE_ITEM, GObject)

struct _TslCallTreeItem
{
  GObject             parent_instance;
  TslFlame           *flame;
  const TslFlameNode *node;   /* owned by flame */
};

G_DEFINE_FINAL_TYPE (TslCallTreeItem, tsl_call_tree_item, G_TYPE_OBJECT)

static void
tsl_call_tree_item_finalize (GObject *object)
{
  TslCallTreeItem *self = TSL_CALL_TREE_ITEM (object);

  g_clear_pointer (&self->flame, tsl_flame_unref);
  G_OBJECT_CLASS (tsl_call_tree_item_parent_class)->finalize (object);
}

static void
tsl_call_tree_item_class_init (TslCallTreeItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = tsl_call_tree_item_finalize;
}

static void
tsl_call_tree_item_init (TslCallTreeItem *self)
{
}

static GListModel *
children_of (TslFlame           *flame,
             const TslFlameNode *node)
{
  GListStore *store = g_list_store_new (TSL_TYPE_CALL_TREE_ITEM);

  for (guint i = 0; i < node->n_children; i++)
    {
      g_autoptr(TslCallTreeItem) item = g_object_new (TSL_TYPE_CALL_TREE_ITEM, NULL);

      /* Frames only in A have no weight in B: nothing to show in its tree. */
      if (node->children[i]->total <= 0 && node->children[i]->diff == NULL)
        continue;
      item->flame = tsl_flame_ref (flame);
      item->node = node->children[i];
      g_list_store_append (store, item);
    }

  return G_LIST_MODEL (store);
}

/* ---- the table ---- */

typedef enum {
  COL_NAME,
  COL_SELF,
  COL_TOTAL,
  COL_A,
  COL_B,
  COL_CHANGE,
  COL_Q,
  N_COLUMNS
} Column;

struct _TslCallTree
{
  GtkWidget             parent_instance;

  /* Template widgets */
  GtkScrolledWindow    *scroller;
  GtkColumnView        *column_view;

  /* Owned references */
  TslFlame             *flame;
  GListStore           *roots;
  GtkTreeListModel     *tree;
  GtkColumnViewColumn  *columns[N_COLUMNS];
};

enum {
  NODE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (TslCallTree, tsl_call_tree, GTK_TYPE_WIDGET)

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  TslCallTreeItem *row = item;

  if (row->node->n_children == 0)
    return NULL;
  return children_of (row->flame, row->node);
}

static TslCallTreeItem *
item_of (GtkListItem *list_item)
{
  GtkTreeListRow *row = gtk_list_item_get_item (list_item);

  return row != NULL ? gtk_tree_list_row_get_item (row) : NULL;
}

static double
share_of (const TslFlameNode *node,
          double              weight)
{
  const TslFlameNode *root = node;

  while (root->parent != NULL)
    root = root->parent;
  return root->total > 0 ? weight / root->total : NAN;
}

static double
sort_key (const TslFlameNode *node,
          Column              column)
{
  const TslFlameDiff *d = node->diff;

  switch (column)
    {
    case COL_SELF: return share_of (node, node->self);
    case COL_TOTAL: return share_of (node, node->total);
    /* The layout's widths, so A and B agree with Total and the graph. */
    case COL_A: return d ? d->a_width : NAN;
    case COL_B: return d ? d->b_width : NAN;
    case COL_CHANGE: return d && (d->a_width > 0 || d->b_width > 0) ? tsl_relative_change (d->a_width, d->b_width) : NAN;
    case COL_Q: return d ? d->q_value : NAN;
    case COL_NAME:
    case N_COLUMNS:
    default: return 0;
    }
}

static char *
cell_text (const TslFlameNode *node,
           Column              column)
{
  double value = sort_key (node, column);

  /* A side the path is absent from: said, never "+207931.2 %" (a share
   * over next to nothing) nor "—". */
  if (column == COL_CHANGE && node->diff != NULL && node->diff->a_width <= 0 && node->diff->b_width > 0)
    return g_strdup (_("new in B"));
  if (column == COL_CHANGE && node->diff != NULL && node->diff->b_width <= 0 && node->diff->a_width > 0)
    return g_strdup (_("gone in B"));
  if (isnan (value))
    return g_strdup ("—");
  switch (column)
    {
    case COL_CHANGE:
      return g_strdup_printf ("%+.1f %%", 100 * value);
    case COL_Q:
      return g_strdup_printf ("%.3g", value);
    case COL_NAME:
      return g_strdup (node->name);
    case COL_SELF:
    case COL_TOTAL:
    case COL_A:
    case COL_B:
    case N_COLUMNS:
    default:
      return g_strdup_printf ("%.2f %%", 100 * value);
    }
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  data)
{
  Column column = GPOINTER_TO_INT (data);
  GtkWidget *label = gtk_label_new (NULL);

  if (column == COL_NAME)
    {
      GtkWidget *expander = gtk_tree_expander_new ();

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), label);
      gtk_list_item_set_child (item, expander);
      return;
    }

  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  data)
{
  Column column = GPOINTER_TO_INT (data);
  TslCallTreeItem *row = item_of (item);
  GtkWidget *child = gtk_list_item_get_child (item);
  g_autofree char *text = NULL;

  if (row == NULL)
    return;
  text = cell_text (row->node, column);

  if (column == COL_NAME)
    {
      g_autofree char *path = tsl_flame_node_get_path (row->node, " › ");

      gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), gtk_list_item_get_item (item));
      child = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child));
      gtk_widget_set_tooltip_text (child, path);
    }
  else if (column == COL_CHANGE || column == COL_Q)
    {
      gboolean significant = row->node->diff && row->node->diff->significant;

      /* Significance by weight and colour together, never colour alone. */
      if (significant)
        {
          gtk_widget_add_css_class (child, "heading");
          gtk_widget_remove_css_class (child, "dim-label");
        }
      else
        {
          gtk_widget_remove_css_class (child, "heading");
          gtk_widget_add_css_class (child, "dim-label");
        }
    }

  gtk_label_set_label (GTK_LABEL (child), text);
  g_object_unref (row);
}

static int
compare_items (gconstpointer a,
               gconstpointer b,
               gpointer      data)
{
  Column column = GPOINTER_TO_INT (data);
  const TslFlameNode *na = ((TslCallTreeItem *) a)->node;
  const TslFlameNode *nb = ((TslCallTreeItem *) b)->node;

  if (column == COL_NAME)
    return g_utf8_collate (na->name, nb->name);

  return tsl_column_view_compare_keys (sort_key (na, column), sort_key (nb, column));
}

static void
add_columns (TslCallTree *self)
{
  /* Shares of each side's root weight, as the graph's widths. */
  static const char * const titles[N_COLUMNS] = {
    N_("Call Path"), N_("Self"), N_("Total"), N_("Total in A"), N_("Total in B"), N_("Change A → B"), N_("q-value"),
  };

  tsl_column_view_add_columns (self->column_view, titles, N_COLUMNS,
                               G_CALLBACK (setup_cell), G_CALLBACK (bind_cell), compare_items,
                               COL_NAME, self->columns);
  /* Room for a frame's name: the numbers' columns fit their text. */
  gtk_column_view_column_set_fixed_width (self->columns[COL_NAME], 220);
  /* A, B and the change appear with a differential tree. */
  for (int c = 0; c < N_COLUMNS; c++)
    gtk_column_view_column_set_visible (self->columns[c], c <= COL_TOTAL);
}

static void
on_activate (GtkColumnView *view,
             guint          position,
             TslCallTree   *self)
{
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (view));
  g_autoptr(GtkTreeListRow) row = g_list_model_get_item (model, position);
  g_autoptr(TslCallTreeItem) item = row ? gtk_tree_list_row_get_item (row) : NULL;

  if (item != NULL)
    g_signal_emit (self, signals[NODE_ACTIVATED], 0, item->node);
}

void
tsl_call_tree_set_flame (TslCallTree *self,
                         TslFlame    *flame)
{
  g_autoptr(GListModel) roots = NULL;
  gboolean diff, cpu;

  g_return_if_fail (TSL_IS_CALL_TREE (self));

  if (flame == self->flame)
    return;
  if (flame != NULL)
    tsl_flame_ref (flame);
  g_clear_pointer (&self->flame, tsl_flame_unref);
  self->flame = flame;

  diff = flame != NULL && tsl_flame_is_diff (flame);
  cpu = flame != NULL && tsl_flame_get_weight (flame) == TSL_FLAME_WEIGHT_CPU;
  for (int c = COL_A; c < N_COLUMNS; c++)
    gtk_column_view_column_set_visible (self->columns[c], diff);
  /* A differential tree is laid out from B: its Self and Total are B's,
   * and B's total share is the Total column, shown once. */
  gtk_column_view_column_set_visible (self->columns[COL_TOTAL], !diff);
  gtk_column_view_column_set_title (self->columns[COL_SELF],
                                    cpu ? (diff ? _("Self CPU in B") : _("Self CPU"))
                                        : (diff ? _("Self in B") : _("Self")));
  gtk_column_view_column_set_title (self->columns[COL_TOTAL], cpu ? _("Total CPU") : _("Total"));
  gtk_column_view_column_set_title (self->columns[COL_A], cpu ? _("CPU in A") : _("Total in A"));
  gtk_column_view_column_set_title (self->columns[COL_B], cpu ? _("CPU in B") : _("Total in B"));

  g_list_store_remove_all (self->roots);
  if (flame == NULL)
    return;

  /* All at once: appended one by one, the first (alphabetical) stayed
   * selected and in view as heavier rows sorted in above it, and the
   * table opened scrolled past them. */
  roots = children_of (flame, tsl_flame_get_root (flame));
  {
    guint n = g_list_model_get_n_items (roots);
    g_autofree gpointer *items = g_new0 (gpointer, MAX (n, 1));

    for (guint i = 0; i < n; i++)
      items[i] = g_list_model_get_item (roots, i);
    g_list_store_splice (self->roots, 0, 0, items, n);
    for (guint i = 0; i < n; i++)
      g_object_unref (items[i]);
  }
}

/**
 * tsl_call_tree_get_flame:
 *
 * Returns: (transfer none) (nullable): the tree shown
 */
TslFlame *
tsl_call_tree_get_flame (TslCallTree *self)
{
  g_return_val_if_fail (TSL_IS_CALL_TREE (self), NULL);

  return self->flame;
}

/**
 * tsl_call_tree_get_model:
 *
 * Returns: (transfer none): the rows as shown (GtkTreeListRow items)
 */
GListModel *
tsl_call_tree_get_model (TslCallTree *self)
{
  g_return_val_if_fail (TSL_IS_CALL_TREE (self), NULL);

  return G_LIST_MODEL (gtk_column_view_get_model (self->column_view));
}

static void
tsl_call_tree_dispose (GObject *object)
{
  TslCallTree *self = TSL_CALL_TREE (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), TSL_TYPE_CALL_TREE);
  g_clear_object (&self->tree);
  g_clear_object (&self->roots);
  g_clear_pointer (&self->flame, tsl_flame_unref);

  G_OBJECT_CLASS (tsl_call_tree_parent_class)->dispose (object);
}

static void
tsl_call_tree_class_init (TslCallTreeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tsl_call_tree_dispose;

  /**
   * TslCallTree::node-activated:
   * @node: (type gpointer): the TslFlameNode of the row
   *
   * A row was activated (double click or Enter), e.g. to zoom the flame
   * graph to it.
   */
  signals[NODE_ACTIVATED] = g_signal_new ("node-activated", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_POINTER);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/timeslice/Timeslice/tsl-call-tree.ui");
  gtk_widget_class_bind_template_child (widget_class, TslCallTree, scroller);
  gtk_widget_class_bind_template_child (widget_class, TslCallTree, column_view);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);
  gtk_widget_class_set_css_name (widget_class, "calltree");
}

static void
tsl_call_tree_init (TslCallTree *self)
{
  g_autoptr(GtkSelectionModel) selection = NULL;
  GtkSortListModel *sorted;
  GtkTreeListRowSorter *row_sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  add_columns (self);

  self->roots = g_list_store_new (TSL_TYPE_CALL_TREE_ITEM);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->roots)), FALSE, FALSE,
                                        create_children, NULL, NULL);
  row_sorter = gtk_tree_list_row_sorter_new (g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->tree)), GTK_SORTER (row_sorter));
  selection = GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (sorted)));
  gtk_column_view_set_model (self->column_view, selection);
  /* One stop of the Tab chain, however many rows (tsl-column-view.h). */
  tsl_column_view_tab_leaves (self->column_view);
  /* Heaviest paths first, as profilers list them. */
  gtk_column_view_sort_by_column (self->column_view, self->columns[COL_TOTAL], GTK_SORT_DESCENDING);
}

GtkWidget *
tsl_call_tree_new (void)
{
  return g_object_new (TSL_TYPE_CALL_TREE, NULL);
}
