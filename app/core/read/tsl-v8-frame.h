/* tsl-v8-frame.h: a V8 call frame's name, as every V8 profile reader gives it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "tsl-json-scan.h"

void tsl_v8_frame_name (const TslJsonValue *call_frame,
                        GString            *scratch,
                        GString            *name);
