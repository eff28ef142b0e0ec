#!/usr/bin/env python3
# test-info.py: `timeslice info` on our own fixtures: output, exit statuses
#
# SPDX-License-Identifier: GPL-3.0-or-later

import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
data = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data')
failures = []


def run(*args, stdin=None):
    return subprocess.run([timeslice, 'info', *args], input=stdin, capture_output=True, timeout=60)


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def main():
    perf = os.path.join(data, 'perf-callchain.txt')

    proc = run('--json', perf)
    check('json exit 0', proc.returncode == 0, proc.stderr.decode())
    got = json.loads(proc.stdout)
    check('json members', all(k in got for k in ('format', 'events', 'span_s', 'tracks', 'warnings')))
    check('json format', got['format'] == 'perf-script')
    check('json events', got['events'] == 4)
    check('json span', abs(got['span_s'] - 0.002) < 1e-9)
    check('json tracks', sorted(t['name'] for t in got['tracks']) == ['Web Content', 'worker'])
    check('json track members',
          all({'name', 'kind', 'events', 'samples'} <= t.keys() for t in got['tracks']))
    check('json track kind', {t['kind'] for t in got['tracks']} == {'thread'})

    proc = run('--json', '--k', '1', perf)
    got = json.loads(proc.stdout)
    check('--k bounds samples', all(1 <= t['samples'] <= 2 for t in got['tracks']))

    proc = run('--json', os.path.join(data, 'collapsed.txt'))
    got = json.loads(proc.stdout)
    check('collapsed has no span', got['span_s'] is None and got['events'] == 6)
    check('collapsed warns', any('no time axis' in w for w in got['warnings']))

    proc = run(perf)
    out = proc.stdout.decode()
    check('human output', proc.returncode == 0 and 'Format:   perf-script' in out
          and 'Web Content' in out and 'Events:   4' in out, out)

    with open(perf, 'rb') as f:
        raw = f.read()
    for label, stdin in (('stdin', raw), ('gzip stdin', gzip.compress(raw))):
        proc = run('--json', '-', stdin=stdin)
        check(f'{label} events', proc.returncode == 0 and json.loads(proc.stdout)['events'] == 4)

    empty = os.path.join(data, 'empty.txt')
    proc = run(empty)
    check('empty exit 1', proc.returncode == 1)
    check('empty message', proc.stderr.decode().strip() == f'timeslice: {empty}:1:1: the file is empty',
          proc.stderr.decode())

    proc = run(os.path.join(data, 'unknown.bin'))
    check('unknown format exit 1', proc.returncode == 1 and 'unknown.bin' in proc.stderr.decode()
          and 'supported' in proc.stderr.decode())

    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, 'missing.json')
        proc = run(missing)
        check('missing file exit 1', proc.returncode == 1 and missing in proc.stderr.decode())

    # Issue 18 item 7: Chrome flow events are counted, not silently dropped.
    flows = json.dumps({'traceEvents': [
        {'ph': 'X', 'name': 'post', 'ts': 0, 'dur': 5, 'pid': 1, 'tid': 1},
        {'ph': 's', 'name': 'task', 'id': 7, 'ts': 1, 'pid': 1, 'tid': 1},
        {'ph': 't', 'name': 'task', 'id': 7, 'ts': 3, 'pid': 1, 'tid': 2},
        {'ph': 'f', 'name': 'task', 'id': 7, 'ts': 4, 'bp': 'e', 'pid': 1, 'tid': 2},
        {'ph': 's', 'name': 'task', 'id': 8, 'ts': 2, 'pid': 1, 'tid': 1},
        {'ph': 'X', 'name': 'run', 'ts': 4, 'dur': 5, 'pid': 1, 'tid': 2}]}).encode()
    proc = run('--json', '-', stdin=flows)
    got = json.loads(proc.stdout) if proc.returncode == 0 else {}
    zeros = {'bind_id': 0, 'flow_in': 0, 'flow_out': 0, 'flow_ids': 0, 'terminating_flow_ids': 0}
    check('json flows counted', got.get('flows') == {'s': 2, 't': 1, 'f': 1, **zeros}, proc.stdout.decode())
    proc = run('-', stdin=flows)
    check('human flows line', b'Flows:    4 events (2 s, 1 t, 1 f), arrows when zoomed in' in proc.stdout,
          proc.stdout.decode())
    proc = run('--json', perf)
    check('no flows: zeros', json.loads(proc.stdout)['flows'] == {'s': 0, 't': 0, 'f': 0, **zeros})

    control_characters()
    same_names()
    no_process()
    no_index()

    check('no FILE is usage', run().returncode == 2)
    check('two FILEs is usage', run(perf, perf).returncode == 2)
    check('bad option is usage', run('--bogus', perf).returncode == 2)
    check('bad --k is usage', run('--k', '0', perf).returncode == 2)

    return 1 if failures else 0


def no_index():
    """`info --no-cache` reads no range again and keeps no cache: it makes no
    chunk index (its checkpoints were 2 % of a Perfetto read's instructions),
    and says the same as a read that makes one."""
    perfetto = os.path.join(data, 'perfetto', 'basic.pftrace')
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, XDG_CACHE_HOME=cache)
        debug = dict(env, G_MESSAGES_DEBUG='tsl-read-stream')
        for path in (perfetto, os.path.join(data, 'perf-callchain.txt')):
            name = os.path.basename(path)
            # GLib writes debug messages to stdout.
            bare = subprocess.run([timeslice, 'info', '--no-cache', path], capture_output=True, env=debug, timeout=60)
            kept = subprocess.run([timeslice, 'info', path], capture_output=True, env=debug, timeout=60)
            check(f'{name}: --no-cache reads without an index', b'read without a chunk index' in bare.stdout,
                  bare.stdout.decode()[-300:])
            check(f'{name}: with the cache, an index', b'read without a chunk index' not in kept.stdout,
                  kept.stdout.decode()[-300:])
            bare = subprocess.run([timeslice, 'info', '--no-cache', path], capture_output=True, env=env, timeout=60)
            kept = subprocess.run([timeslice, 'info', path], capture_output=True, env=env, timeout=60)
            check(f'{name}: the same description either way', bare.stdout == kept.stdout and bare.returncode == 0)


def same_names():
    """A Chromium recording names thirty threads ThreadPoolForegroundWorker:
    the table gives each track's process and thread ids (as --json does),
    so that every thread line is told apart; metrics have none."""
    rec = os.path.join(data, 'perfetto', 'chromium-startup.json.gz')
    text = run('--no-cache', rec).stdout.decode()
    tracks = json.loads(run('--json', '--no-cache', rec).stdout)['tracks']
    lines = text.split('Tracks:')[1].split('Warnings:')[0].splitlines()[1:]
    head, rows = lines[0].split(), [line.split() for line in lines[1:] if line.strip()]
    check('table header names PID, TID and PROCESS', head == ['NAME', 'KIND', 'EVENTS', 'SAMPLES', 'PID', 'TID', 'PROCESS'],
          lines[0])
    want = [(t['name'], t['kind'], '-' if t['pid'] is None else str(t['pid']),
             str(t['tid']) if t['kind'] == 'thread' else '-', t.get('process')) for t in tracks]
    got = [(r[0], r[1], r[4], r[5], ' '.join(r[6:]) or None) for r in rows]
    check('each line has its track\'s pid, tid and process', got == want,
          str([(g, w) for g, w in zip(got, want) if g != w][:3]))
    threads = [g for g in got if g[1] == 'thread']
    check('alike-named threads told apart', len({(g[0], g[2], g[3]) for g in threads}) == len(threads) and
          sum(g[0] == 'ThreadPoolForegroundWorker' for g in threads) > 10)
    metrics = run(os.path.join(data, 'compare', 'metrics.csv')).stdout.decode()
    check('a metric has no process', '  planted  metric            400      400        -        -\n' in metrics,
          metrics)


def no_process():
    """A Perfetto track under no process descriptor (Chrome's "Global" async
    track) has no process: the table said pid 0 and --json "pid": 0, a pid
    no process has. A thread of pid 0 (the kernel's swapper, in the JSON
    twin) keeps it."""
    rec = os.path.join(data, 'perfetto', 'chromium-startup.pftrace.zst')
    text = run('--no-cache', rec).stdout.decode()
    tracks = json.loads(run('--json', '--no-cache', rec).stdout)['tracks']
    glob = [t for t in tracks if t['name'] == 'Global']
    check('global track: --json pid and tid null, no process',
          len(glob) == 1 and glob[0]['kind'] == 'async' and glob[0]['pid'] is None and glob[0]['tid'] is None
          and 'process' not in glob[0], repr(glob))
    check('global track: no track says pid 0', all(t['pid'] != 0 for t in tracks),
          repr([t['name'] for t in tracks if t['pid'] == 0]))
    rows = [line.split() for line in text.splitlines() if line.startswith('  Global ')]
    check('global track: the table says "-" for its pid and tid', rows == [['Global', 'async', '58', '58', '-', '-']],
          repr(rows))
    twin = os.path.join(data, 'perfetto', 'chromium-startup.json.gz')
    swapper = [t for t in json.loads(run('--json', '--no-cache', twin).stdout)['tracks'] if t['name'] == 'swapper']
    check('a thread of pid 0 keeps it', [(t['kind'], t['pid'], t['tid']) for t in swapper] == [('thread', 0, 0)],
          repr(swapper))
    swapper = [line.split() for line in run('--no-cache', twin).stdout.decode().splitlines()
               if line.startswith('  swapper ')]
    check('a thread of pid 0 keeps it in the table', [r[4:6] for r in swapper] == [['0', '0']], repr(swapper))


def control_characters():
    """Names' control characters reached the terminal raw: an ESC sequence
    recoloured it, a newline broke the table. The text output escapes them
    (\\n, \\xHH, \\uHHHH for C1); --json keeps the names as they are."""
    evil = 'evil\x1b[31mred\nline\x07\x7f\x9b2J\ttab'
    trace = json.dumps({'traceEvents': [
        {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 2, 'args': {'name': evil}},
        {'ph': 'X', 'name': 'f', 'ts': 0, 'dur': 5, 'pid': 1, 'tid': 2},
        {'ph': 'X', 'name': 'g', 'ts': 1, 'dur': 5, 'pid': 1, 'tid': 3}]}).encode()
    proc = run('-', stdin=trace)
    out = proc.stdout.decode('utf-8', 'replace')
    check('control characters: exit 0', proc.returncode == 0, proc.stderr.decode())
    raw = [c for c in out if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) < 0xa0]
    check('control characters: none written raw', raw == [], repr(raw))
    check('control characters: written escaped', 'evil\\x1b[31mred\\nline\\x07\\x7f\\u009b2J\\ttab' in out, out)
    rows = [line for line in out.splitlines() if line.startswith('  ') and re.search(r' thread +\d+ +\d+ ', line)]
    check('control characters: one table line per track', len(rows) == 2, out)
    proc = run('--json', '-', stdin=trace)
    names = [t['name'] for t in json.loads(proc.stdout)['tracks']] if proc.returncode == 0 else []
    check('control characters: --json keeps the name', any(evil in n for n in names), repr(names))
    # compare --verbose names each series on stderr: escaped as well.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'evil.json')
        with open(path, 'wb') as f:
            f.write(trace)
        proc = subprocess.run([timeslice, 'compare', '--verbose', '--a', '0%..50%', '--b', '50%..100%', path],
                              capture_output=True, timeout=60)
    err = proc.stderr.decode('utf-8', 'replace')
    raw = [c for c in err if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) < 0xa0]
    check('control characters: compare --verbose exit 0', proc.returncode == 0, err)
    check('control characters: compare --verbose writes none raw', raw == [] and '\\x1b[31m' in err, err)


if __name__ == '__main__':
    sys.exit(main())
