/* test-shortcuts.c: the shortcuts window lists every key the app registers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every accelerator of the application's actions, every key a widget of the
 * window binds to one of its actions (class shortcuts: win., timeline.,
 * flame.) and every mnemonic of the flame page's toolbar (Alt+P for CPU
 * Time, …) appears in the shortcuts window (ui/gtk/help-overlay.ui), as an
 * accelerator or through an action-name.
 */
#include "config.h"

#include "tsl-application.h"
#include "tsl-window-private.h"
#include "test-ui-util.h"

static TslApplication *app;

typedef struct { guint keyval; GdkModifierType mods; } Key;

static guint
key_hash (gconstpointer p)
{
  const Key *k = p;

  return g_direct_hash (GUINT_TO_POINTER (k->keyval ^ (k->mods << 20)));
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  const Key *x = a, *y = b;

  return x->keyval == y->keyval && x->mods == y->mods;
}

static void
add_accel (GHashTable *set,
           const char *accel)
{
  Key *k = g_new0 (Key, 1);

  g_assert_true (gtk_accelerator_parse (accel, &k->keyval, &k->mods));
  k->keyval = gdk_keyval_to_lower (k->keyval);
  g_hash_table_add (set, k);
}

static char *
key_name (const Key *k)
{
  return gtk_accelerator_name (k->keyval, k->mods);
}

/* The accelerators the shortcuts window shows. */
static void
collect_listed (GtkWidget  *widget,
                GHashTable *listed)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      g_autofree char *accelerator = NULL;
      g_autofree char *action = NULL;

      g_object_get (widget, "accelerator", &accelerator, "action-name", &action, NULL);
      if (accelerator != NULL)
        {
          g_auto(GStrv) accels = g_strsplit (accelerator, " ", -1);

          for (guint i = 0; accels[i] != NULL; i++)
            if (*accels[i] != '\0')
              add_accel (listed, accels[i]);
        }
      if (action != NULL)
        {
          g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), action);

          g_assert_nonnull (accels[0]);
          for (guint i = 0; accels[i] != NULL; i++)
            add_accel (listed, accels[i]);
        }
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_listed (c, listed);
}

static gboolean
is_ours (const char *action)
{
  return g_str_has_prefix (action, "win.") || g_str_has_prefix (action, "app.") ||
         g_str_has_prefix (action, "timeline.") || g_str_has_prefix (action, "flame.");
}

/* The keys the window's widgets bind to the app's own actions. */
static void
collect_bound (GtkWidget  *widget,
               GHashTable *bound)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
          Key *k;

          if (!GTK_IS_NAMED_ACTION (action) || !is_ours (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action))))
            continue;
          g_assert_true (GTK_IS_KEYVAL_TRIGGER (trigger));
          k = g_new0 (Key, 1);
          k->keyval = gdk_keyval_to_lower (gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)));
          k->mods = gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger));
          g_hash_table_add (bound, k);
        }
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_bound (c, bound);
}

static void
collect_mnemonics (GtkWidget  *widget,
                   GHashTable *mnemonics)
{
  if (GTK_IS_LABEL (widget) && gtk_label_get_mnemonic_keyval (GTK_LABEL (widget)) != GDK_KEY_VoidSymbol)
    {
      Key *k = g_new0 (Key, 1);

      k->keyval = gdk_keyval_to_lower (gtk_label_get_mnemonic_keyval (GTK_LABEL (widget)));
      k->mods = GDK_ALT_MASK;
      g_hash_table_add (mnemonics, k);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_mnemonics (c, mnemonics);
}

static guint
check_listed (GHashTable *keys,
              GHashTable *listed,
              const char *what)
{
  GHashTableIter iter;
  gpointer key;
  guint missing = 0;

  g_hash_table_iter_init (&iter, keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (listed, key))
      {
        g_autofree char *name = key_name (key);

        g_test_message ("%s %s is not in the shortcuts window", what, name);
        missing++;
      }
  return missing;
}

static void
test_every_key_listed (void)
{
  TslWindow *window = tsl_window_new (app);
  g_autoptr(GHashTable) listed = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  g_autoptr(GHashTable) bound = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  g_autoptr(GHashTable) mnemonics = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  GtkShortcutsWindow *overlay;
  Key alt_p = { GDK_KEY_p, GDK_ALT_MASK };
  guint missing = 0;

  gtk_window_present (GTK_WINDOW (window));
  iterate_until (is_mapped, window, 10000);
  overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_assert_nonnull (overlay);
  collect_listed (GTK_WIDGET (overlay), listed);

  /* The application's accelerators (Ctrl+O, F1, Ctrl+?, …). */
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), actions[i]);

      for (guint j = 0; accels[j] != NULL; j++)
        add_accel (bound, accels[j]);
    }
  collect_bound (GTK_WIDGET (window), bound);
  /* The timeline's, the flame view's and the window's own keys were found. */
  g_assert_cmpuint (g_hash_table_size (bound), >=, 30);
  missing += check_listed (bound, listed, "key");

  collect_mnemonics (adw_view_stack_get_child_by_name (window->view_stack, "flame"), mnemonics);
  g_assert_true (g_hash_table_contains (mnemonics, &alt_p));
  missing += check_listed (mnemonics, listed, "flame page mnemonic");
  g_assert_cmpuint (missing, ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  if (!ui_test_init ())
    return 77;

  app = ui_test_app_new ();

  g_test_add_func ("/shortcuts/every-key-listed", test_every_key_listed);

  ret = g_test_run ();
  g_clear_object (&app);
  return ret;
}
