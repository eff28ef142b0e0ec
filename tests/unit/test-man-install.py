#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# `meson install --destdir` puts timeslice(1) where `man -M PREFIX/share/man`
# finds it, and the installed page renders; the window goes to libexec.
import json
import os
import subprocess
import sys
import tempfile

build = sys.argv[1]
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


options = {o['name']: o['value'] for o in json.loads(subprocess.run(
    ['meson', 'introspect', '--buildoptions', build],
    capture_output=True, text=True, check=True).stdout)}

with tempfile.TemporaryDirectory() as dest:
    r = subprocess.run(['meson', 'install', '-C', build, '--destdir', dest, '--no-rebuild', '--quiet'],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f'meson install --destdir succeeds: {r.stderr.strip()[-500:]}')
    mandir = os.path.join(dest + options['prefix'], options['mandir'])
    page = os.path.join(mandir, 'man1', 'timeslice.1')
    root = dest + options['prefix']
    check(os.access(os.path.join(root, options['bindir'], 'timeslice'), os.X_OK), 'bin/timeslice is installed')
    check(os.access(os.path.join(root, options['libexecdir'], 'timeslice-gui'), os.X_OK),
          'the window, libexec/timeslice-gui, is installed where timeslice looks for it')
    check(os.path.isfile(page), f'{page} is installed')

    env = dict(os.environ, MANPAGER='cat', MANWIDTH='80', LC_ALL='C.UTF-8')
    env.pop('MANPATH', None)
    r = subprocess.run(['man', '-M', mandir, '-w', 'timeslice'], capture_output=True, text=True, env=env)
    check(r.returncode == 0 and os.path.realpath(r.stdout.strip()) == os.path.realpath(page),
          f'man -M PREFIX/share/man -w timeslice finds it (got {r.stdout.strip()!r} {r.stderr.strip()!r})')
    r = subprocess.run(['man', '-M', mandir, 'timeslice'], capture_output=True, text=True, env=env)
    check(r.returncode == 0 and 'TIMESLICE(1)' in r.stdout and 'export' in r.stdout,
          'man -M PREFIX/share/man timeslice shows the page')

if failures:
    print(f'{len(failures)} checks failed')
    sys.exit(1)
