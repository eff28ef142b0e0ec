/* tsl-style.c: whether the window is dark, by the style manager or the theme
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "tsl-style"

#include "config.h"

#include <adwaita.h>

#include "tsl-style.h"

gboolean
tsl_style_is_dark (GtkWidget *widget)
{
  GdkRGBA fg;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), FALSE);

  if (adw_style_manager_get_dark (adw_style_manager_get_default ()))
    return TRUE;
  /* Light text (relative luminance over one half) is read on a dark
   * background. */
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  return 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
}
