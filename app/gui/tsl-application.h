/* tsl-application.h: the application: single instance, app actions, settings
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define TSL_TYPE_APPLICATION (tsl_application_get_type ())
G_DECLARE_FINAL_TYPE (TslApplication, tsl_application, TSL, APPLICATION, AdwApplication)

TslApplication   *tsl_application_new           (void);
GSettings        *tsl_application_get_settings  (TslApplication *self);
/* The bundled example trace, installed or in the source tree. (nullable) */
GFile            *tsl_application_dup_example   (TslApplication *self);

G_END_DECLS
