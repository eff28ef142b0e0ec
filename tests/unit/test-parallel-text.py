#!/usr/bin/env python3
# test-parallel-text.py: CSV, perf script, speedscope and collapsed files read on N threads give what one thread gives
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The CSV, perf script, speedscope and collapsed stacks readers split a
# regular file's buffers on every core (TSL_READER_THREADS=N) and model the
# rows, records, events or lines in order. For every corpus file and fixture
# of these formats (bad inputs among them), files of bench/gen-csv.py,
# bench/gen-perf.py, bench/gen-speedscope.py and bench/gen-collapsed.py, and
# generated files made to mislead a guess at row and record starts (quoted
# fields holding newlines, CRLF, '#' headers repeating per section, ragged
# and bad rows, rows without times, bad headers and frame lines outside
# records, a file cut inside a record; speedscope events holding '},{' in
# strings, malformed events, sampled profiles between evented ones, the
# frame table last, a file cut short, a late syntax error; stack lines with
# bad counts past the warnings' cap, lines of no kind, a last line cut
# short), N = 2, 3 and 4 with TSL_READER_SPLIT_SEED
# (every buffer cut at random places) must give byte-identical
# `sample --state` output, `info --json`, exit status and messages (their
# FILE:LINE:COLUMN positions too) and chunk index to one thread; the bench
# files are also read with the default cuts, which must all be right. The
# comparison is test-parallel.py's.

import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

srcdir = os.environ.get('G_TEST_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bench = os.path.join(srcdir, '..', 'bench')


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


parallel = load('parallel', os.path.join(srcdir, 'unit', 'test-parallel.py'))
threads_test = parallel.threads_test


def tricky_csv(rng, n, form):
    """Rows whose bytes mislead a cut after a newline, and every kind of
    line the reader treats apart."""
    eol = '\r\n' if form == 'crlf' else '\n'
    out = []
    t = 1_500_000_000
    if form == 'sections':
        # sysstat's `sadf -d`: '#' headers repeating, a keyed column, restarts.
        for i in range(n):
            if i % 40 == 0:
                out.append('# hostname;interval;timestamp;CPU;%%usr;%%idle%s' % eol)
            if rng.random() < 0.02:
                out.append('box;-1;%d;LINUX-RESTART\t(2 CPU)%s' % (t, eol))
            if rng.random() < 0.03:
                out.append('# a comment without separators%s' % eol)
            t += rng.randint(1, 10)
            out.append('box;10;%s UTC;%d;%.2f;%.2f%s'
                       % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(t)), rng.randint(-1, 3), rng.random() * 100,
                          rng.random() * 100, eol))
        return ''.join(out)
    if form == 'ordinal':
        out.append('sample,a,b' + eol)
        for i in range(n):
            out.append('s%d,%d,%.3f%s' % (i, rng.randint(0, 99), rng.random(), eol))
        return ''.join(out)
    if form == 'long':
        out.append('time,series,value,host' + eol)
        for i in range(n):
            t += rng.randint(0, 3)
            name = rng.choice(['cpu', 'mem', '"net,\nin"', '"disk ""a"""'])
            out.append('%d.%03d,%s,%.4f,h%d%s' % (t, rng.randint(0, 999), name, rng.random(),
                                                   rng.randint(0, 2), eol))
        return ''.join(out)
    # quoted, crlf, bad: wide rows with quoted fields holding newlines and
    # separators (so a cut after a newline is often inside a field).
    out.append('timestamp,"a,\nb",c,note,d' + eol)
    for i in range(n):
        t += rng.randint(0, 5)
        note = rng.choice(['x', '"line\nbreak"', '"two\n\nbreaks, ""q"""', '', '"a,b"',
                           '"\n12,13\n"'])
        row = ['%d' % t, '%.3f' % (rng.random() * 10), '%d' % rng.randint(-5, 5), note,
               '%.1e' % rng.random()]
        if form == 'bad':
            kind = rng.random()
            if kind < 0.03:
                row = row[:3]                         # ragged
            elif kind < 0.06:
                row[0] = 'not a time'
            elif kind < 0.09:
                row[1] = 'n/a'
            elif kind < 0.1:
                out.append('\r' + ','.join(row) + eol)   # a '\r' line: read as a header
                continue
            elif kind < 0.12:
                out.append(eol)
        out.append(','.join(row) + eol)
    text = ''.join(out)
    if form == 'bad':
        text += '%d,1,2,"unterminated\nquote,3' % (t + 1)
    return text


def tricky_perf(rng, n, form):
    """Records with blank lines, '#' lines, CRLF, bad headers and frame lines
    outside records; 'cut' ends inside a record."""
    eol = '\r\n' if form == 'crlf' else '\n'
    out = ['# ========' + eol, '# captured on: test' + eol]
    t = 100.0
    for i in range(n):
        t += rng.random() * 0.01
        tid = rng.randint(1, 4)
        if form == 'bad' and rng.random() < 0.04:
            out.append('garbage line %d without a time%s' % (i, eol))
        if form == 'bad' and rng.random() < 0.03:
            out.append('\t    ffff orphan_frame (/lib/x.so)' + eol)
        if form == 'bad' and rng.random() < 0.03:
            out.append('# comment inside' + eol)
        out.append('app %d/%d [%03d] %.6f: %d cycles: %s'
                   % (100, 100 + tid, tid, t, rng.randint(1, 9999), eol))
        for _ in range(rng.randint(0, 12)):
            out.append('\t%12x fn_%d+0x%x (/usr/lib/lib%d.so)%s'
                       % (rng.randrange(1 << 40), rng.randint(0, 50), rng.randint(0, 99),
                          rng.randint(0, 3), eol))
        out.append(eol * rng.choice([1, 1, 1, 2]) if rng.random() < 0.9 else '')
    text = ''.join(out)
    if form == 'cut':
        text = text[:len(text) * 2 // 3]
    return text


def tricky_speedscope(rng, n, form):
    """Speedscope events made to mislead a guess at event starts: string
    members holding '},{', blanks and newlines between events, malformed
    events, a profile cut short, sampled profiles between evented ones, the
    frame table after the profiles, a syntax error late in the file."""
    frames = '"shared":{"frames":[%s]}' % ','.join('{"name":"f%d"}' % i for i in range(30))
    profiles = []
    for p in range(3):
        if form == 'mixed' and p == 1:
            samples = [[rng.randrange(30) for _ in range(rng.randint(1, 5))] for _ in range(n // 4)]
            profiles.append('{"type":"sampled","name":"s","unit":"seconds","startValue":0,"endValue":9,'
                            '"samples":%s,"weights":%s}' % (samples, [rng.randint(1, 3) for _ in samples]))
            continue
        t = rng.randrange(100)
        stack = []
        events = []
        for i in range(n):
            sep = rng.choice((',', ',', ', ', ',\n  ', ' ,\n'))
            extra = ''
            if form == 'strings' and rng.random() < 0.3:
                extra = ',"note":"%s"' % rng.choice(('},{', '}, {"type":"O"', '\\"},{', ']'))
            if form == 'bad' and rng.random() < 0.01:
                events.append(sep + rng.choice(('{"type":"Q","frame":1,"at":%d}' % t, '7', '[1]', '{}')))
                continue
            if stack and (len(stack) > 10 or rng.random() < 0.5):
                e = '{"type":"C","frame":%d,"at":%d%s}' % (stack.pop(), t, extra)
            else:
                stack.append(rng.randrange(30))
                e = '{"at":%d,"frame":%d%s,"type":"O"}' % (t, stack[-1], extra)
            events.append((sep if events else '') + e)
            t += rng.randrange(5)
        profiles.append('{"type":"evented","name":"e%d","unit":"milliseconds","startValue":0,'
                        '"endValue":%d,"events":[%s]}' % (p, t, ''.join(events)))
    head = '{"$schema":"https://www.speedscope.app/file-format-schema.json",'
    body = '"profiles":[%s]' % ','.join(profiles)
    text = head + (body + ',' + frames if form == 'frames-last' else frames + ',' + body) + '}\n'
    if form == 'cut':
        text = text[:len(text) * 2 // 3]
    if form == 'syntax':
        at = len(text) * 4 // 5
        at = text.index('}', at) + 1
        text = text[:at] + ' x' + text[at:]
    return text


def tricky_collapsed(rng, n, form):
    """Stack lines with spaces and tabs in frames and before counts, '#'
    and blank lines, CRLF; 'bad' adds counts that are no sample counts and
    lines of no kind (past the warnings' cap); 'cut' ends inside a line
    with no newline, 'binary' has random bytes (NULs, bad UTF-8) inside and
    ends in the middle of a character."""
    eol = '\r\n' if form == 'crlf' else '\n'
    frames = ['main', 'fn a', 'std::map<int, int>::find', 'x;', 'libc.so.6`memcpy', '[k] do_sys\tcall']
    out = ['# collapsed by a test' + eol]
    for i in range(n):
        r = rng.random()
        if r < 0.02:
            out.append(eol)
        elif r < 0.04:
            out.append('# note %d%s' % (i, eol))
        elif form == 'bad' and r < 0.07:
            out.append('main;bad %s%s' % (rng.choice(['-4', '1.5', '1e3', '99999999999999999999']), eol))
        elif form == 'bad' and r < 0.09:
            out.append(rng.choice(['no count here', '\x01\x02 binary', '  ', 'a;b;c']) + eol)
        else:
            stack = ';'.join(rng.choice(frames) for _ in range(rng.randint(1, 12)))
            out.append('%s%s%d%s%s' % (stack, rng.choice([' ', '  ', '\t']), rng.randint(0, 5000),
                                       rng.choice(['', ' ', '\t']), eol))
    text = ''.join(out)
    if form == 'cut':
        text = text[:len(text) * 2 // 3].rstrip('\n')
    data = text.encode()
    if form == 'binary':
        at = len(data) // 2
        data = (data[:at] + bytes(rng.randrange(256) for _ in range(6000)) + data[at:] +
                'main;é'.encode())[:-1]
    return data


def generated(tmp):
    """(path, whether it is big enough for the default cuts)"""
    for name, argv in (('gen.csv', ['gen-csv.py', '3', '8']), ('gen-perf.txt', ['gen-perf.py', '3']),
                       ('gen.speedscope.json', ['gen-speedscope.py', '3', '--kind', 'mixed']),
                       ('gen.folded', ['gen-collapsed.py', '3'])):
        path = os.path.join(tmp, name)
        with open(path, 'wb') as f:
            subprocess.run([sys.executable, os.path.join(bench, argv[0])] + argv[1:], stdout=f,
                           check=True)
        yield path, True
    rng = random.Random(5)
    for form in ('quoted', 'crlf', 'bad', 'sections', 'ordinal', 'long'):
        path = os.path.join(tmp, 'tricky-%s.csv' % form)
        with open(path, 'w', newline='') as f:
            f.write(tricky_csv(rng, 6000, form))
        yield path, False
    for form in ('plain', 'crlf', 'bad', 'cut'):
        path = os.path.join(tmp, 'tricky-%s.perf.txt' % form)
        with open(path, 'w', newline='') as f:
            f.write(tricky_perf(rng, 3000, form))
        yield path, False
    for form in ('strings', 'bad', 'mixed', 'cut', 'frames-last', 'syntax'):
        path = os.path.join(tmp, 'tricky-%s.speedscope.json' % form)
        with open(path, 'w', newline='') as f:
            f.write(tricky_speedscope(rng, 12000, form))
        yield path, False
    for form in ('plain', 'crlf', 'bad', 'cut', 'binary'):
        path = os.path.join(tmp, 'tricky-%s.folded' % form)
        with open(path, 'wb') as f:
            f.write(tricky_collapsed(rng, 8000, form))
        yield path, False


def main():
    rng = random.Random(23)
    failures = []
    stats = {}
    n = 0
    tmp = tempfile.mkdtemp(prefix='tsl-parallel-text-')
    gen = list(generated(tmp))
    big = [path for path, is_big in gen if is_big]
    # Names are a first filter (reading every Chrome file would be slow);
    # the format the one-thread read found decides.
    inputs = [path for path, _ in gen] + [p for p in threads_test.inputs(tmp)
                                         if 'csv' in p or 'perf' in p or p.endswith('.tsv') or
                                         'speedscope' in p or 'collapsed' in p or 'folded' in p]
    for path in inputs:
        one, _, _ = parallel.read(tmp, path, 1, None)
        fmt = next((f for f in ('csv', 'perf-script', 'speedscope', 'collapsed')
                    if b'"format" : "%s"' % f.encode() in one[6]),
                   None)
        if fmt is None:
            continue
        n += 1
        runs = [(threads, rng.randrange(1 << 30)) for threads in (2, 3, 4)]
        if path in big:
            one_default, _, _ = parallel.read(tmp, path, 1, 'default')
            runs += [(threads, 'default') for threads in (2, 3, 4)]
        for threads, seed in runs:
            many, segments, wrong = parallel.read(tmp, path, threads, seed)
            if many[0] not in (0, 1) or many[5] not in (0, 1):
                failures.append('%s: exit %d / %d on %d threads (split seed %s): not a clean exit'
                                % (path, many[0], many[5], threads, seed))
            total = stats.setdefault(fmt, [0, 0])
            total[0] += segments
            total[1] += wrong
            if path in big and seed == 'default' and (segments < 10 or wrong > 0):
                failures.append('%s: %d segments, %d cut at a wrong guess, on %d threads with the '
                                'default cuts' % (path, segments, wrong, threads))
            failure = parallel.differing(one_default if seed == 'default' else one, many, path,
                                         threads, seed)
            if failure:
                failures.append(failure)

    shutil.rmtree(tmp)
    for failure in failures:
        print('FAIL', failure)
    for fmt, (segments, wrong) in sorted(stats.items()):
        print('%s: %d segments scanned in parallel, %d cut at a wrong guess'
              % (fmt, segments, wrong))
        if wrong < 1000 or segments - wrong < 1000:
            failures.append('%s: too few segments or wrong guesses to test anything' % fmt)
            print('FAIL: %s: too few segments or wrong guesses to test anything' % fmt)
    if set(stats) != {'csv', 'perf-script', 'speedscope', 'collapsed'}:
        print('FAIL: not every format was read: %s' % sorted(stats))
        return 1
    print('%d inputs compared; %d differ' % (n, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
