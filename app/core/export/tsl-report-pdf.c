/* tsl-report-pdf.c: the report as a multi-page PDF, drawn with cairo
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text is drawn with cairo_show_text, so it stays text in the PDF (it can be
 * searched, copied and extracted with pdftotext).
 */
#define G_LOG_DOMAIN "tsl-report"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "tsl-export-private.h"
#include "tsl-report-private.h"

#define MARGIN          42.0
#define FONT            "DejaVu Sans"
#define TABLE_FONT      "DejaVu Sans Condensed"   /* 17-digit numbers fit */
#define TIMELINE_WIDTH  760.0    /* logical pixels of the painter, scaled to the page:
                                  * its 11 px labels read at about 7.5 pt */
#define TIMELINE_MAX_ROWS 8      /* levels a track shows; deeper ones are counted */
#define TIMELINE_TRACKS 24       /* at most, unless more have significant rows */
#define FLAME_WIDTH     1000.0
#define HISTOGRAM_H     150.0
#define INTERVAL_H      72.0
#define TABLE_SIZE      7.5

typedef struct {
  const TslReport        *report;
  const TslReportContent *content;
  double                  width;
  double                  height;
  cairo_t                *cr;
  double                  y;        /* top of the next line */
  GPtrArray              *notes;    /* full names of the elided ones, to print below */
} Page;

static const double col_share[TSL_REPORT_N_COLS] = { 0.34, 0.07, 0.085, 0.085, 0.08, 0.17, 0.07, 0.10 };

static double
content_width (const Page *p)
{
  return p->width - 2 * MARGIN;
}

static void
need (Page   *p,
      double  height)
{
  if (p->y + height <= p->height - MARGIN)
    return;
  cairo_show_page (p->cr);
  p->y = MARGIN;
}

static void
set_font (Page     *p,
          double    size,
          gboolean  bold)
{
  cairo_select_font_face (p->cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (p->cr, size);
  cairo_set_source_rgb (p->cr, 0.1, 0.1, 0.1);
}

static double
advance (Page       *p,
         const char *text)
{
  cairo_text_extents_t ext;

  cairo_text_extents (p->cr, text, &ext);
  return ext.x_advance;
}

/* (transfer full): `text` cut in the middle ("CrBrowserMain/Lay…FrameSink")
 * to fit max_width at the current size; NULL when it fits whole. */
static char *
elide_middle (Page       *p,
              const char *text,
              double      max_width)
{
  glong n = g_utf8_strlen (text, -1);

  if (advance (p, text) <= max_width)
    return NULL;
  for (glong keep = n - 1; keep > 1; keep--)
    {
      const char *head_end = g_utf8_offset_to_pointer (text, (keep + 1) / 2);
      const char *tail = g_utf8_offset_to_pointer (text, n - keep / 2);
      g_autofree char *head = g_strndup (text, head_end - text);
      g_autofree char *trial = g_strconcat (head, "…", tail, NULL);

      if (advance (p, trial) <= max_width)
        return g_steal_pointer (&trial);
    }
  return g_strdup ("…");
}

/* Draws `text` from x on the baseline y at `size`, never smaller: what does
 * not fit is cut in the middle. TRUE when it was. */
static gboolean
text_fit (Page       *p,
          double      x,
          double      y,
          double      max_width,
          double      size,
          const char *text)
{
  g_autofree char *elided = NULL;

  cairo_set_font_size (p->cr, size);
  elided = elide_middle (p, text, max_width);
  cairo_move_to (p->cr, x, y);
  cairo_show_text (p->cr, elided != NULL ? elided : text);
  return elided != NULL;
}

/* Breaks a word too long for a line (a long series name) where it fills one. */
static char *
split_word (Page        *p,
            const char  *word,
            double       max_width,
            const char **rest)
{
  const char *end = word;

  while (*end != '\0')
    {
      const char *next = g_utf8_next_char (end);
      g_autofree char *trial = g_strndup (word, next - word);

      if (advance (p, trial) > max_width && end > word)
        break;
      end = next;
    }
  *rest = end;
  return g_strndup (word, end - word);
}

/* Word-wrapped paragraph at x across max_width. */
static void
paragraph (Page       *p,
           double      x,
           double      max_width,
           double      size,
           const char *text)
{
  g_auto(GStrv) words = g_strsplit (text, " ", -1);
  g_autoptr(GString) line = g_string_new (NULL);
  double leading = size * 1.35;

  cairo_set_font_size (p->cr, size);
  for (guint i = 0; words[i] != NULL; i++)
    {
      g_autofree char *trial = line->len ? g_strconcat (line->str, " ", words[i], NULL) : g_strdup (words[i]);
      const char *word = words[i];

      if (advance (p, trial) <= max_width)
        {
          g_string_assign (line, trial);
          continue;
        }
      if (line->len > 0)
        {
          need (p, leading);
          text_fit (p, x, p->y + size, max_width, size, line->str);
          p->y += leading;
          g_string_truncate (line, 0);
        }
      /* A word wider than the line goes on lines of its own. */
      while (advance (p, word) > max_width)
        {
          g_autofree char *piece = split_word (p, word, max_width, &word);

          need (p, leading);
          text_fit (p, x, p->y + size, max_width, size, piece);
          p->y += leading;
        }
      g_string_assign (line, word);
    }
  if (line->len > 0)
    {
      need (p, leading);
      text_fit (p, x, p->y + size, max_width, size, line->str);
      p->y += leading;
    }
}

static void
heading (Page       *p,
         const char *text)
{
  need (p, 40);
  p->y += 10;
  set_font (p, 12, TRUE);
  cairo_move_to (p->cr, MARGIN, p->y + 12);
  cairo_show_text (p->cr, text);
  p->y += 20;
}

static void
draw_header (Page *p)
{
  /* A long file name wraps rather than shrinks or loses its middle. */
  set_font (p, 16, TRUE);
  paragraph (p, MARGIN, content_width (p), 16, p->content->title);
  p->y += 6;

  for (guint i = 0; i < p->content->facts->len; i++)
    {
      const TslReportFact *fact = g_ptr_array_index (p->content->facts, i);

      set_font (p, 8.5, TRUE);
      cairo_move_to (p->cr, MARGIN, p->y + 8.5);
      cairo_show_text (p->cr, fact->label);
      set_font (p, 8.5, FALSE);
      paragraph (p, MARGIN + 90, content_width (p) - 90, 8.5, fact->value);
      p->y += 0.5;
    }
}

/* On page one, what a reader looks at first: the largest significant
 * changes in the table's order (the core's impact order). */
static void
draw_first (Page *p)
{
  const TslReportContent *c = p->content;

  if (c->ranges_note != NULL)
    {
      heading (p, _("Change points"));
      set_font (p, 9, FALSE);
      paragraph (p, MARGIN, content_width (p), 9, c->ranges_note);
      for (guint i = 0; i < c->changes->len; i++)
        {
          g_autofree char *item = g_strdup_printf ("%u. %s", i + 1, (const char *) g_ptr_array_index (c->changes, i));

          p->y += 2;
          paragraph (p, MARGIN, content_width (p), 9, item);
        }
    }
  heading (p, _("Largest significant changes"));
  set_font (p, 9, FALSE);
  paragraph (p, MARGIN, content_width (p), 9, c->summary);
  for (guint i = 0; i < c->n_first; i++)
    {
      const TslReportLine *line = g_ptr_array_index (c->lines, i);
      g_autofree char *item = g_strdup_printf ("%u. %s", i + 1, line->sentence);

      p->y += 2;
      paragraph (p, MARGIN, content_width (p), 9, item);
    }
}

typedef void (*PictureFunc) (cairo_t *cr, const Page *p, gconstpointer options);

/* Draws a width × height picture across the page, shrunk to fit one page. */
static void
place_picture (Page          *p,
               double         width,
               double         height,
               PictureFunc    paint,
               gconstpointer  options)
{
  double scale = MIN (content_width (p) / width, (p->height - 2 * MARGIN) / height);

  need (p, height * scale);
  cairo_save (p->cr);
  cairo_translate (p->cr, MARGIN, p->y);
  cairo_scale (p->cr, scale, scale);
  cairo_rectangle (p->cr, 0, 0, width, height);
  cairo_clip (p->cr);
  paint (p->cr, p, options);
  cairo_restore (p->cr);
  p->y += height * scale + 6;
}

static void
paint_flame (cairo_t       *cr,
             const Page    *p,
             gconstpointer  options)
{
  tsl_render_flame_paint (cr, p->report->flame, options);
}

/* Whether a significant row of the report measures `track`: its series is
 * the track's name (or "name [pid]" where names repeat), '/', a function. */
static gboolean
track_flagged (const Page             *p,
               const TslSnapshotTrack *track)
{
  g_autofree char *plain = g_strconcat (track->name, "/", NULL);
  g_autofree char *with_pid = g_strdup_printf ("%s [%" G_GINT64_FORMAT "]/", track->name, track->pid);

  for (guint i = 0; i < p->content->n_significant_shown; i++)
    {
      const char *series = ((const TslReportLine *) g_ptr_array_index (p->content->lines, i))->row->series;

      if (g_str_has_prefix (series, plain) || g_str_has_prefix (series, with_pid) ||
          g_strcmp0 (series, track->name) == 0)
        return TRUE;
    }
  return FALSE;
}

static int
by_events (gconstpointer a,
           gconstpointer b,
           gpointer      snapshot)
{
  guint64 ea = tsl_snapshot_get_track (snapshot, *(const guint *) a)->events;
  guint64 eb = tsl_snapshot_get_track (snapshot, *(const guint *) b)->events;

  return ea > eb ? -1 : ea < eb;
}

static int
by_index (gconstpointer a,
          gconstpointer b)
{
  return (int) *(const guint *) a - (int) *(const guint *) b;
}

/* The tracks the PDF shows, in the window's order: those of the significant
 * rows, then the busiest others, TIMELINE_TRACKS in all. */
static GArray *
timeline_tracks (const Page *p)
{
  TslSnapshot *snapshot = p->report->snapshot;
  guint n = tsl_snapshot_get_n_tracks (snapshot);
  GArray *chosen = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) others = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < n; i++)
    g_array_append_val (track_flagged (p, tsl_snapshot_get_track (snapshot, i)) ? chosen : others, i);
  g_array_sort_with_data (others, by_events, snapshot);
  for (guint i = 0; i < others->len && chosen->len < MAX (TIMELINE_TRACKS, 1); i++)
    g_array_append_val (chosen, g_array_index (others, guint, i));
  g_array_sort (chosen, by_index);
  return chosen;
}

/* The timeline at a fixed, readable scale, one band per chosen track,
 * continued over as many pages as they need, the ruler and ranges on top
 * of each page; its heading always on the page where it starts. */
static void
draw_timeline (Page *p)
{
  TslRenderOptions options = *p->report->timeline;
  TslSnapshot *snapshot = p->report->snapshot;
  double scale = content_width (p) / TIMELINE_WIDTH;
  g_autoptr(GArray) tracks = timeline_tracks (p);
  g_autofree char *shown = NULL;
  double header;
  gboolean page_top = TRUE;

  options.width = TIMELINE_WIDTH;
  options.draw_note = FALSE;
  options.max_rows = options.max_rows > 0 ? MIN (options.max_rows, TIMELINE_MAX_ROWS) : TIMELINE_MAX_ROWS;
  header = tsl_render_header_height (&options);
  need (p, 60 + (header + 150) * scale);
  heading (p, _("Timeline"));
  if (tracks->len < tsl_snapshot_get_n_tracks (snapshot))
    {
      shown = g_strdup_printf (_("%u of %u tracks: those of the significant rows, then the busiest; "
                                 "the window shows them all."), tracks->len, tsl_snapshot_get_n_tracks (snapshot));
      set_font (p, 8.5, FALSE);
      paragraph (p, MARGIN, content_width (p), 8.5, shown);
    }
  for (guint i = 0; i < tracks->len; i++)
    {
      guint t = g_array_index (tracks, guint, i);
      double top = tsl_render_track_top (snapshot, &options, t);
      double band = tsl_render_track_height (snapshot, &options, t);
      double lead = page_top ? header : 0;

      if (p->y + (lead + band) * scale > p->height - MARGIN && !page_top)
        {
          cairo_show_page (p->cr);
          p->y = MARGIN;
          page_top = TRUE;
          lead = header;
        }
      /* The painter scrolled to the track: its header (ruler, ranges) then the
       * track; what is clipped off is the header on later bands of a page. */
      options.scroll_y = top;
      options.height = header + band;
      cairo_save (p->cr);
      cairo_translate (p->cr, MARGIN, p->y - (header - lead) * scale);
      cairo_scale (p->cr, scale, scale);
      cairo_rectangle (p->cr, 0, header - lead, options.width, lead + band);
      cairo_clip (p->cr);
      tsl_render_paint (p->cr, snapshot, &options);
      cairo_restore (p->cr);
      p->y += (lead + band) * scale;
      page_top = FALSE;
    }
  p->y += 6;
}

static void
table_row (Page              *p,
           const char * const *cells,
           gboolean     bold)
{
  double x = MARGIN;

  need (p, TABLE_SIZE * 1.6);
  set_font (p, TABLE_SIZE, bold);
  cairo_select_font_face (p->cr, TABLE_FONT, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  for (guint c = 0; c < TSL_REPORT_N_COLS; c++)
    {
      double w = col_share[c] * content_width (p);

      if (c == TSL_REPORT_COL_SERIES && p->notes != NULL && advance (p, cells[c]) > w - 4)
        {
          /* The name cut in the middle, marked; the whole one in a note
           * below, one note a name however many rows it has. */
          guint note = 0;
          g_autofree char *mark = NULL;

          while (note < p->notes->len && strcmp (g_ptr_array_index (p->notes, note), cells[c]) != 0)
            note++;
          if (note == p->notes->len)
            g_ptr_array_add (p->notes, g_strdup (cells[c]));
          mark = g_strdup_printf (" [%u]", note + 1);
          text_fit (p, x, p->y + TABLE_SIZE, w - 4 - advance (p, mark), TABLE_SIZE, cells[c]);
          cairo_show_text (p->cr, mark);
        }
      else
        text_fit (p, x, p->y + TABLE_SIZE, w - 4, TABLE_SIZE, cells[c]);
      x += w;
    }
  p->y += TABLE_SIZE * 1.6;
}

static void
draw_table (Page *p)
{
  const TslReportContent *c = p->content;

  heading (p, _("What changed"));
  set_font (p, 9, FALSE);
  paragraph (p, MARGIN, content_width (p), 9, c->summary);
  p->y += 4;
  table_row (p, c->headings, TRUE);
  for (guint i = 0; i < c->lines->len; i++)
    {
      const TslReportLine *line = g_ptr_array_index (c->lines, i);

      if (i == c->n_significant_shown && i > 0)
        {
          /* A rule between the significant rows and the rest. */
          cairo_set_source_rgb (p->cr, 0.6, 0.6, 0.6);
          cairo_set_line_width (p->cr, 0.5);
          cairo_move_to (p->cr, MARGIN, p->y + 1);
          cairo_line_to (p->cr, p->width - MARGIN, p->y + 1);
          cairo_stroke (p->cr);
          p->y += 3;
        }
      table_row (p, (const char * const *) line->cells, line->row->significant);
    }
  set_font (p, TABLE_SIZE, FALSE);
  for (guint i = 0; i < p->notes->len; i++)
    {
      g_autofree char *note = g_strdup_printf ("[%u] %s", i + 1, (const char *) g_ptr_array_index (p->notes, i));

      paragraph (p, MARGIN, content_width (p), TABLE_SIZE, note);
    }
}

static void
draw_significant (Page *p)
{
  const TslReportContent *c = p->content;

  if (c->n_significant_shown == 0)
    return;
  heading (p, _("Significant changes"));
  for (guint i = 0; i < c->n_significant_shown; i++)
    {
      const TslReportLine *line = g_ptr_array_index (c->lines, i);
      TslReportPlot kind = _tsl_report_plot_kind (line->row);
      double h = kind == TSL_REPORT_PLOT_DISTRIBUTION ? HISTOGRAM_H : INTERVAL_H;

      need (p, 26 + (kind == TSL_REPORT_PLOT_NONE ? 12 : h));
      set_font (p, 9, FALSE);
      paragraph (p, MARGIN, content_width (p), 9, line->sentence);
      if (kind == TSL_REPORT_PLOT_NONE)
        {
          g_autofree char *why = _tsl_report_plot_sentence (line->row);

          paragraph (p, MARGIN, content_width (p), 9, why);
          p->y += 8;
          continue;
        }
      cairo_save (p->cr);
      cairo_translate (p->cr, MARGIN, p->y);
      _tsl_report_paint_plot (p->cr, line->row, content_width (p), h);
      cairo_restore (p->cr);
      p->y += h + 8;
    }
}

static void
draw_flame (Page *p)
{
  TslFlameRenderOptions options;

  if (!_tsl_report_flame_options (p->report, FLAME_WIDTH, &options))
    return;
  cairo_show_page (p->cr);
  p->y = MARGIN;
  place_picture (p, options.width, options.height, paint_flame, &options);
}

static void
draw_warnings (Page *p)
{
  const char * const *warnings = p->report->warnings;

  heading (p, _("Warnings"));
  set_font (p, 8.5, FALSE);
  if (warnings == NULL || warnings[0] == NULL)
    paragraph (p, MARGIN, content_width (p), 8.5, _("The read gave no warnings."));
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    paragraph (p, MARGIN, content_width (p), 8.5, warnings[i]);
}

static void
paint_report (cairo_t       *cr,
              gconstpointer  data)
{
  Page p = *(const Page *) data;

  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);

  p.cr = cr;
  p.y = MARGIN;
  p.notes = notes;
  cairo_set_source_rgb (cr, 1, 1, 1);
  draw_header (&p);
  draw_first (&p);
  draw_timeline (&p);
  draw_table (&p);
  draw_significant (&p);
  draw_warnings (&p);
  draw_flame (&p);
}

gboolean
_tsl_report_write_pdf (const TslReport        *report,
                       const TslReportContent *content,
                       GFile                  *file,
                       GCancellable           *cancellable,
                       GError                **error)
{
  Page p = { report, content, 0, 0, NULL, 0, NULL };

  tsl_report_paper_size (&p.width, &p.height);
  return _tsl_export_picture (paint_report, &p, p.width, p.height, content->title,
                              TSL_EXPORT_PDF, file, cancellable, error);
}
