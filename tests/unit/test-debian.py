#!/usr/bin/env python3
# test-debian.py SOURCE_ROOT: the Debian packaging agrees with the build —
# debian/changelog carries meson's version, and every library meson.build
# asks pkg-config for is a Build-Depends of debian/control (found through the
# Debian package that owns its .pc file), so the package builds on a fresh root.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import re
import subprocess
import sys

root = sys.argv[1]
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def read(rel):
    with open(os.path.join(root, rel), encoding='utf-8') as f:
        return f.read()


meson = read('meson.build')
version = re.search(r"version:\s*'([^']+)'", meson).group(1)
changelog = read('debian/changelog').splitlines()[0]
m = re.match(r'timeslice \(([^)]+)\) ', changelog)
check('changelog names the package', m is not None, changelog)
if m:
    deb_version = m.group(1).split('-')[0]
    check(f'changelog version {m.group(1)} is meson\'s {version}', deb_version == version)

control = read('debian/control')
bd = re.search(r'^Build-Depends:(.*?)^\S', control, re.S | re.M).group(1)
build_depends = {re.split(r'[\s(]', d.strip())[0] for d in bd.split(',') if d.strip()}
check('Build-Depends parsed', 'debhelper-compat' in build_depends, sorted(build_depends))

for pc in sorted(set(re.findall(r"dependency\('([^']+)'", meson))):
    pcdir = subprocess.run(['pkg-config', '--variable=pcfiledir', pc],
                           capture_output=True, text=True).stdout.strip()
    path = os.path.realpath(os.path.join(pcdir, pc + '.pc'))
    owner = subprocess.run(['dpkg', '-S', path], capture_output=True, text=True)
    if owner.returncode != 0:  # merged /usr: dpkg knows the unresolved path
        owner = subprocess.run(['dpkg', '-S', os.path.join(pcdir, pc + '.pc')],
                               capture_output=True, text=True)
    pkg = owner.stdout.split(':')[0].strip()
    check(f'{pc} ({pkg or "no package"}) is a Build-Depends', pkg in build_depends,
          f'{path}: {owner.stderr.strip()}')

rules = os.path.join(root, 'debian', 'rules')
check('debian/rules is executable', os.access(rules, os.X_OK))

sys.exit(1 if failures else 0)
