/* tsl-frames.h: stacks as one string, frames joined by ';'
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every reader stores a stack as "root;child;leaf", the collapsed-stacks
 * form, and the snapshot splits it at ';'. A frame named
 * "std::map<int;int>::at" would become two frames, in the flame graph and in
 * a .folded export alike. As Brendan Gregg's stackcollapse-perf.pl does, a
 * ';' inside a name is stored as ':'.
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* Appends `len` bytes of `name` (-1: up to its NUL) as one frame. */
static inline void
tsl_frames_append (GString    *stack,
                   const char *name,
                   gssize      len)
{
  gsize start = stack->len;
  char *p;

  g_string_append_len (stack, name, len);
  while ((p = memchr (stack->str + start, ';', stack->len - start)) != NULL)
    {
      *p = ':';
      start = (gsize) (p - stack->str) + 1;
    }
}

G_END_DECLS
