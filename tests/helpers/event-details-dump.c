/* event-details-dump.c: every exact slice of a file with its event's details
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not a test: the helper tests/unit/test-event-details.py runs, which holds
 * the assertions. For it: reads FILE recording every slice, then prints
 * one JSON object a line per slice: its offset, start, name, and the fields
 * tsl_slice_details_read() returns (or the error it gives).
 */
#include <stdio.h>
#include <json-glib/json-glib.h>

#include "tsl-event-details.h"
#include "tsl-exact.h"
#include "tsl-read-stream.h"
#include "tsl-snapshot.h"
#include "tsl-trace.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(TslTrace) trace = NULL;
  g_autoptr(TslSnapshot) snapshot = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  if (argc != 2)
    {
      g_printerr ("usage: %s FILE\n", argv[0]);
      return 2;
    }
  file = g_file_new_for_path (argv[1]);
  trace = tsl_trace_new (TSL_SAMPLER_TIME, 64, 1);
  tsl_trace_record_exact (trace, TSL_EXACT_PER_TRACK, TSL_EXACT_TOTAL);
  if (!tsl_read_path (trace, argv[1], NULL, NULL, NULL, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  snapshot = tsl_snapshot_new (trace);
  for (guint t = 0; t < tsl_snapshot_get_n_tracks (snapshot); t++)
    {
      const TslSnapshotTrack *track = tsl_snapshot_get_track (snapshot, t);

      /* Counters are not slices. */
      if (!track->exact && track->kind != TSL_TRACK_COUNTER)
        {
          g_printerr ("track %s is not exact\n", track->name);
          return 1;
        }
      for (guint i = 0; i < track->n_slices; i++)
        {
          const TslSnapshotSlice *slice = &track->slices[i];
          g_autoptr(JsonBuilder) b = json_builder_new ();
          g_autoptr(JsonGenerator) gen = json_generator_new ();
          g_autoptr(JsonNode) root = NULL;
          g_autoptr(GPtrArray) fields = NULL;
          g_autoptr(GError) details_error = NULL;
          g_autofree char *line = NULL;

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "offset");
          json_builder_add_int_value (b, slice->offset);
          json_builder_set_member_name (b, "start_ns");
          json_builder_add_int_value (b, slice->start_ns + tsl_snapshot_get_start (snapshot));
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, tsl_snapshot_get_frame_name (snapshot, slice->frame));
          fields = tsl_slice_details_read (file, slice->offset, NULL, &details_error);
          if (fields == NULL)
            {
              json_builder_set_member_name (b, "error");
              json_builder_add_string_value (b, details_error->message);
            }
          else
            {
              json_builder_set_member_name (b, "fields");
              json_builder_begin_array (b);
              for (guint f = 0; f < fields->len; f++)
                {
                  TslEventField *field = g_ptr_array_index (fields, f);

                  json_builder_begin_array (b);
                  json_builder_add_string_value (b, field->key);
                  json_builder_add_string_value (b, field->value);
                  json_builder_end_array (b);
                }
              json_builder_end_array (b);
            }
          json_builder_end_object (b);
          root = json_builder_get_root (b);
          json_generator_set_root (gen, root);
          line = json_generator_to_data (gen, NULL);
          /* Not g_print(): that recodes to the locale's charset. */
          fputs (line, stdout);
          fputc ('\n', stdout);
        }
    }
  return 0;
}
