#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Sampler state files on the command line: `sample --state` of parts of a
# stream cut at random line boundaries, merged with `merge`, equal byte for
# byte to the state of the whole (count mode with --after, time mode
# without); every command opens a .tss like the trace it came from; damaged,
# future and foreign files are refused naming the file and the byte.
import os
import random
import subprocess
import sys
import tempfile

top = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
exe = os.environ['TSL_TIMESLICE']
corpus = os.environ.get('TSL_CORPUS_DIR', os.path.join(top, '..', 'shared', 'corpus'))
env = dict(os.environ, LC_ALL='C.UTF-8')
env.pop('DISPLAY', None)
env.pop('WAYLAND_DISPLAY', None)
env['TSL_NO_INDEX'] = '1'
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def run(*args, environ=None):
    return subprocess.run([exe, *args], capture_output=True, env=environ or env, timeout=300)


tmp = tempfile.mkdtemp()


def path(name):
    return os.path.join(tmp, name)


def state(src, out, mode, k, after=()):
    args = ['sample', '--state', '--mode', mode, '--k', str(k), '-o', out]
    for a in after:
        args += ['--after', a]
    r = run(*args, src)
    if r.returncode != 0:
        print(r.stderr.decode())
    return r.returncode == 0


def cut_lines(lines, n_parts, rng, header_lines):
    """Random cuts at line boundaries (records of one line, or perf's blank-line records).
    header_lines: lines every part repeats (a CSV header); -1 for perf script."""
    head, body = lines[:header_lines], lines[header_lines:]
    if header_lines == -1:   # perf script: cut between records only
        head, body = [], lines
        # After the second record: its warning "several event types (A, B, …)"
        # names the first two types the reader met, which a later part alone
        # would name in its own order.
        cuts = [i + 1 for i, l in enumerate(body) if l.strip() == ''][1:]
        cuts = sorted(rng.sample(cuts, min(n_parts - 1, len(cuts))))
    else:
        # Parts are not empty: a file without a record is "nothing to show".
        cuts = sorted(rng.sample(range(1, len(body)), min(n_parts - 1, len(body) - 1)))
    bounds = [0] + cuts + [len(body)]
    return [head + body[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]


# Not collapsed stacks: they have no time axis, a line's "time" is its
# number in its own file, so separate part files cannot line up.
inputs = [
    ('csv', os.path.join(corpus, 'csv-metrics', 'nab__machine_temperature_system_failure.csv'), 1),
    ('csv', os.path.join(corpus, 'csv-metrics', 'nab__nyc_taxi.csv'), 1),
    ('tsv', os.path.join(top, 'tests', 'data', 'metrics.tsv'), 1),
    ('perf', os.path.join(top, 'tests', 'data', 'perf-callchain.txt'), -1),
]
trials = 0
for kind, src, header_lines in inputs:
    if not os.path.exists(src):
        check(False, f'{src} exists')
        continue
    with open(src, encoding='utf-8', newline='') as f:
        lines = f.read().splitlines(keepends=True)
    for seed in range(4):
        rng = random.Random(seed * 7919 + len(lines))
        k = rng.choice([4, 16, 64])
        n_parts = rng.randint(2, 4)
        parts = cut_lines(lines, n_parts, rng, header_lines)
        part_files = []
        for i, part in enumerate(parts):
            p = path(f'{kind}-{seed}-{i}{os.path.splitext(src)[1]}')
            with open(p, 'w', encoding='utf-8', newline='') as f:
                f.writelines(part)
            part_files.append(p)
        for mode in ('count', 'time'):
            whole = path(f'{kind}-{seed}-{mode}-whole.tss')
            ok = state(src, whole, mode, k)
            states = []
            for i, p in enumerate(part_files):
                s = path(f'{kind}-{seed}-{mode}-{i}.tss')
                ok = state(p, s, mode, k, states if mode == 'count' else ()) and ok
                states.append(s)
            merged = path(f'{kind}-{seed}-{mode}-merged.tss')
            r = run('merge', '-o', merged, *states)
            ok = ok and r.returncode == 0
            same = ok and open(merged, 'rb').read() == open(whole, 'rb').read()
            check(same, f'{os.path.basename(src)}, {mode} mode, K = {k}, {len(parts)} parts '
                        f'(seed {seed}): merged state == one pass, byte for byte')
            trials += 1

# --part I/N of one file: N workers' states merge into the whole's. Small
# chunks (16 KiB), so that small files have many places to start a part.
part_env = dict(env, XDG_CACHE_HOME=path('cache'), TSL_INDEX_CHUNK_BYTES='16384')
part_env.pop('TSL_NO_INDEX')
generated = path('generated.json')
with open(generated, 'wb') as f:
    subprocess.run([sys.executable, os.path.join(top, 'bench', 'gen-chrome.py'), '--mb', '1.5',
                    '--seed', '3', '--form', 'array'], stdout=f, check=True)
# A Chromium recording, plain (parts are byte ranges of the file): its
# reader tallies what it does not show ("63,278 thread CPU time ... values
# not shown") until the end, and every part's count must reach the merge.
chromium = path('chromium-startup.pftrace')
with open(chromium, 'wb') as f:
    subprocess.run(['zstd', '-q', '-d', '-c', os.path.join(top, 'tests', 'data', 'perfetto',
                                                          'chromium-startup.pftrace.zst')],
                   stdout=f, check=True)
part_inputs = [
    generated,
    chromium,
    os.path.join(corpus, 'chrome-json', 'catapult__big_trace.json'),
    os.path.join(corpus, 'chrome-json', 'catapult__main_thread_has_unclosed_slices.json'),
    os.path.join(corpus, 'chrome-json', 'ffprofiler__test.chrome.json'),
    os.path.join(corpus, 'csv-metrics', 'nab__nyc_taxi.csv'),
    os.path.join(corpus, 'perf-script', 'flamegraph__perf-java-stacks-01.txt'),
]
rng = random.Random(21)
for src in part_inputs:
    n = rng.randint(2, 5)
    k = rng.choice([8, 64, 500])
    name = os.path.basename(src)
    whole = {m: path(f'part-{name}-{m}.tss') for m in ('time', 'count')}
    ok = all(run('sample', '--state', '--mode', m, '--k', str(k), '-o', whole[m], src,
                 environ=part_env).returncode == 0 for m in whole)
    times, counts = [], []
    for i in range(1, n + 1):
        t = path(f'part-{name}-time-{i}.tss')
        c = path(f'part-{name}-count-{i}.tss')
        r = run('sample', '--state', '--mode', 'time', '--k', str(k), '--part', f'{i}/{n}', '-o', t, src,
                environ=part_env)
        after = [a for s in times for a in ('--after', s)]
        r2 = run('sample', '--state', '--mode', 'count', '--k', str(k), '--part', f'{i}/{n}', *after, '-o', c, src,
                 environ=part_env)
        if r.returncode or r2.returncode:
            print((r.stderr + r2.stderr).decode())
        ok = ok and r.returncode == 0 and r2.returncode == 0
        times.append(t)
        counts.append(c)
    for mode, states in (('time', times), ('count', counts)):
        merged = path(f'part-{name}-{mode}-merged.tss')
        r = run('merge', '-o', merged, *states)
        check(ok and r.returncode == 0 and open(merged, 'rb').read() == open(whole[mode], 'rb').read(),
              f'--part 1..{n}/{n} of {name}, {mode} mode, K = {k}: merged == whole, byte for byte')
r = run('sample', '--state', '--part', '2/3', '-o', path('x.tss'), src, environ=part_env)
check(r.returncode == 2 and b'--after' in r.stderr, 'count mode --part 2/3 without --after is a usage error naming --after')
r = run('sample', '--state', '--mode', 'time', '--part', '1/2', '-o', path('x.tss'),
        os.path.join(corpus, 'chrome-json', 'catapult__thread_time_visualisation.json.gz'), environ=part_env)
check(r.returncode == 1 and b'cannot be read in parts' in r.stderr, 'a gzip file cannot be read in parts, and says so')

# Count-mode parts sampled without --after are refused, saying why.
src = inputs[0][1]
with open(src, encoding='utf-8') as f:
    lines = f.read().splitlines(keepends=True)
for i, part in enumerate([lines[:1] + lines[1:5000], lines[:1] + lines[5000:]]):
    with open(path(f'no-after-{i}.csv'), 'w', encoding='utf-8') as f:
        f.writelines(part)
    state(path(f'no-after-{i}.csv'), path(f'no-after-{i}.tss'), 'count', 16)
r = run('merge', '-o', path('no-after.tss'), path('no-after-0.tss'), path('no-after-1.tss'))
check(r.returncode == 1 and b'--after' in r.stderr and not os.path.exists(path('no-after.tss')),
      'count-mode parts without --after: merge fails (exit 1), says --after, writes nothing')

# Every command reads a state like the trace it came from.
chrome = os.path.join(top, 'tests', 'data', 'compare', 'trace.json')
for mode, k in (('count', '2000'), ('time', '2000')):
    tss = path(f'chrome-{mode}.tss')
    check(state(chrome, tss, mode, int(k)), f'sample --state --mode {mode} of a Chrome trace')
    # Same base name, so that titles in pictures agree.
    os.makedirs(path(mode), exist_ok=True)
    twin = path(os.path.join(mode, 'trace'))
    with open(twin, 'wb') as f:
        f.write(open(tss, 'rb').read())
    orig = path(os.path.join(mode, 'orig'))
    os.makedirs(orig, exist_ok=True)
    with open(os.path.join(orig, 'trace'), 'wb') as f:
        f.write(open(chrome, 'rb').read())
    a = run('sample', '--mode', mode, os.path.join(orig, 'trace'))
    b = run('sample', '--mode', mode, twin)
    check(a.returncode == 0 and a.stdout == b.stdout, f'{mode} mode: sample of the state == sample of the trace')
    if mode == 'time':
        for ext in ('csv', 'png'):
            ra = run('export', '-o', path(f'a.{ext}'), os.path.join(orig, 'trace'))
            rb = run('export', '-o', path(f'b.{ext}'), twin)
            check(ra.returncode == 0 and rb.returncode == 0 and
                  open(path(f'a.{ext}'), 'rb').read() == open(path(f'b.{ext}'), 'rb').read(),
                  f'export .{ext} of a time-mode state == export of the trace')
    else:
        ia = run('info', os.path.join(orig, 'trace'))
        ib = run('info', twin)
        check(ib.returncode == 0 and ia.stdout.splitlines()[1:] == ib.stdout.splitlines()[1:],
              'info of a count-mode state == info of the trace (but the "File:" line)')
        r = run('compare', '--a', '0%..50%', '--b', '50%..100%', tss)
        check(r.returncode == 0 and b'is a sampler state, with no events to re-read' in r.stderr,
              'compare on a state falls back to its samples, with a warning')
        with open(tss, 'rb') as f:
            r = subprocess.run([exe, 'sample', '-'], stdin=f, capture_output=True, env=env, timeout=60)
        check(r.returncode == 0 and r.stdout == a.stdout, 'a state on standard input reads too')

# Damage: refused, exit 1, naming the file and a byte.
good = open(path('chrome-count.tss'), 'rb').read()
cases = {
    'truncated': (good[:len(good) // 2], b'truncated'),
    'flipped': (good[:200] + bytes([good[200] ^ 4]) + good[201:], b'checksum does not match'),
    'future': (good[:8] + bytes([9, 0, 0, 0]) + good[12:], b'version 9 is newer'),
    'longer': (good + b'\0', b'bytes after the end'),
}
for name, (data, needle) in cases.items():
    p = path(f'{name}.tss')
    with open(p, 'wb') as f:
        f.write(data)
    for command in (('info',), ('sample',), ('merge', '-o', path('x.tss'))):
        r = run(*command, p)
        check(r.returncode == 1 and needle in r.stderr and f'{p}: byte '.encode() in r.stderr,
              f'{command[0]} on a {name} state: exit 1, "{needle.decode()}", names the file and byte '
              f'({r.stderr.decode().strip()[:120]})')
r = run('merge', '-o', path('x.tss'), chrome)
check(r.returncode == 1 and b'byte 0: not a Timeslice sampler state' in r.stderr,
      'merge of a foreign file (a JSON trace): exit 1, "not a Timeslice sampler state"')

# Different sources: groups named after the files.
for name in ('before', 'after'):
    state(chrome, path(f'{name}.tss'), 'time', 100)
r = run('merge', '--separate', '-o', path('both.tss'), path('before.tss'), path('after.tss'))
info = run('info', '--json', path('both.tss'))
one = run('info', '--json', path('before.tss'))
import json
if r.returncode == 0 and info.returncode == 0:
    tracks = json.loads(info.stdout)['tracks']
    n_one = len(json.loads(one.stdout)['tracks'])
    processes = {t.get('process') for t in tracks}
    check(len(tracks) == 2 * n_one, f'merge --separate keeps both sources\' tracks ({len(tracks)} = 2 × {n_one})')
    check(all(p and (p.startswith('before') or p.startswith('after')) for p in processes),
          f'every process is named after its source ({sorted(p or "" for p in processes)[:4]}…)')
else:
    check(False, 'merge --separate and info --json succeed: ' + r.stderr.decode() + info.stderr.decode())

# Tallies of separate sources (the Chromium recording's "63,278 thread CPU
# time ... not shown"): shown count first, each names its source last.
for name in ('run1', 'run2'):
    state(chromium, path(f'{name}.tss'), 'time', 100)
r = run('merge', '--separate', '-o', path('runs.tss'), path('run1.tss'), path('run2.tss'))
info = run('info', '--json', path('runs.tss'))
if r.returncode == 0 and info.returncode == 0:
    warnings = json.loads(info.stdout)['warnings']
    tallies = [w for w in warnings if w.startswith('63,278 ')]
    check(sorted(tallies) == sorted('63,278 thread CPU time and instruction count values (taken at '
                                    'slice begins and ends): thread time in exact views and the compare, '
                                    f'instruction counts not shown ({n})' for n in ('run1', 'run2')),
          f'merge --separate: each source\'s tally, count first and source last ({tallies})')
    check(not any(w.split(' ', 1)[1].startswith(('run1:', 'run2:')) for w in warnings if w[0].isdigit()),
          'merge --separate: no tally reads "N SOURCE: what"')
else:
    check(False, 'merge --separate of two Perfetto states succeeds: ' + r.stderr.decode())

print(f'{trials} random cut sets merged')
if failures:
    print(f'{len(failures)} failed')
    sys.exit(1)
