#!/usr/bin/env python3
# test-mime.py MIME_XML DESKTOP_FILE: the MIME types Timeslice installs load
# into a shared-mime-info database without a warning, a .pftrace and a .tss
# (by its magic, whatever its name) are told apart, and the desktop entry
# claims every type the XML declares.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import re
import shutil
import subprocess
import sys
import tempfile

xml, desktop = sys.argv[1], sys.argv[2]
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, 'mime', 'packages'))
    shutil.copy('/usr/share/mime/packages/freedesktop.org.xml', os.path.join(tmp, 'mime', 'packages'))
    shutil.copy(xml, os.path.join(tmp, 'mime', 'packages'))
    proc = subprocess.run(['update-mime-database', '-V', os.path.join(tmp, 'mime')],
                          capture_output=True, text=True)
    check('update-mime-database accepts it', proc.returncode == 0 and 'warning' not in proc.stderr.lower()
          and 'error' not in proc.stderr.lower(), proc.stderr[-500:])
    with open(os.path.join(tmp, 'mime', 'globs2')) as f:
        globs = f.read()
    check('a .pftrace is a Perfetto trace', ':application/x-perfetto-trace:*.pftrace' in globs)
    with open(os.path.join(tmp, 'mime', 'magic'), 'rb') as f:
        magic = f.read()
    check('a .tss is known by its magic', b'application/x-timeslice-state' in magic and b'\x89TSS\r\n\x1a\n' in magic)

declared = set(re.findall(r'<mime-type type="([^"]+)"', open(xml).read()))
claimed = set()
for line in open(desktop):
    if line.startswith('MimeType='):
        claimed = set(t for t in line.strip().split('=', 1)[1].split(';') if t)
check('the desktop entry claims every declared type', declared <= claimed, sorted(declared - claimed))
sys.exit(1 if failures else 0)
