#!/usr/bin/env python3
# test-export-fail.py: `timeslice export` where it cannot write
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# An unwritable place (a directory that does not exist, a path under a regular
# file, a read-only file system) and a full disk (a 64 KiB tmpfs; needs root,
# which CI has) must give exit 1 with a message naming the file, and leave the
# file already there byte for byte as it was, with no temporary beside it. So
# must a disk that fills up only near the end of the report (12 KiB tmpfs).
# A report that fails writes its --table neither.

import os
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
data = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data')
trace = os.path.join(data, 'chrome', 'counters.json')
example = os.path.join(data, '..', '..', 'data', 'examples', 'example-trace.json')
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def export_fails(label, out, *extra, source=trace):
    proc = subprocess.run([timeslice, 'export', '-o', out, *extra, source],
                          capture_output=True, timeout=120)
    err = proc.stderr.decode('utf-8', 'replace')
    check(f'{label}: exit 1', proc.returncode == 1, f'exit {proc.returncode}: {err}')
    check(f'{label}: message names the file once', err.startswith('timeslice: ') and err.count(out) == 1, err)


def mount(directory, options):
    return subprocess.run(['mount', '-t', 'tmpfs', '-o', options, 'tmpfs', directory],
                          capture_output=True).returncode == 0


def main():
    with tempfile.TemporaryDirectory() as tmp:
        export_fails('missing directory', os.path.join(tmp, 'no', 'such', 'dir', 'out.png'))
        blocker = os.path.join(tmp, 'file')
        open(blocker, 'w').close()
        export_fails('under a regular file', os.path.join(blocker, 'out.csv'))
        os.mkdir(os.path.join(tmp, 'dir.png'))
        export_fails('a directory as the target', os.path.join(tmp, 'dir.png'), '--size', '300x200')

        report_with_table(tmp)

        if os.geteuid() != 0:
            print('ok # SKIP read-only and full file systems need root to mount a tmpfs '
                  '(CI runs as root, so they run there)')
            return 1 if failures else 0

        for label, options in (('read-only file system', 'size=1m'), ('full disk', 'size=64k')):
            mnt = os.path.join(tmp, label.replace(' ', '-'))
            os.mkdir(mnt)
            if not mount(mnt, options):
                check(f'{label}: mount a tmpfs', False, 'mount failed although running as root')
                continue
            try:
                existing = os.path.join(mnt, 'timeline.png')
                old = b'the report from last time\n' * 100
                with open(existing, 'wb') as f:
                    f.write(old)
                if label == 'full disk':
                    # Fill what is left, so that even a small report cannot fit.
                    try:
                        with open(os.path.join(mnt, 'filler'), 'wb') as f:
                            while True:
                                f.write(b'\0' * 4096)
                                f.flush()
                    except OSError:
                        pass
                else:
                    subprocess.run(['mount', '-o', 'remount,ro', mnt], check=True)
                for ext in ('png', 'svg', 'pdf', 'csv'):
                    out = os.path.join(mnt, 'timeline.' + ext)
                    export_fails(f'{label}, {ext}', out, '--size', '2000x1500')
                with open(existing, 'rb') as f:
                    check(f'{label}: existing file unchanged', f.read() == old)
                left = sorted(set(os.listdir(mnt)) - {'timeline.png', 'filler'})
                check(f'{label}: no temporary left behind', left == [], repr(left))
            finally:
                subprocess.run(['umount', mnt])

        nearly_full(tmp)

    return 1 if failures else 0


def report_with_table(tmp):
    """`export --report -o R --table T` wrote T, then failed on R with exit 1
    and left T behind: a command that fails writes nothing."""
    table = os.path.join(tmp, 'table.csv')
    report = os.path.join(tmp, 'no', 'such', 'dir', 'report.html')
    export_fails('report to a missing directory, with --table', report, '--report', '--table', table,
                 source=example)
    check('report failed: no table written', not os.path.exists(table))
    old = b'the table from last time\n'
    with open(table, 'wb') as f:
        f.write(old)
    export_fails('report to a missing directory, over an old table', report, '--report', '--table', table,
                 source=example)
    with open(table, 'rb') as f:
        check('report failed: the old table unchanged', f.read() == old)
    left = [n for n in os.listdir(tmp) if n.endswith('.part')]
    check('report failed: no temporary left behind', left == [], repr(left))
    os.unlink(table)


def nearly_full(tmp):
    """Room for the start of a report but not its end: cairo 1.16's PDF
    surface dropped the write error of its final flush and the export
    published a truncated file with exit 0 (timeline and flame graph)."""
    mnt = os.path.join(tmp, 'nearly-full')
    os.mkdir(mnt)
    # Three pages: one for the old report, two (8 KiB) for the new one,
    # which is 16 KiB or more.
    if not mount(mnt, 'size=12k'):
        check('nearly full disk: mount a tmpfs', False, 'mount failed although running as root')
        return
    try:
        old = b'the report from last time\n' * 100
        for ext in ('pdf', 'svg'):
            for kind, source, extra in (('timeline', trace, ('--size', '2000x1500')),
                                        ('flame graph', example, ('--flamegraph', '--size', '2000x1500'))):
                out = os.path.join(mnt, 'report.' + ext)
                with open(out, 'wb') as f:
                    f.write(old)
                export_fails(f'nearly full disk, {kind} {ext}', out, *extra, source=source)
                with open(out, 'rb') as f:
                    check(f'nearly full disk, {kind} {ext}: old file unchanged', f.read() == old)
                left = sorted(set(os.listdir(mnt)) - {'report.' + ext})
                check(f'nearly full disk, {kind} {ext}: no temporary left behind', left == [], repr(left))
                os.unlink(out)
    finally:
        subprocess.run(['umount', mnt])


if __name__ == '__main__':
    sys.exit(main())
