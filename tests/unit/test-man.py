#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# docs/timeslice.1 covers the command line: every command that `timeslice
# --help` lists has a section, and every option that a command's --help (or
# the window's) lists appears in that section of the man page.
import os
import re
import subprocess
import sys

top = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
exe = os.environ['TSL_TIMESLICE']
env = dict(os.environ)
env.pop('DISPLAY', None)
env.pop('WAYLAND_DISPLAY', None)
env['LC_ALL'] = 'C.UTF-8'
env.pop('LANGUAGE', None)
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def help_text(*args):
    r = subprocess.run([exe, *args, '--help'], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, f'timeslice {" ".join(args)} --help exits 0')
    return r.stdout


def listed_options(text):
    """Options of the 'Application Options' block: ['-o', '--output', …]."""
    block = text.split('Application Options:', 1)[1] if 'Application Options:' in text else ''
    options = []
    for line in block.splitlines():
        m = re.match(r'\s+(?:(-\w), )?(--[\w-]+)', line)
        if m:
            options += [o for o in m.groups() if o]
        elif line and not line.startswith(' '):
            break
    return options


with open(os.path.join(top, 'docs', 'timeslice.1'), encoding='utf-8') as f:
    roff = f.read()
# Plain text of the source: hyphens unescaped, font changes and break points dropped.
plain = re.sub(r'\\f[BIRP]|\\:|\\&', '', roff).replace('\\-', '-')

# Sections: the part before COMMANDS is the window's, then one per ".SS command".
main_part, _, commands_part = plain.partition('\n.SH COMMANDS')
sections = {'': main_part}
for m in re.finditer(r'^\.SS "(\w+)[^\n]*\n(.*?)(?=^\.SS |^\.SH |\Z)', commands_part, re.M | re.S):
    sections[m.group(1)] = m.group(2)

top_help = help_text()
commands = re.findall(r'^  (\w+)\s{2,}\S', top_help.split('Commands', 1)[1], re.M)
check(set(commands) == {'info', 'sample', 'merge', 'compare', 'changes', 'export'},
      f'timeslice --help lists the six commands (got {commands})')

for command in [''] + commands:
    name = command or '(window)'
    check(command in sections, f'the man page has a section for {name}')
    options = listed_options(help_text(command) if command else top_help)
    check(len(options) >= 2, f'{name} --help lists options ({len(options)})')
    for option in options:
        # An option is documented where it is a tagged paragraph's tag or inline.
        found = re.search(r'(?<![\w-])' + re.escape(option) + r'(?![\w-])', sections.get(command, ''))
        check(found is not None, f'{name}: {option} is in the man page')

r = subprocess.run(['man', '--warnings', '-l', os.path.join(top, 'docs', 'timeslice.1')],
                   capture_output=True, text=True, env=dict(env, MANWIDTH='80', MANPAGER='cat'),
                   timeout=60)
check(r.returncode == 0 and 'timeslice compare' in r.stdout, 'man renders the page')
check(r.stderr.strip() == '', f'groff has no warnings: {r.stderr.strip()!r}')

if failures:
    print(f'{len(failures)} checks failed')
    sys.exit(1)
