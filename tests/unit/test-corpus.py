#!/usr/bin/env python3
# test-corpus.py: every corpus file opens and `info --json` counts its events
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The corpus (../shared/corpus, real files from public projects) is not part
# of the repository. Without it this test says so loudly and is skipped, except
# under CI (env CI set), where a missing corpus is a failure.

import gzip
import json
import os
import subprocess
import sys

corpus = os.environ.get('TSL_CORPUS_DIR', '')
timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')

# How the facts count what `info` calls events (issue 4).
def expected_events(entry):
    facts = entry['facts']
    fmt = entry['format']
    if fmt == 'chrome-json':
        # facts' `events` counts the event array only; issue 4 adds the
        # entries of a top-level `samples` table.
        return facts['events'] + (facts.get('samples_entries') or 0)
    if fmt == 'perf-script':
        return facts['samples']
    if fmt == 'collapsed':
        return facts['stack_lines']
    if fmt == 'csv-metrics':
        return facts['rows'] if 'rows' in facts else facts['data_rows']
    if fmt == 'speedscope':
        return sum(p.get('events', p.get('samples', 0)) for p in facts['profiles'])
    raise KeyError(fmt)

FORMAT_NAMES = {
    'chrome-json': 'chrome-json',
    'perf-script': 'perf-script',
    'collapsed': 'collapsed',
    'csv-metrics': 'csv',
    'speedscope': 'speedscope',
}


def info(path, stdin=None):
    args = [timeslice, 'info', '--json', path]
    proc = subprocess.run(args, input=stdin, capture_output=True, timeout=120)
    return proc


def main():
    if not corpus or not os.path.isdir(corpus):
        banner = '#' * 72
        print(banner, file=sys.stderr)
        print(f'# CORPUS NOT FOUND at {corpus!r} (TSL_CORPUS_DIR): corpus checks NOT RUN',
              file=sys.stderr)
        print(banner, file=sys.stderr)
        if os.environ.get('CI'):
            return 1
        return 77

    with open(os.path.join(corpus, 'facts.json'), encoding='utf-8') as f:
        facts = json.load(f)

    only = set(sys.argv[1:])
    failures = []
    n = 0
    for entry in facts['files']:
        name = entry['file']
        if only and not any(o in name for o in only):
            continue
        n += 1
        path = os.path.join(corpus, name)
        want = expected_events(entry)
        want_format = FORMAT_NAMES[entry['format']]

        proc = info(path)
        if proc.returncode != 0:
            failures.append(f'{name}: exit {proc.returncode}: {proc.stderr.decode(errors="replace").strip()}')
            continue
        try:
            got = json.loads(proc.stdout)
        except ValueError as e:
            failures.append(f'{name}: output is not JSON: {e}')
            continue

        problems = []
        if got.get('format') != want_format:
            problems.append(f'format {got.get("format")!r}, expected {want_format!r}')
        if got.get('events') != want:
            problems.append(f'events {got.get("events")}, expected {want}')
        for key in ('span_s', 'tracks', 'warnings'):
            if key not in got:
                problems.append(f'no "{key}" member')
        if problems:
            failures.append(f'{name}: ' + '; '.join(problems))
            continue

        # The same bytes through a pipe, and gzip-compressed, give the same counts.
        with open(path, 'rb') as f:
            data = f.read()
        variants = [('stdin', data)]
        if data[:2] != b'\x1f\x8b':
            variants.append(('gzip on stdin', gzip.compress(data)))
        for label, stdin in variants:
            proc = info('-', stdin)
            if proc.returncode != 0:
                failures.append(f'{name} ({label}): exit {proc.returncode}')
                continue
            again = json.loads(proc.stdout)
            if again.get('events') != want or again.get('format') != want_format:
                failures.append(f'{name} ({label}): events {again.get("events")}, '
                                f'format {again.get("format")!r}')

    for failure in failures:
        print('FAIL', failure)
    print(f'{n - len(failures)} of {n} corpus files pass')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
