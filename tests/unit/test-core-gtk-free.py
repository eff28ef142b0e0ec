#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# app/core must stay GTK-free (docs/ARCHITECTURE.md, "Core folders"); the configure step checks that
# GTK's headers are unreachable, this checks the sources never try.
import os
import re
import sys

root = os.path.join(os.path.dirname(__file__), '..', '..', 'app', 'core')
bad = []
for dirpath, _, names in os.walk(root):
    for name in names:
        if name.endswith(('.c', '.h')):
            path = os.path.join(dirpath, name)
            with open(path, encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    if re.match(r'\s*#\s*include\s*[<"](gtk/|gdk/|adwaita|gsk/)', line):
                        bad.append(f'{path}:{n}: {line.strip()}')
count = sum(1 for _, _, ns in os.walk(root) for n in ns if n.endswith(('.c', '.h')))
assert count > 0, 'no core sources found'
if bad:
    print('app/core includes GTK:\n' + '\n'.join(bad))
    sys.exit(1)
print(f'{count} core files checked, none includes GTK')
