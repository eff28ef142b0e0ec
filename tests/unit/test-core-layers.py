#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# app/core is split into folders by stage of the data path; `core_layers` in
# app/core/meson.build lists them lowest first. A file may include headers of
# its own folder and of folders before it, never after: no upward include and
# so no cycle between folders. Headers are included by bare name, so each name
# must be unique across the core.
#
# Within a folder, files are grouped into modules (tsl-x.c, tsl-x.h and
# tsl-x-private.h are one module). Module A depends on B when a file of A
# includes a header of B or calls a function defined in a .c of B (so a
# header declaring another file's functions hides nothing). A circle of such
# dependencies fails, unless ALLOWED keeps it on purpose, with its reason.
import fnmatch
import os
import re
import sys

# (folder, patterns every module of the circle matches, why it is kept)
ALLOWED = [
    ('model', ['tsl-trace', 'tsl-trace-*'],
     "TslTrace's parts (meta, warnings, labels, states) share its fields through "
     "tsl-trace-private.h, and the trace calls them"),
    ('model', ['tsl-snapshot', 'tsl-flow-match'],
     "a snapshot matches its flows, and the matcher works on a snapshot's types"),
    ('read', ['tsl-reader', 'tsl-reader-*', 'tsl-read-*', 'tsl-chunk-index', 'tsl-format'],
     "the reader's API that formats and the chunk index see is in tsl-reader.h, and the "
     "reader drives both"),
    ('read/cpuprofile', ['tsl-cpuprofile-*'],
     "the nodes and samples report through the reader's warning helper, and the reader "
     "sets them up"),
    ('read/gecko', ['tsl-gecko-*'],
     "a thread's parts share tsl-gecko-private.h: the reader builds threads and members, and "
     "they warn and look up columns through it"),
    ('read/pprof', ['tsl-pprof-*'],
     "the samples look names up and warn through the reader, and the reader hands them "
     "each sample and the end"),
    ('render', ['tsl-render', 'tsl-render-*'],
     "the painter's parts share its canvas and text helpers through tsl-render-private.h"),
    ('export', ['tsl-export', 'tsl-export-pages'],
     "the PDF's pages are laid out on the export's private state"),
    ('export', ['tsl-report', 'tsl-report-*'],
     "the report's writers and plots share tsl-report-private.h, and the report calls them"),
    ('stats', ['tsl-range-stats', 'tsl-range-stats-grow', 'tsl-range-stats-group'],
     "the growing blocks refold every series' blocks through tsl-range-stats-private.h, and "
     "the statistics regrow them when an event lands outside; a group of ranges read at once "
     "hands each its events through the statistics' own observer"),
    ('stats', ['tsl-compare-run', 'tsl-compare-exact', 'tsl-compare-samples', 'tsl-compare-shifts'],
     "the compare's row makers (exact values, sample quantiles) add their rows through the "
     "run's row builder, and the run calls them; the shifted comparisons make the same rows "
     "elsewhere in the trace for the run"),
]

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


def module(name):
    stem = name.rsplit('.', 1)[0]
    return stem[:-len('-private')] if stem.endswith('-private') else stem


DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \*]*\n(_?tsl_\w+) \(', re.M)
CALL = re.compile(r'\b(_?tsl_\w+) \(')
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def circles(core_dir, allowed):
    """Circles between modules of one folder, each as (folder, modules, why),
    except those allowed; and the allowed entries that match no circle."""
    files = {}
    for dirpath, _, names in os.walk(core_dir):
        rel = os.path.relpath(dirpath, core_dir).replace(os.sep, '/')
        for name in names:
            if name.endswith(('.c', '.h')):
                with open(os.path.join(dirpath, name), encoding='utf-8') as f:
                    files[name] = (rel, f.read())
    defined = {}
    for name, (rel, text) in files.items():
        if name.endswith('.c'):
            for m in DEFINITION.finditer(text):
                defined[m.group(1)] = (rel, module(name))
    deps = {}
    for name, (rel, text) in files.items():
        src = (rel, module(name))
        out = deps.setdefault(src, {})
        for m in INCLUDE.finditer(text):
            target = files.get(m.group(1))
            if target and target[0] == rel and module(m.group(1)) != src[1]:
                out.setdefault(module(m.group(1)), f'{name} includes {m.group(1)}')
        for m in CALL.finditer(text) if name.endswith('.c') else ():
            d = defined.get(m.group(1))
            if d and d[0] == rel and d[1] != src[1]:
                out.setdefault(d[1], f'{name} calls {m.group(1)}()')

    # Tarjan's strongly connected components.
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for t in deps.get(v, {}):
            w = (v[0], t)
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w[1])
                if w == v:
                    break
            if len(comp) > 1:
                found.append((v[0], sorted(comp)))

    for v in sorted(deps):
        if v not in index:
            visit(v)

    used = set()
    bad = []
    for folder, comp in found:
        ok = [i for i, (f, patterns, _) in enumerate(allowed)
              if f == folder and all(any(fnmatch.fnmatch(m, p) for p in patterns) for m in comp)]
        if ok:
            used.add(ok[0])
            continue
        why = [deps[(folder, a)][b] for a in comp for b in deps[(folder, a)] if b in comp]
        bad.append((folder, comp, why))
    stale = [allowed[i] for i in range(len(allowed)) if i not in used]
    return bad, stale


def format_headers_above_read(app_dir):
    """Files of app/ outside app/core/read/ that include a header of a format
    folder (read/chrome, read/perfetto, ...): above read/, formats are seen
    only through read/'s own headers."""
    read_dir = os.path.join(app_dir, 'core', 'read')
    format_headers = {}
    for dirpath, _, names in os.walk(read_dir):
        if os.path.normpath(dirpath) == os.path.normpath(read_dir):
            continue
        for name in names:
            if name.endswith('.h'):
                format_headers[name] = os.path.relpath(os.path.join(dirpath, name), app_dir)
    found = []
    for dirpath, _, names in os.walk(app_dir):
        if os.path.commonpath([os.path.abspath(dirpath), os.path.abspath(read_dir)]) == os.path.abspath(read_dir):
            continue
        for name in names:
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                    if m and os.path.basename(m.group(1)) in format_headers:
                        found.append(f'{os.path.relpath(path, app_dir)}:{n}: includes '
                                     f'{format_headers[os.path.basename(m.group(1))]}, a format\'s '
                                     f'header above read/')
    return found


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

    with tempfile.TemporaryDirectory() as d:
        for sub in ('core/read/fmt', 'gui'):
            os.makedirs(os.path.join(d, sub))
        open(os.path.join(d, 'core', 'read', 'fmt', 'tsl-fmt.h'), 'w').write('#pragma once\n')
        open(os.path.join(d, 'core', 'read', 'tsl-neutral.h'), 'w').write('#include "tsl-fmt.h"\n')
        open(os.path.join(d, 'gui', 'tsl-w.c'), 'w').write('#include "tsl-neutral.h"\n')
        assert format_headers_above_read(d) == []
        open(os.path.join(d, 'gui', 'tsl-w.c'), 'w').write('#include "tsl-fmt.h"\n')
        assert format_headers_above_read(d) == [
            "gui/tsl-w.c:1: includes core/read/fmt/tsl-fmt.h, a format's header above read/"]

    # A circle through a header that declares another file's functions, as
    # tsl-perfetto-model-private.h did for tsl-perfetto-tracks.c.
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, 'f'))
        open(os.path.join(d, 'f', 'tsl-a-private.h'), 'w').write('void _tsl_b_go (void);\n')
        open(os.path.join(d, 'f', 'tsl-a.c'), 'w').write(
            '#include "tsl-a-private.h"\nvoid\n_tsl_a_run (void)\n{\n  _tsl_b_go ();\n}\n')
        open(os.path.join(d, 'f', 'tsl-b.c'), 'w').write(
            '#include "tsl-a-private.h"\nvoid\n_tsl_b_go (void)\n{\n}\n')
        bad, _ = circles(d, [])
        assert [(f, c) for f, c, _ in bad] == [('f', ['tsl-a', 'tsl-b'])], bad
        bad, stale = circles(d, [('f', ['tsl-a', 'tsl-b'], 'test')])
        assert bad == [] and stale == [], (bad, stale)
        # Broken: b no longer includes a's header, a's call goes to b's own.
        open(os.path.join(d, 'f', 'tsl-b.h'), 'w').write('void _tsl_b_go (void);\n')
        open(os.path.join(d, 'f', 'tsl-a.c'), 'w').write(
            '#include "tsl-b.h"\nvoid\n_tsl_a_run (void)\n{\n  _tsl_b_go ();\n}\n')
        open(os.path.join(d, 'f', 'tsl-b.c'), 'w').write(
            '#include "tsl-b.h"\nvoid\n_tsl_b_go (void)\n{\n}\n')
        bad, stale = circles(d, [('f', ['tsl-a', 'tsl-b'], 'test')])
        assert bad == [] and len(stale) == 1, (bad, stale)
        # A static function is no definition to depend on.
        open(os.path.join(d, 'f', 'tsl-a.c'), 'w').write(
            '#include "tsl-b.h"\nstatic void\n_tsl_a_help (void)\n{\n}\n'
            'void\n_tsl_a_run (void)\n{\n  _tsl_a_help ();\n  _tsl_b_go ();\n}\n')
        open(os.path.join(d, 'f', 'tsl-b.c'), 'w').write(
            '#include "tsl-b.h"\nstatic void\n_tsl_a_help (void)\n{\n}\n'
            'void\n_tsl_b_go (void)\n{\n  _tsl_a_help ();\n}\n')
        bad, _ = circles(d, [])
        assert bad == [], bad


self_test()
layers = layers_from_meson(os.path.join(core, 'meson.build'))
problems, count = check(core, layers)
assert count > 50, f'only {count} core files found'
problems += format_headers_above_read(os.path.join(core, '..'))
bad, stale = circles(core, ALLOWED)
for folder, comp, why in bad:
    problems.append(f'{folder}: a circle between {", ".join(comp)} ({"; ".join(why)}); '
                    f'break it, or add it to ALLOWED with the reason it is kept')
for folder, patterns, _ in stale:
    print(f'note: ALLOWED entry {folder} {patterns} matches no circle any more; remove it')
if problems:
    print('core layering broken:\n' + '\n'.join(problems))
    sys.exit(1)
print(f'{count} core files in {len(layers)} layers ({", ".join(layers)}); no upward include, '
      f'no format header included above read/; '
      f'no circle within a folder but {len(ALLOWED) - len(stale)} kept on purpose')
