/* tsl-report.c: what a report says, whichever file it is written to
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-report"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <langinfo.h>
#endif

#include <glib/gi18n-lib.h>

#include "tsl-duration.h"
#include "tsl-report-private.h"
#include "tsl-snapshot.h"
#include "tsl-time-math.h"

#define A4_WIDTH      595.276
#define A4_HEIGHT     841.890
#define LETTER_WIDTH  612.0
#define LETTER_HEIGHT 792.0

#define TSL_REPORT_FIRST 5   /* significant rows named on the first page */

gboolean
tsl_report_format_from_name (const char       *name,
                             TslReportFormat  *format,
                             GError          **error)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  if (g_str_has_suffix (lower, ".pdf"))
    *format = TSL_REPORT_PDF;
  else if (g_str_has_suffix (lower, ".html") || g_str_has_suffix (lower, ".htm"))
    *format = TSL_REPORT_HTML;
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: unknown report type (expected a name ending in .pdf or .html)"), name);
      return FALSE;
    }
  return TRUE;
}

char *
tsl_report_digest_file (GFile         *file,
                        guint64       *size,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GFileInputStream) in = g_file_read (file, cancellable, error);
  g_autofree guchar *buf = g_malloc (1 << 20);
  gssize n;

  *size = 0;
  if (in == NULL)
    return NULL;
  while ((n = g_input_stream_read (G_INPUT_STREAM (in), buf, 1 << 20, cancellable, error)) > 0)
    {
      g_checksum_update (sum, buf, n);
      *size += (guint64) n;
    }
  if (n < 0)
    return NULL;
  return g_strdup (g_checksum_get_string (sum));
}

void
tsl_report_paper_size (double *width,
                       double *height)
{
  gboolean letter = FALSE;

#ifdef __GLIBC__
  /* glibc's LC_PAPER gives the paper in mm: 216 × 279 is Letter. (The
   * _NL_PAPER_* items are enum values, not macros: #ifdef cannot see them.) */
  letter = (int) (gintptr) nl_langinfo (_NL_PAPER_WIDTH) == 216 &&
           (int) (gintptr) nl_langinfo (_NL_PAPER_HEIGHT) == 279;
#endif
  *width = letter ? LETTER_WIDTH : A4_WIDTH;
  *height = letter ? LETTER_HEIGHT : A4_HEIGHT;
}

static void
fact_free (gpointer data)
{
  TslReportFact *fact = data;

  g_free (fact->label);
  g_free (fact->value);
  g_free (fact);
}

static void
add_fact (GPtrArray  *facts,
          const char *label,
          char       *value)
{
  TslReportFact *fact = g_new (TslReportFact, 1);

  fact->label = g_strdup (label);
  fact->value = value;
  g_ptr_array_add (facts, fact);
}

static GPtrArray *
collect_facts (const TslReport *r)
{
  GPtrArray *facts = g_ptr_array_new_with_free_func (fact_free);
  const TslRenderOptions *t = r->timeline;
  g_autoptr(GDateTime) now = r->date ? g_date_time_ref (r->date) : g_date_time_new_now_local ();
  g_autofree char *size = g_format_size (r->size);
  gint64 start_ns = 0, end_ns = 0;

  tsl_trace_get_span (r->trace, &start_ns, &end_ns);
  add_fact (facts, _("File"), g_path_get_basename (r->path));
  add_fact (facts, _("Size"), g_strdup_printf ("%" G_GUINT64_FORMAT " bytes (%s)", r->size, size));
  add_fact (facts, _("Format"), g_strdup (tsl_trace_get_format (r->trace)));
  add_fact (facts, "SHA-256", g_strdup (r->sha256));
  add_fact (facts, _("Span"), tsl_duration_format (tsl_time_ns_between (start_ns, end_ns)));
  add_fact (facts, _("Events"), g_strdup_printf ("%" G_GUINT64_FORMAT, tsl_trace_get_events (r->trace)));
  add_fact (facts, _("Tracks"), g_strdup_printf ("%u", tsl_trace_get_n_tracks (r->trace)));
  add_fact (facts, _("Range A"), tsl_duration_format_range (t->a_start_ns, t->a_end_ns));
  add_fact (facts, _("Range B"), tsl_duration_format_range (t->b_start_ns, t->b_end_ns));
  add_fact (facts, "K", g_strdup_printf ("%u", r->request->k));
  add_fact (facts, _("Seed"), g_strdup_printf ("%" G_GUINT64_FORMAT " (0x%" G_GINT64_MODIFIER "X)",
                                                r->request->seed, r->request->seed));
  add_fact (facts, _("Rounds"), g_strdup_printf ("%u", r->request->rounds));
  add_fact (facts, _("Confidence"), g_strdup_printf ("%g", r->request->confidence));
  add_fact (facts, _("Method"), g_strdup (r->request->method == TSL_COMPARE_SEED ? "seed" : "two-sample"));
  add_fact (facts, _("Version"), g_strdup ("Timeslice " PACKAGE_VERSION));
  add_fact (facts, _("Date"), g_date_time_format_iso8601 (now));
  return facts;
}

/* Significant rows first, each part in the order given: the core's impact
 * order (largest change of time per second first), or the window's sort. */
static int
order_rows (gconstpointer pa,
            gconstpointer pb)
{
  const TslCompareRow *a = *(const TslCompareRow * const *) pa;
  const TslCompareRow *b = *(const TslCompareRow * const *) pb;

  if (a->significant != b->significant)
    return a->significant ? -1 : 1;
  return 0;   /* g_ptr_array_sort() is stable */
}

/* `v` with `sig` significant digits in fixed notation, thousands and up
 * with an SI prefix ("172.7 k"): never 17 digits nor an exponent. */
static char *
format_sig (double      v,
            int         sig,
            const char *sign)
{
  static const char *prefix[] = { "", " k", " M", " G", " T" };
  char fmt[16], buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint p = 0;
  int decimals;

  while (fabs (v) >= 1e4 && p + 1 < G_N_ELEMENTS (prefix))
    {
      v /= 1e3;
      p++;
    }
  decimals = v == 0 ? 0 : sig - 1 - (int) floor (log10 (fabs (v)));
  decimals = CLAMP (decimals, 0, 9);
  g_snprintf (fmt, sizeof fmt, "%%%s.%df", sign, decimals);
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  return g_strconcat (buf, prefix[p], NULL);
}

/* A value of `row` in its unit: "574 µs", "12.3 %", "1.112 k/s". */
char *
_tsl_report_format_value (const TslCompareRow *row,
                          double               value)
{
  const char *unit = row->unit != NULL ? row->unit : "";
  g_autofree char *number = NULL;

  if (!isfinite (value))
    return g_strdup ("—");
  if (row->duration || strcmp (unit, "ns") == 0)
    return tsl_duration_format (value);
  if (strcmp (unit, "ns/s") == 0)
    {
      g_autofree char *time = tsl_duration_format (value);
      return g_strconcat (time, "/s", NULL);
    }
  if (strcmp (unit, "fraction") == 0)
    {
      number = format_sig (value * 100, 3, "");
      return g_strconcat (number, " %", NULL);
    }
  number = format_sig (value, 4, "");
  if (*unit == '\0')
    return g_steal_pointer (&number);
  return g_strconcat (number, *unit == '/' ? "" : " ", unit, NULL);
}

/* A relative change as a signed percentage: "+89.0 %", "+57300 %". */
char *
_tsl_report_format_change (double change)
{
  g_autofree char *number = NULL;
  double pct = change * 100;

  if (!isfinite (change))
    return g_strdup ("—");
  /* No change has no sign: "0 %", not "+0 %". */
  number = pct == 0 ? g_strdup ("0") : fabs (pct) >= 1e4 ? g_strdup_printf ("%+.0f", pct) : format_sig (pct, 3, "+");
  return g_strconcat (number, " %", NULL);
}

static char *
format_q (double q)
{
  if (!isfinite (q))
    return g_strdup ("—");
  return q < 0.001 ? g_strdup ("< 0.001") : format_sig (q, 2, "");
}

/* A row of a function (a track's calls), not of a metric's points. */
static gboolean
calls_of (const TslCompareRow *row)
{
  return row->duration || g_strcmp0 (row->unit, "fraction") == 0 || g_strcmp0 (row->unit, "ns/s") == 0 ||
         g_strcmp0 (row->unit, "ns") == 0;
}

/* "worker-1/parse: mean 55.7 µs → 160.3 µs, +188 % [+170 %, +205 %], q < 0.001, 230 vs 231 calls" */
static char *
row_sentence (const TslReportLine *line)
{
  const TslCompareRow *row = line->row;
  const char * const *c = (const char * const *) line->cells;
  g_autofree char *calls = g_strdup_printf (calls_of (row) ? _("%s vs %s calls") : _("%s vs %s points"),
                                            line->n_a, line->n_b);

  if (row->presence == TSL_COMPARE_NEW_IN_B)
    return g_strdup_printf (_("%s: %s new in B (%s), q %s, %s"), row->series, tsl_compare_row_stat_label (row),
                            c[TSL_REPORT_COL_B], c[TSL_REPORT_COL_Q], calls);
  if (row->presence == TSL_COMPARE_GONE_IN_B)
    return g_strdup_printf (_("%s: %s gone in B (was %s), q %s, %s"), row->series, tsl_compare_row_stat_label (row),
                            c[TSL_REPORT_COL_A], c[TSL_REPORT_COL_Q], calls);
  if (row->waiting)
    /* Translators: as below, then the wall row's and the CPU row's changes of a
     * function that waited (off CPU) */
    return g_strdup_printf (_("%s: %s %s → %s, %s %s, q %s, %s; wall %+.0f %%, CPU %+.0f %%: waiting"),
                            row->series, tsl_compare_row_stat_label (row), c[TSL_REPORT_COL_A], c[TSL_REPORT_COL_B],
                            c[TSL_REPORT_COL_CHANGE], c[TSL_REPORT_COL_CI], c[TSL_REPORT_COL_Q], calls,
                            round (row->wall_change * 100) + 0.0, round (row->cpu_change * 100) + 0.0);
  /* Translators: series: statistic A → B, change [interval], q, calls (or points) in A vs B */
  return g_strdup_printf (_("%s: %s %s → %s, %s %s, q %s, %s"), row->series, tsl_compare_row_stat_label (row),
                          c[TSL_REPORT_COL_A], c[TSL_REPORT_COL_B], c[TSL_REPORT_COL_CHANGE],
                          c[TSL_REPORT_COL_CI], c[TSL_REPORT_COL_Q], calls);
}

static gboolean
in_table (gpointer key,
          gpointer value,
          gpointer table)
{
  return g_hash_table_contains (table, key);
}

/* Which functions changed in CPU time, and which only in wall time (their
 * rows marked waiting): one sentence of the summary, when any has thread
 * time. */
static void
append_cpu_summary (GString         *summary,
                    const TslReport *r)
{
  g_autoptr(GHashTable) cpu = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) waiting = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) names = g_string_new (NULL);
  guint listed = 0;

  for (guint i = 0; i < r->n_rows; i++)
    {
      const TslCompareRow *row = r->rows[i];

      if (row->waiting)
        {
          if (g_hash_table_add (waiting, row->series) && listed++ < TSL_REPORT_FIRST)
            g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "", row->series);
        }
      else if (row->significant && g_str_has_prefix (row->stat, "cpu_"))
        g_hash_table_add (cpu, row->series);
    }
  g_hash_table_foreach_remove (cpu, in_table, waiting);
  if (g_hash_table_size (cpu) == 0 && g_hash_table_size (waiting) == 0)
    return;
  g_string_append_printf (summary, _(" %u functions changed in CPU time; %u only in wall time (waiting, off CPU)"),
                          g_hash_table_size (cpu), g_hash_table_size (waiting));
  if (names->len > 0)
    g_string_append_printf (summary, ": %s%s", names->str, listed > TSL_REPORT_FIRST ? ", …" : "");
  g_string_append_c (summary, '.');
}

static void
line_free (gpointer data)
{
  TslReportLine *line = data;

  for (guint i = 0; i < TSL_REPORT_N_COLS; i++)
    g_free (line->cells[i]);
  g_free (line->sentence);
  g_free (line->n_a);
  g_free (line->n_b);
  g_free (line);
}

/* The cells: the row's own numbers, formatted for reading. */
static TslReportLine *
line_new (const TslCompareRow *row)
{
  TslReportLine *line = g_new0 (TslReportLine, 1);
  char **c = line->cells;

  line->row = row;
  line->n_a = g_strdup_printf ("%" G_GUINT64_FORMAT, row->n_a);
  line->n_b = g_strdup_printf ("%" G_GUINT64_FORMAT, row->n_b);
  c[TSL_REPORT_COL_SERIES] = g_strdup (row->series);
  c[TSL_REPORT_COL_STAT] = g_strdup (tsl_compare_row_stat_label (row));
  c[TSL_REPORT_COL_A] = _tsl_report_format_value (row, row->a_value);
  c[TSL_REPORT_COL_B] = _tsl_report_format_value (row, row->b_value);
  if (row->presence == TSL_COMPARE_NEW_IN_B)
    c[TSL_REPORT_COL_CHANGE] = g_strdup (_("new in B"));
  else if (row->presence == TSL_COMPARE_GONE_IN_B)
    c[TSL_REPORT_COL_CHANGE] = g_strdup (_("gone in B"));
  else
    c[TSL_REPORT_COL_CHANGE] = _tsl_report_format_change (row->change);
  if (!isnan (row->ci_low) && !isnan (row->ci_high))
    {
      /* An unbounded end (Fieller's interval, A not told from 0): "∞)". */
      g_autofree char *lo = isinf (row->ci_low) ? g_strdup ("−∞") : _tsl_report_format_change (row->ci_low);
      g_autofree char *hi = isinf (row->ci_high) ? g_strdup ("+∞") : _tsl_report_format_change (row->ci_high);

      c[TSL_REPORT_COL_CI] = g_strdup_printf ("%s%s, %s%s", isinf (row->ci_low) ? "(" : "[", lo, hi,
                                              isinf (row->ci_high) ? ")" : "]");
    }
  else
    c[TSL_REPORT_COL_CI] = g_strdup ("");
  if (row->test == TSL_COMPARE_TEST_TOO_FEW)
    c[TSL_REPORT_COL_Q] = g_strdup (_("too few"));
  else if (row->test == TSL_COMPARE_TEST_TOO_DEPENDENT)
    /* Translators: in the report's q column, a row not tested (long memory) */
    c[TSL_REPORT_COL_Q] = g_strdup (_("too dependent"));
  else
    c[TSL_REPORT_COL_Q] = format_q (row->q_value);
  c[TSL_REPORT_COL_CALLS] = g_strdup_printf ("%s / %s", line->n_a, line->n_b);
  if (row->significant)
    line->sentence = row_sentence (line);
  return line;
}

static char *
change_value (const TslChangeRow *row,
              double              value)
{
  if (g_strcmp0 (row->unit, "ns") == 0)
    return tsl_duration_format (value);
  if (g_strcmp0 (row->unit, "fraction") == 0)
    return g_strdup_printf ("%.3g %%", value * 100);
  return g_strdup_printf ("%.4g%s", value, row->unit);
}

/* "worker/parse · mean duration at 4.02 s: 1.2 ms → 1.81 ms (+50.8 %)" */
static char *
change_sentence (const TslChangeRow *row)
{
  g_autofree char *when = tsl_duration_format (row->time_s * 1e9);
  g_autofree char *before = change_value (row, row->before);
  g_autofree char *after = change_value (row, row->after);
  g_autofree char *change = isnan (row->change) ? g_strdup (_("from 0")) : _tsl_report_format_change (row->change);

  /* Translators: series · statistic at a time: before → after (change) */
  return g_strdup_printf (_("%s · %s at %s: %s → %s (%s)"), row->series,
                          tsl_change_stat_label (row->stat), when, before, after, change);
}

static void
describe_ranges (const TslReport  *r,
                 TslReportContent *c)
{
  c->changes = g_ptr_array_new_with_free_func (g_free);
  if (r->ranges_found && r->chosen != NULL)
    {
      g_autofree char *sentence = change_sentence (r->chosen);

      c->ranges_note = g_strdup_printf (_("A and B were not given: they are the stretches before and after "
                                          "the file's most important change point, %s."), sentence);
    }
  else if (r->ranges_found)
    c->ranges_note = g_strdup (_("A and B were not given, and no series changed significantly anywhere "
                                 "in the file: A is its first half, B its second."));
  else if (r->searched)
    {
      for (guint i = 0; i < r->n_changes; i++)
        g_ptr_array_add (c->changes, change_sentence (r->changes[i]));
      c->ranges_note = r->n_changes == 0
                       ? g_strdup (_("No series changed significantly from the start of A to the end of B."))
                       : g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                       "%u change point from the start of A to the end of B, most important first:",
                                                       "%u change points from the start of A to the end of B, most important first:",
                                                       r->n_changes), r->n_changes);
    }
}

TslReportContent *
_tsl_report_content_new (const TslReport *r)
{
  TslReportContent *c = g_new0 (TslReportContent, 1);
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  guint top = r->top > 0 ? r->top : TSL_REPORT_DEFAULT_TOP;
  guint n_significant = 0, n_untested = 0, n_dependent = 0;
  g_autofree char *name = g_path_get_basename (r->path);
  GString *summary = g_string_new (NULL);

  c->title = g_strdup_printf (_("Timeslice report: %s"), name);
  c->facts = collect_facts (r);
  c->headings[TSL_REPORT_COL_SERIES] = _("Series");
  c->headings[TSL_REPORT_COL_STAT] = _("Statistic");
  c->headings[TSL_REPORT_COL_A] = "A";
  c->headings[TSL_REPORT_COL_B] = "B";
  c->headings[TSL_REPORT_COL_CHANGE] = _("Change");
  c->headings[TSL_REPORT_COL_CI] = _("Interval");
  c->headings[TSL_REPORT_COL_Q] = "q";
  c->headings[TSL_REPORT_COL_CALLS] = "n A / B";

  for (guint i = 0; i < r->n_rows; i++)
    {
      g_ptr_array_add (sorted, (gpointer) r->rows[i]);
      n_significant += r->rows[i]->significant;
      n_untested += r->rows[i]->test == TSL_COMPARE_TEST_NONE || r->rows[i]->test == TSL_COMPARE_TEST_TOO_FEW;
      n_dependent += r->rows[i]->test == TSL_COMPARE_TEST_TOO_DEPENDENT;
    }
  g_ptr_array_sort (sorted, order_rows);

  c->lines = g_ptr_array_new_with_free_func (line_free);
  for (guint i = 0; i < MIN (top, sorted->len); i++)
    {
      TslReportLine *line = line_new (g_ptr_array_index (sorted, i));

      c->n_significant_shown += line->row->significant;
      g_ptr_array_add (c->lines, line);
    }

  c->n_first = MIN (c->n_significant_shown, TSL_REPORT_FIRST);

  /* Every row not listed as significant is within noise by the same test. */
  if (n_significant == 0)
    g_string_append_printf (summary, _("Of %u rows compared, none changed more than noise would."), r->n_rows);
  else
    g_string_append_printf (summary, _("%u of %u rows changed significantly; nothing else changed more than noise would."),
                            n_significant, r->n_rows);
  if (c->n_significant_shown < n_significant)
    g_string_append_printf (summary, _(" Only %u of the significant rows are listed; the compare CSV has them all."),
                            c->n_significant_shown);
  append_cpu_summary (summary, r);
  if (n_untested > 0)
    g_string_append_printf (summary, _(" %u rows had too little data to test."), n_untested);
  if (n_dependent > 0)
    g_string_append_printf (summary, _(" %u rows were too dependent to test at this length: their "
                                       "series move more slowly than the ranges are long."), n_dependent);
  c->summary = g_string_free (summary, FALSE);
  describe_ranges (r, c);
  return c;
}

void
_tsl_report_content_free (TslReportContent *c)
{
  if (c == NULL)
    return;
  g_free (c->title);
  g_ptr_array_unref (c->facts);
  g_ptr_array_unref (c->lines);
  g_free (c->summary);
  g_free (c->ranges_note);
  g_clear_pointer (&c->changes, g_ptr_array_unref);
  g_free (c);
}

gboolean
_tsl_report_flame_options (const TslReport       *report,
                           double                 width,
                           TslFlameRenderOptions *options)
{
  const TslFlameNode *root;

  if (report->flame == NULL)
    return FALSE;
  root = tsl_flame_get_root (report->flame);
  if (root == NULL || root->n_children == 0)
    return FALSE;
  tsl_render_flame_options_init (options, width, 100);
  options->legend = TRUE;
  options->title = _("Differential flame graph, A → B");
  /* The flame page's words for what the numbers are. */
  options->subtitle = tsl_flame_is_exact (report->flame)
                      ? _("Exact: every event of A and B; each frame's change tested on time blocks")
                      : _("Sampled: drawn from the kept samples of the range");
  options->height = MIN (tsl_render_flame_natural_height (report->flame, options), 4 * width);
  return TRUE;
}

gboolean
tsl_report_write (const TslReport  *report,
                  TslReportFormat   format,
                  GFile            *file,
                  GCancellable     *cancellable,
                  GError          **error)
{
  g_autoptr(TslReportContent) content = NULL;

  g_return_val_if_fail (report != NULL && report->trace != NULL && report->timeline != NULL, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  content = _tsl_report_content_new (report);
  if (format == TSL_REPORT_HTML)
    return _tsl_report_write_html (report, content, file, cancellable, error);
  return _tsl_report_write_pdf (report, content, file, cancellable, error);
}
