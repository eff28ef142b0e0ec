/* tsl-application.c: the application: single instance, app actions, settings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-application"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "tsl-application.h"
#include "tsl-chunk-index.h"
#include "tsl-cli.h"
#include "tsl-window.h"

struct _TslApplication
{
  AdwApplication  parent_instance;
  GSettings      *settings;
};

G_DEFINE_FINAL_TYPE (TslApplication, tsl_application, ADW_TYPE_APPLICATION)

static TslWindow *
new_window (TslApplication *self)
{
  TslWindow *window = tsl_window_new (self);

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
tsl_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    new_window (TSL_APPLICATION (app));
  else
    gtk_window_present (window);
}

/* Each file gets its own window, also when a second `timeslice FILE` hands its
 * files to the running instance. */
static void
open_files (TslApplication  *self,
            GFile          **files,
            int              n_files,
            gboolean         follow)
{
  for (int i = 0; i < n_files; i++)
    {
      TslWindow *window = NULL;

      /* Reuse the empty window that plain activation may have opened. */
      for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
        {
          if (TSL_IS_WINDOW (l->data) && tsl_window_is_empty (l->data))
            {
              window = l->data;
              break;
            }
        }

      if (window == NULL)
        window = new_window (self);

      tsl_window_set_follow (window, follow);
      tsl_window_open (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

/* Files from the desktop (drag and drop onto the icon, "Open With"). */
static void
tsl_application_open (GApplication  *app,
                      GFile        **files,
                      int            n_files,
                      const char    *hint)
{
  open_files (TSL_APPLICATION (app), files, n_files, FALSE);
}

/* Command-line names are paths, even with a colon: GIO took
 * "trace-2024-01-01T12:30:00.json" for a URI of scheme "trace-2024-01-01t12".
 * Only "scheme://…" is a URI. Relative paths are resolved against the
 * working directory of the instance that was given them. */
static GFile *
file_for_arg (GApplicationCommandLine *command_line,
              const char              *arg)
{
  const char *cwd = g_application_command_line_get_cwd (command_line);

  if (strstr (arg, "://") != NULL)
    return g_file_new_for_commandline_arg (arg);
  if (g_path_is_absolute (arg) || cwd == NULL)
    return g_file_new_for_path (arg);
  return g_file_new_build_filename (cwd, arg, NULL);
}

/* A command line, run in the primary instance even when it came from a
 * second `timeslice --follow FILE`: its options travel with its files, and
 * relative names are resolved against its working directory. */
/* --offset FILE=DURATION: FILE as given, by its name or its path; a
 * duration may be negative. FALSE (with the message printed) on a bad one. */
static gboolean
parse_offsets (GApplicationCommandLine *command_line,
               const char * const      *specs,
               const char * const      *names,
               GPtrArray               *files,
               gint64                  *offsets)
{
  for (guint s = 0; specs != NULL && specs[s] != NULL; s++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GFile) named = NULL;
      g_autoptr(GError) error = NULL;
      gboolean found = FALSE;
      gint64 ns = 0;

      if (!tsl_cli_parse_offset (specs[s], &name, &ns, &error))
        {
          g_application_command_line_printerr (command_line, "timeslice: %s\n", error->message);
          return FALSE;
        }
      named = file_for_arg (command_line, name);
      for (guint i = 0; i < files->len; i++)
        {
          g_autofree char *base = g_file_get_basename (g_ptr_array_index (files, i));

          if (g_str_equal (names[i], name) || g_str_equal (base, name) ||
              g_file_equal (named, g_ptr_array_index (files, i)))
            {
              offsets[i] = ns;
              found = TRUE;
            }
        }
      if (!found)
        {
          g_application_command_line_printerr (command_line,
                                               "timeslice: --offset names “%s”, which is not one of the files\n", name);
          return FALSE;
        }
    }
  return TRUE;
}

static int
tsl_application_command_line (GApplication            *app,
                              GApplicationCommandLine *command_line)
{
  GVariantDict *options = g_application_command_line_get_options_dict (command_line);
  g_autofree const char **names = NULL;
  g_autofree const char **offset_specs = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean merge = g_variant_dict_contains (options, "merge");

  if (g_variant_dict_lookup (options, G_OPTION_REMAINING, "^a&ay", &names))
    for (guint i = 0; names[i] != NULL; i++)
      g_ptr_array_add (files, file_for_arg (command_line, names[i]));

  /* For the whole process, as the "use-cache" setting is. */
  if (g_variant_dict_contains (options, "no-cache"))
    tsl_cache_set_enabled (FALSE);

  g_variant_dict_lookup (options, "offset", "^a&s", &offset_specs);
  if (offset_specs != NULL && !merge)
    {
      g_application_command_line_printerr (command_line, "timeslice: --offset needs --merge\n");
      return 2;
    }
  if (merge && files->len > 1)
    {
      g_autofree gint64 *offsets = g_new0 (gint64, files->len);
      TslWindow *window;

      if (!parse_offsets (command_line, offset_specs, names, files, offsets))
        return 2;
      window = new_window (TSL_APPLICATION (app));
      tsl_window_set_follow (window, g_variant_dict_contains (options, "follow"));
      tsl_window_open_merged (window, (GFile **) files->pdata, files->len, offsets);
      gtk_window_present (GTK_WINDOW (window));
      return 0;
    }

  if (files->len == 0)
    g_application_activate (app);
  else
    open_files (TSL_APPLICATION (app), (GFile **) files->pdata, files->len,
                g_variant_dict_contains (options, "follow"));
  return 0;
}

static int
tsl_application_handle_local_options (GApplication *app,
                                      GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
      return 0;
    }

  return -1;
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  TslApplication *self = user_data;
  static const char *developers[] = { "The Timeslice developers", NULL };
  GtkWindow *window;

  window = gtk_application_get_active_window (GTK_APPLICATION (self));
  adw_show_about_window (window,
                         "application-name", _("Timeslice"),
                         "application-icon", APP_ID,
                         "developer-name", _("The Timeslice developers"),
                         "version", PACKAGE_VERSION,
                         "comments", _("See which changes in your traces are real and which are noise"),
                         "website", "https://timeslice.example.org",
                         "issue-url", "https://timeslice.example.org/issues",
                         "developers", developers,
                         "copyright", "© 2026 The Timeslice developers",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
help_launched (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GtkWindow) window = user_data;
  g_autoptr(GError) error = NULL;
  AdwMessageDialog *dialog;

  if (g_app_info_launch_default_for_uri_finish (result, &error))
    return;
  /* No help browser (yelp) is installed, or the help is not. */
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (window, _("The Help Could Not Be Opened"), NULL));
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("Timeslice’s help is read with a help browser such as Yelp "
                                    "(the Debian package “yelp”). %s"),
                                  error->message);
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
help_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  g_autoptr(GdkAppLaunchContext) context = NULL;

  if (window != NULL)
    context = gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (window)));
  g_app_info_launch_default_for_uri_async ("help:" PACKAGE_NAME, G_APP_LAUNCH_CONTEXT (context), NULL,
                                           help_launched, window != NULL ? g_object_ref (window) : NULL);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static void
new_window_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  new_window (TSL_APPLICATION (user_data));
}

static const GActionEntry app_actions[] = {
  { "about", about_action },
  { "help", help_action },
  { "quit", quit_action },
  { "new-window", new_window_action },
};

/* Installed, the schema is in the system source; run from the build tree
 * (build-aux/dev run, tests), it is the one compiled into the build dir. */
static GSettings *
new_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchemaSource) build_source = NULL;
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);

  if (schema == NULL)
    {
      g_autoptr(GError) error = NULL;

      build_source = g_settings_schema_source_new_from_directory (BUILD_SCHEMA_DIR, source, FALSE, &error);
      if (build_source == NULL)
        g_error ("Settings schema %s is not installed and %s has none: %s",
                 APP_ID, BUILD_SCHEMA_DIR, error->message);
      schema = g_settings_schema_source_lookup (build_source, APP_ID, TRUE);
      if (schema == NULL)
        g_error ("Settings schema %s is not installed", APP_ID);
    }

  return g_settings_new_full (schema, NULL, NULL);
}

static void
use_cache_changed (GSettings  *settings,
                   const char *key,
                   gpointer    user_data)
{
  tsl_cache_set_enabled (g_settings_get_boolean (settings, key));
}

static void
tsl_application_startup (GApplication *app)
{
  static const struct { const char *action; const char *accels[3]; } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.help", { "F1", NULL } },
    { "app.new-window", { "<Control>n", NULL } },
    { "window.close", { "<Control>w", NULL } },
    { "win.open", { "<Control>o", NULL } },
    { "win.find", { "<Control>f", NULL } },
    { "win.export", { "<Control>e", NULL } },
  };
  TslApplication *self = TSL_APPLICATION (app);

  G_APPLICATION_CLASS (tsl_application_parent_class)->startup (app);

  self->settings = new_settings ();
  /* Reopening an unchanged file loads its cached state (tsl-state-cache.h). */
  tsl_cache_set_enabled (g_settings_get_boolean (self->settings, "use-cache"));
  g_signal_connect (self->settings, "changed::use-cache", G_CALLBACK (use_cache_changed), NULL);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self),
                                           accels[i].action, accels[i].accels);

  /* Follow the system's light/dark preference; no per-app override. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      ADW_COLOR_SCHEME_DEFAULT);
}

static void
tsl_application_dispose (GObject *object)
{
  TslApplication *self = TSL_APPLICATION (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (tsl_application_parent_class)->dispose (object);
}

static void
tsl_application_class_init (TslApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = tsl_application_dispose;

  app_class->activate = tsl_application_activate;
  app_class->open = tsl_application_open;
  app_class->command_line = tsl_application_command_line;
  app_class->startup = tsl_application_startup;
  app_class->handle_local_options = tsl_application_handle_local_options;
}

static void
tsl_application_init (TslApplication *self)
{
  static const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and exit"), NULL },
    { "follow", 'f', 0, G_OPTION_ARG_NONE, NULL, N_("Keep reading the files as they grow"), NULL },
    { "merge", 'm', 0, G_OPTION_ARG_NONE, NULL, N_("Show the files as one timeline, a group per file"), NULL },
    { "offset", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
      N_("With --merge: shift FILE along the time axis by DURATION (e.g. b.json=1.5s)"), N_("FILE=DURATION") },
    { "no-cache", 0, 0, G_OPTION_ARG_NONE, NULL,
      N_("Neither use nor write the cache of file indexes and sampler states"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, NULL },
    { NULL }
  };
  g_autofree char *commands = tsl_cli_describe_commands ();

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE…]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Open profiler traces and metric files in a window."));
  g_application_set_option_context_description (G_APPLICATION (self), commands);
}

TslApplication *
tsl_application_new (void)
{
  return g_object_new (TSL_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/org/timeslice/Timeslice",
                       NULL);
}

/**
 * tsl_application_get_settings:
 *
 * Returns: (transfer none): the application's settings
 */
GSettings *
tsl_application_get_settings (TslApplication *self)
{
  g_return_val_if_fail (TSL_IS_APPLICATION (self), NULL);

  return self->settings;
}

/**
 * tsl_application_dup_example:
 *
 * Returns: (transfer full) (nullable): the bundled example trace
 */
GFile *
tsl_application_dup_example (TslApplication *self)
{
  const char *dirs[] = { g_getenv ("TSL_EXAMPLES_DIR"), EXAMPLES_DIR, SOURCE_EXAMPLES_DIR };

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = NULL;

      if (dirs[i] == NULL)
        continue;
      path = g_build_filename (dirs[i], "example-trace.json", NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_file_new_for_path (path);
    }

  return NULL;
}
