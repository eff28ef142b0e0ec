/* tsl-export-pages.c: a timeline PDF on pages of the locale's paper
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A view of a browser trace holds hundreds of tracks: as one page it was
 * 1570 × 9790 pt, which no printer or reader shows whole. Each page is the
 * locale's paper (LC_PAPER: A4 or Letter), landscape since a timeline is
 * wide, with the picture scaled to the page's width and the tracks cut at
 * track boundaries, the title and ruler repeated on every page and the
 * note on the last.
 */
#define G_LOG_DOMAIN "tsl-export"

#include "config.h"

#include <langinfo.h>
#include <math.h>
#include <stdint.h>

#include "tsl-export-private.h"

#define MARGIN 24.0  /* pt, on every side */

void
tsl_export_paper_size (double *width_pt,
                       double *height_pt)
{
  double w = 210, h = 297;  /* mm: A4 when the locale says nothing */

#ifdef _NL_PAPER_WIDTH
  {
    /* glibc gives millimetres as an integer in the pointer's place. */
    int lw = (int) (intptr_t) nl_langinfo (_NL_PAPER_WIDTH);
    int lh = (int) (intptr_t) nl_langinfo (_NL_PAPER_HEIGHT);

    if (lw > 0 && lh > 0)
      {
        w = lw;
        h = lh;
      }
  }
#endif
  /* Letter is 215.9 × 279.4 mm; glibc rounds it to 216 × 279. */
  if (w == 216 && h == 279)
    {
      w = 215.9;
      h = 279.4;
    }
  *width_pt = MAX (w, h) / 25.4 * 72;
  *height_pt = MIN (w, h) / 25.4 * 72;
}

/* Where the page that starts at content offset `start` ends: at the top of
 * the last track that begins within it, else (a track taller than a page)
 * at the page's end. */
static double
page_end (TslSnapshot            *snapshot,
          const TslRenderOptions *o,
          double                  start,
          double                  room,
          double                  end)
{
  double cut = start;

  if (start + room >= end)
    return end;
  for (guint i = 0; i < tsl_snapshot_get_n_tracks (snapshot); i++)
    {
      double top = tsl_render_track_top (snapshot, o, i);

      if (top > start + 0.5 && top <= start + room && top > cut)
        cut = top;
    }
  return cut > start ? cut : start + room;
}

guint
_tsl_export_paint_pages (cairo_t                *cr,
                         TslSnapshot            *snapshot,
                         const TslRenderOptions *o,
                         double                  page_width,
                         double                  page_height)
{
  double header = tsl_render_header_height (o);
  double note = o->draw_note ? TSL_EXPORT_NOTE_HEIGHT + 8 : 0;
  double scale = (page_width - 2 * MARGIN) / MAX (o->width, 1);
  double room = (page_height - 2 * MARGIN) / scale - header - note;
  double start = o->scroll_y;
  double end = o->scroll_y + MAX (o->height - header - note, 0);
  guint pages = 0;

  room = MAX (room, 40);
  do
    {
      TslRenderOptions page = *o;
      double stop = page_end (snapshot, o, start, room, end);
      gboolean last = stop >= end;

      if (pages > 0)
        cairo_show_page (cr);
      page.scroll_y = start;
      page.draw_note = o->draw_note && last;
      page.height = header + (stop - start) + (page.draw_note ? note : 0);
      cairo_save (cr);
      cairo_translate (cr, MARGIN, MARGIN);
      cairo_scale (cr, scale, scale);
      cairo_rectangle (cr, 0, 0, page.width, page.height);
      cairo_clip (cr);
      tsl_render_paint (cr, snapshot, &page);
      cairo_restore (cr);
      pages++;
      start = stop;
    }
  while (start < end);
  return pages;
}
