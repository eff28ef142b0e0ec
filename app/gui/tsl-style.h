/* tsl-style.h: whether the window is dark, by the style manager or the theme
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE under libadwaita's dark style, and under a theme that draws light
 * text on dark widgets without telling the style manager
 * (GTK_THEME=Adwaita:dark): `widget`'s own text colour says so. */
gboolean          tsl_style_is_dark             (GtkWidget      *widget);

G_END_DECLS
