#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Every file with translatable strings is in po/POTFILES.in, and every
# translation in po/LINGUAS is complete (no untranslated or fuzzy entries).
import os
import re
import subprocess
import sys

top = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
with open(os.path.join(top, 'po', 'POTFILES.in'), encoding='utf-8') as f:
    listed = {l.strip() for l in f if l.strip() and not l.startswith('#')}

marker = re.compile(r'(\b_\(|\bN_\(|\bC_\(|translatable="yes"|<_?summary>|<_?description>|^Name=|^Comment=)', re.M)
needed = set()
for sub in ('app', 'ui', 'data'):
    for dirpath, _, names in os.walk(os.path.join(top, sub)):
        for name in names:
            if not name.endswith(('.c', '.ui', '.in', '.xml')) or name.endswith('.gresource.xml'):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, top)
            if rel.startswith('data/examples'):
                continue
            with open(path, encoding='utf-8') as f:
                if marker.search(f.read()):
                    needed.add(rel)

failures = []
missing = sorted(needed - listed)
if missing:
    failures.append('missing from po/POTFILES.in: ' + ', '.join(missing))
stale = sorted(p for p in listed if not os.path.exists(os.path.join(top, p)))
if stale:
    failures.append('listed in po/POTFILES.in but gone: ' + ', '.join(stale))

with open(os.path.join(top, 'po', 'LINGUAS'), encoding='utf-8') as f:
    linguas = [w for l in f if not l.startswith('#') for w in l.split()]
# A fresh template from the sources, so a string added since the last
# translation update counts as untranslated.
import tempfile
tmp = tempfile.mkdtemp()
pot = os.path.join(tmp, 'timeslice.pot')
subprocess.run(['xgettext', '--files-from=' + os.path.join(top, 'po', 'POTFILES.in'),
                '--directory=' + top, '--from-code=UTF-8', '--add-comments',
                '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
                '--keyword=g_dngettext:2,3', '-o', pot], check=True)
for lang in linguas:
    merged = os.path.join(tmp, lang + '.po')
    subprocess.run(['msgmerge', '--quiet', '--no-fuzzy-matching', '-o', merged,
                    os.path.join(top, 'po', lang + '.po'), pot], check=True)
    r = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, merged],
                       capture_output=True, text=True)
    stats = r.stderr.strip()
    print(f'{lang}: {stats}')
    if r.returncode != 0 or 'untranslated' in stats or 'fuzzy' in stats:
        failures.append(f'{lang}.po is not complete: {stats}')

print(f'{len(needed)} files with translatable strings, {len(listed)} listed, {len(linguas)} translations')
if failures:
    print('\n'.join(failures))
    sys.exit(1)
