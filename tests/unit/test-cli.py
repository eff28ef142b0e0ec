#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The command line contract (docs/timeslice.1) that needs no input file:
# --help, --version, usage errors. Runs without a display.
import os
import shutil
import subprocess
import sys
import tempfile

exe = os.environ['TSL_TIMESLICE']
env = dict(os.environ)
env.pop('DISPLAY', None)
env.pop('WAYLAND_DISPLAY', None)
failures = []


def run(*args, stdin=None):
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=60)


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


r = run('--version')
check(r.returncode == 0 and r.stdout.strip().startswith('timeslice '), '--version prints "timeslice VERSION"')

r = run('--help')
check(r.returncode == 0, '--help exits 0 without a display')
for command in ('info', 'sample', 'merge', 'compare', 'changes', 'export'):
    check(f'  {command} ' in r.stdout, f'--help lists the {command} command')

# Each command's usage line names the program, the command and FILE once
# (compare and changes: or two files, BEFORE and AFTER; merge: its states).
for command in ('info', 'sample', 'merge', 'compare', 'changes', 'export'):
    r = run(command, '--help')
    usage = r.stdout.splitlines()[1].strip() if r.stdout.count('\n') > 1 else ''
    param = {'compare': 'FILE | BEFORE AFTER', 'changes': 'FILE | BEFORE AFTER', 'merge': 'STATE…'}.get(command, 'FILE')
    check(usage == f'timeslice {command} [OPTION…] {param}',
          f'{command} --help usage line is "timeslice {command} [OPTION…] {param}" (got "{usage}")')
    check('Exit status:' in r.stdout, f'{command} --help states the exit status')
    check(('RANGE is START..END' in r.stdout) == (command in ('compare', 'changes', 'export')),
          f'{command} --help explains RANGE exactly when it takes one')

r = run('frobnicate-not-a-command-but-a-file-name-that-does-not-exist.json', '--no-such-option')
check(r.returncode != 0, 'an unknown option is an error')

for command in ('info', 'sample'):
    r = run(command)
    check(r.returncode == 2, f'{command} without FILE exits 2 (got {r.returncode})')
    check(r.stderr.startswith('timeslice: '), f'{command} usage error starts with "timeslice: "')
    r = run(command, '--help')
    check(r.returncode == 0 and command in r.stdout, f'{command} --help exits 0')
    r = run(command, '/nonexistent/trace.json')
    check(r.returncode == 1, f'{command} on a missing file exits 1 (got {r.returncode})')
    check('/nonexistent/trace.json' in r.stderr, f'{command} names the missing file')

# `timeslice` is the core and the command line only: GTK and its ~70
# libraries cost ~18 ms of every command before main(). The window is
# timeslice-gui, which `timeslice` without a command becomes.
libs = subprocess.run(['ldd', exe], capture_output=True, text=True).stdout
gui_libs = [n for n in ('libgtk-4', 'libadwaita', 'libpango', 'libgdk_pixbuf', 'libgraphene')
            if n in libs]
check(libs.count('=>') > 3 and not gui_libs,
      f'timeslice loads no GTK library (found {gui_libs})')
gui = os.path.join(os.path.dirname(exe), 'timeslice-gui')
check('libgtk-4' in subprocess.run(['ldd', gui], capture_output=True, text=True).stdout,
      'timeslice-gui beside it is the window, with GTK')
r = run('--help')
check('--follow' in r.stdout, '--help without a command is the window\'s (it lists --follow)')

with tempfile.TemporaryDirectory() as tmp:
    copy = os.path.join(tmp, 'timeslice')
    shutil.copy(exe, copy)
    stub = os.path.join(tmp, 'timeslice-gui')
    with open(stub, 'w') as f:
        f.write('#!/bin/sh\necho "window: $*"\n')
    os.chmod(stub, 0o755)
    r = subprocess.run([copy, '--follow', 'a b.json', 'info.csv'], capture_output=True, text=True,
                       env=env, timeout=60)
    check(r.returncode == 0 and r.stdout.strip() == 'window: --follow a b.json info.csv',
          f'without a command, timeslice execs the timeslice-gui beside it with its arguments (got {r.stdout!r})')
    r = subprocess.run([copy, 'info', '--help'], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0 and 'window:' not in r.stdout, 'a command stays in timeslice')
    os.unlink(stub)
    os.mkdir(stub)
    r = subprocess.run([copy, 'x.json'], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode in (0, 1) and (r.returncode == 0 or 'timeslice-gui' in r.stderr),
          f'no window executable beside it: the installed one, or exit 1 naming it (got {r.returncode} {r.stderr!r})')

if failures:
    print(f'{len(failures)} checks failed')
    sys.exit(1)
