#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# app/core is split into folders by stage of the data path; `core_layers` in
# app/core/meson.build lists them lowest first. A file may include headers of
# its own folder and of folders before it, never after: no upward include and
# so no cycle between folders. Headers are included by bare name, so each name
# must be unique across the core.
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
core = os.path.join(here, '..', '..', 'app', 'core')


def layers_from_meson(path):
    text = open(path, encoding='utf-8').read()
    m = re.search(r'core_layers\s*=\s*\[(.*?)\]', text, re.S)
    assert m, f'{path}: no core_layers list'
    return re.findall(r"'([^']+)'", m.group(1))


def check(core_dir, layers):
    """Returns the list of problems found under core_dir."""
    rank = {layer: i for i, layer in enumerate(layers)}
    home = {}
    problems = []
    for dirpath, _, names in os.walk(core_dir):
        rel = os.path.relpath(dirpath, core_dir).replace(os.sep, '/')
        for name in names:
            if not name.endswith(('.c', '.h')):
                continue
            if rel not in rank:
                problems.append(f'{rel}/{name}: folder is not in core_layers')
                continue
            if name in home:
                problems.append(f'{name}: in both {home[name][0]} and {rel}')
            home[name] = (rel, os.path.join(dirpath, name))
    for name, (layer, path) in sorted(home.items()):
        with open(path, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if not m or m.group(1) == 'config.h':
                    continue
                target = os.path.basename(m.group(1))
                if target not in home:
                    problems.append(f'{layer}/{name}:{n}: includes {target}, not a core header')
                    continue
                to = home[target][0]
                if rank[to] > rank[layer]:
                    problems.append(f'{layer}/{name}:{n}: includes {to}/{target}, '
                                    f'a layer above {layer}')
    return problems, len(home)


def self_test():
    """The checker must catch an upward include; try it on a scratch tree."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for layer in ('low', 'high'):
            os.makedirs(os.path.join(d, layer))
        open(os.path.join(d, 'high', 'tsl-high.h'), 'w').write('#pragma once\n')
        open(os.path.join(d, 'low', 'tsl-low.c'), 'w').write('#include "tsl-high.h"\n')
        problems, _ = check(d, ['low', 'high'])
        assert any('a layer above low' in p for p in problems), problems
        problems, _ = check(d, ['high', 'low'])
        assert problems == [], problems


self_test()
layers = layers_from_meson(os.path.join(core, 'meson.build'))
problems, count = check(core, layers)
assert count > 50, f'only {count} core files found'
if problems:
    print('core layering broken:\n' + '\n'.join(problems))
    sys.exit(1)
print(f'{count} core files in {len(layers)} layers ({", ".join(layers)}); no upward include')
