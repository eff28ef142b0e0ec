/* tsl-cli-export-merge.c: `export --merge`, several files drawn as one timeline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's merge (docs/ARCHITECTURE.md, "Several files") on the command
 * line: each file read on its own, their snapshots aligned by
 * tsl_snapshot_align(), moved by --offset and merged.
 */
#define G_LOG_DOMAIN "tsl-cli"

#include "config.h"

#include <string.h>

#include "tsl-cli-private.h"
#include "tsl-duration.h"
#include "tsl-render.h"
#include "tsl-snapshot.h"

gboolean
tsl_cli_parse_offset (const char  *spec,
                      char       **file,
                      gint64      *ns,
                      GError     **error)
{
  /* The last '=': a duration holds none, a file name may. */
  const char *eq = strrchr (spec, '=');
  const char *text;
  gboolean negative;
  double value = 0;

  if (eq == NULL || eq == spec)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--offset must be FILE=DURATION, e.g. b.json=1.5s, not “%s”", spec);
      return FALSE;
    }
  text = eq + 1;
  negative = text[0] == '-';
  if (!tsl_duration_parse (negative ? text + 1 : text, &value, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--offset %s: “%s” is not a duration (e.g. 1.5s, -200ms)", spec, text);
      return FALSE;
    }
  *file = g_strndup (spec, (gsize) (eq - spec));
  *ns = (gint64) (negative ? -value : value);
  return TRUE;
}

gboolean
tsl_cli_match_offsets (const char * const *specs,
                       const char * const *paths,
                       guint               n,
                       gint64             *offsets,
                       GError            **error)
{
  for (guint s = 0; specs != NULL && specs[s] != NULL; s++)
    {
      g_autofree char *name = NULL;
      gboolean found = FALSE;
      gint64 ns;

      if (!tsl_cli_parse_offset (specs[s], &name, &ns, error))
        return FALSE;
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *base = g_path_get_basename (paths[i]);

          if (g_str_equal (paths[i], name) || g_str_equal (base, name))
            {
              offsets[i] = ns;
              found = TRUE;
            }
        }
      if (!found)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--offset names “%s”, which is not one of the files", name);
          return FALSE;
        }
    }
  return TRUE;
}

int
tsl_cli_export_merged (const TslCliMergeOptions *o)
{
  g_autoptr(GPtrArray) snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) tsl_snapshot_unref);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree gint64 *starts = g_new0 (gint64, o->n_paths);
  g_autofree gint64 *spans = g_new0 (gint64, o->n_paths);
  g_autofree gint64 *positions = g_new0 (gint64, o->n_paths);
  g_autofree gint64 *offsets = g_new0 (gint64, o->n_paths);
  g_autoptr(TslSnapshot) merged = NULL;
  g_autoptr(GString) title = g_string_new (NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  TslRenderOptions options;

  if (!tsl_cli_match_offsets ((const char * const *) o->offsets, (const char * const *) o->paths,
                              o->n_paths, offsets, &error))
    return tsl_cli_fail (TSL_EXIT_USAGE, "export: %s", error->message);

  for (guint i = 0; i < o->n_paths; i++)
    {
      g_autoptr(TslTrace) trace = NULL;
      TslSnapshot *snapshot;

      if (g_str_equal (o->paths[i], "-"))
        return tsl_cli_fail (TSL_EXIT_USAGE, "export: --merge reads files, not standard input");
      /* Time mode, as the window draws. */
      trace = tsl_cli_load (o->paths[i], TSL_SAMPLER_TIME, o->k, TSL_CLI_DEFAULT_SEED, &error);
      if (trace == NULL)
        return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
      snapshot = tsl_snapshot_new (trace);
      g_ptr_array_add (snapshots, snapshot);
      g_ptr_array_add (names, g_path_get_basename (o->paths[i]));
      starts[i] = tsl_snapshot_get_start (snapshot);
      spans[i] = tsl_snapshot_get_span (snapshot);
      g_string_append_printf (title, "%s%s", i > 0 ? " + " : "", (char *) g_ptr_array_index (names, i));
    }

  tsl_snapshot_align (starts, spans, o->n_paths, positions);
  for (guint i = 0; i < o->n_paths; i++)
    positions[i] += offsets[i];
  merged = tsl_snapshot_new_merged ((TslSnapshot * const *) snapshots->pdata,
                                    (const char * const *) names->pdata, positions, o->n_paths);

  tsl_render_options_init (&options, merged, o->width, 100);
  options.title = title->str;
  options.draw_note = TRUE;
  options.dark = o->dark;
  if (o->range_a && !tsl_cli_resolve_range ("export", "--a", o->range_a, tsl_snapshot_get_span (merged),
                                            &options.a_start_ns, &options.a_end_ns))
    return TSL_EXIT_USAGE;
  options.has_a = o->range_a != NULL;
  if (o->range_b && !tsl_cli_resolve_range ("export", "--b", o->range_b, tsl_snapshot_get_span (merged),
                                            &options.b_start_ns, &options.b_end_ns))
    return TSL_EXIT_USAGE;
  options.has_b = o->range_b != NULL;
  options.height = o->height > 0 ? o->height : MIN (tsl_export_natural_height (merged, &options), o->max_side);

  file = g_file_new_for_path (o->output);
  if (!tsl_export_timeline (merged, &options, o->format, file, NULL, &error))
    return tsl_cli_fail (TSL_EXIT_INPUT, "%s", error->message);
  return TSL_EXIT_OK;
}
