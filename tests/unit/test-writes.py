#!/usr/bin/env python3
# test-writes.py: where `-o OUT` writes, and what it leaves behind
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A regular file (or a new name) is replaced whole through a temporary file
# beside it, keeping its mode and owner; a symlink is followed and stays a
# symlink; anything else (character device, FIFO, socket) is written through,
# never replaced. A name with a colon is a file name. An interrupted export
# and a name near NAME_MAX leave no temporary behind, and messages name the
# user's file, never the temporary.
#
# An output that is an input (however named) is refused before any read.
#
# The /dev/null and /dev/stdout cases run only after the same checks on a
# private device node and symlink passed: a timeslice that replaces special
# files must not get the chance to replace the machine's /dev/null.

import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
data = os.path.join(os.environ.get('G_TEST_SRCDIR', os.path.dirname(__file__) + '/..'), 'data')
trace = os.path.join(data, 'collapsed.txt')
counters = os.path.join(data, 'chrome', 'counters.json')
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
failures = []


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)
    return cond


def run(*args, cwd=None, stdout=subprocess.PIPE):
    return subprocess.run([timeslice, *args], stdout=stdout, stderr=subprocess.PIPE,
                          cwd=cwd, env=env, timeout=120)


def expected_csv():
    proc = run('sample', trace)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def contents(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError:
        return None


def parts(directory):
    return [n for n in os.listdir(directory) if n.endswith('.part')]


def test_fifo(tmp, csv):
    fifo = os.path.join(tmp, 'pipe.csv')
    os.mkfifo(fifo)
    # A reader first, so the writer's open does not block; the pipe keeps
    # what was written until we read it.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        proc = run('sample', '-o', fifo, trace)
        got = b''
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            got += chunk
    finally:
        os.close(fd)
    check('FIFO: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('FIFO: still a FIFO', stat.S_ISFIFO(os.lstat(fifo).st_mode))
    check('FIFO: the reader got the CSV', got == csv, f'{len(got)} bytes')
    check('FIFO: no temporary', parts(tmp) == [], repr(parts(tmp)))


def test_char_device(path, label):
    before = os.stat(path)
    proc = run('sample', '-o', path, trace)
    after = os.lstat(path)
    ok = check(f'{label}: exit 0', proc.returncode == 0, proc.stderr.decode())
    ok &= check(f'{label}: still a character device', stat.S_ISCHR(after.st_mode))
    ok &= check(f'{label}: the same device', after.st_rdev == before.st_rdev)
    return ok


def test_socket(tmp):
    path = os.path.join(tmp, 'sock.csv')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    try:
        proc = run('sample', '-o', path, trace)
        err = proc.stderr.decode()
        check('socket: exit 1', proc.returncode == 1, f'exit {proc.returncode}: {err}')
        check('socket: message names it', path in err, err)
        check('socket: still a socket', stat.S_ISSOCK(os.lstat(path).st_mode))
    finally:
        sock.close()


def old_file(path, mode):
    """A file to be replaced, with `mode` and (as root) another owner,
    which is returned."""
    with open(path, 'wb') as f:
        f.write(b'old\n')
    os.chmod(path, mode)
    owner = (4321, 4322) if os.geteuid() == 0 else None
    if owner:
        os.chown(path, *owner)
    return owner


def test_regular(tmp, csv):
    path = os.path.join(tmp, 'secret.csv')
    owner = old_file(path, 0o640)
    proc = run('sample', '-o', path, trace)
    st = os.lstat(path)
    check('regular file: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('regular file: replaced', contents(path) == csv)
    check('regular file: keeps mode 0640', stat.S_IMODE(st.st_mode) == 0o640, oct(st.st_mode))
    if owner:
        check('regular file: keeps its owner', (st.st_uid, st.st_gid) == owner, f'{st.st_uid}:{st.st_gid}')


def test_symlinks(tmp, csv):
    target = os.path.join(tmp, 'private.csv')
    owner = old_file(target, 0o600)
    link = os.path.join(tmp, 'link.csv')
    os.symlink('private.csv', link)

    proc = run('sample', '-o', link, trace)
    check('symlink: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('symlink: still a symlink to its target', os.path.islink(link) and os.readlink(link) == 'private.csv')
    check('symlink: the target holds the CSV', contents(target) == csv)
    st = os.stat(target)
    check('symlink: its target keeps mode 0600', stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode))
    if owner:
        check('symlink: its target keeps its owner', (st.st_uid, st.st_gid) == owner, f'{st.st_uid}:{st.st_gid}')

    dangling = os.path.join(tmp, 'dangling.csv')
    os.symlink('made-by-link.csv', dangling)
    proc = run('sample', '-o', dangling, trace)
    check('dangling symlink: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('dangling symlink: stays a symlink', os.path.islink(dangling))
    made = os.path.join(tmp, 'made-by-link.csv')
    check('dangling symlink: its target is created', contents(made) == csv)

    # /dev/stdout's shape, in a directory of our own.
    stdout_link = os.path.join(tmp, 'stdout')
    os.symlink('/proc/self/fd/1', stdout_link)
    proc = run('sample', '-o', stdout_link, trace)
    ok = check('symlink to /proc/self/fd/1: exit 0', proc.returncode == 0, proc.stderr.decode())
    ok &= check('symlink to /proc/self/fd/1: the CSV is on stdout', proc.stdout == csv)
    ok &= check('symlink to /proc/self/fd/1: still a symlink', os.path.islink(stdout_link))
    check('symlinks: no temporary', parts(tmp) == [], repr(parts(tmp)))
    return ok


def test_dev_stdout(csv):
    proc = run('sample', '-o', '/dev/stdout', trace)
    check('/dev/stdout: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('/dev/stdout: the CSV is on stdout', proc.stdout == csv)
    check('/dev/stdout: still a symlink', os.path.islink('/dev/stdout'))


def test_names(tmp, csv):
    proc = run('sample', '-o', '-', trace)
    check('-o -: the CSV is on stdout', proc.returncode == 0 and proc.stdout == csv)
    check('-o -: no file named "-"', not os.path.exists(os.path.join(tmp, '-')))

    for name in ('out:1.csv', 'trace-2024-01-01T12:30:00.csv'):
        proc = run('sample', '-o', name, trace, cwd=tmp)
        check(f'{name}: exit 0', proc.returncode == 0, proc.stderr.decode())
        check(f'{name}: written under that name', contents(os.path.join(tmp, name)) == csv)
    proc = run('export', '-o', 'a:b.png', '--size', '300x200', counters, cwd=tmp)
    check('export -o a:b.png: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('export -o a:b.png: written', os.path.isfile(os.path.join(tmp, 'a:b.png')))

    # 245 bytes is a legal name; ".NAME.XXXXXXXX.part" must still fit in 255.
    long_name = 'n' * 241 + '.csv'
    proc = run('sample', '-o', long_name, trace, cwd=tmp)
    check('245-byte name: exit 0', proc.returncode == 0, proc.stderr.decode())
    check('245-byte name: written', os.path.isfile(os.path.join(tmp, long_name)))
    proc = run('export', '-o', 'p' * 241 + '.png', '--size', '300x200', counters, cwd=tmp)
    check('245-byte picture name: exit 0', proc.returncode == 0, proc.stderr.decode())

    # Failures name the user's file, never our temporary.
    too_long = os.path.join(tmp, 'x' * 252 + '.csv')
    missing = os.path.join(tmp, 'no', 'such', 'dir', 'out.png')
    directory = os.path.join(tmp, 'dir.png')
    os.mkdir(directory)
    for label, args, out in (('256-byte name', ('sample', '-o', too_long, trace), too_long),
                             ('missing directory', ('export', '-o', missing, counters), missing),
                             ('a directory', ('export', '-o', directory, counters), directory)):
        proc = run(*args)
        err = proc.stderr.decode()
        check(f'{label}: exit 1', proc.returncode == 1, f'exit {proc.returncode}: {err}')
        check(f'{label}: message names the file', err.startswith('timeslice: ') and out in err, err)
        check(f'{label}: message does not name the temporary', '.part' not in err, err)
    check('names: no temporary', parts(tmp) == [], repr(parts(tmp)))


def test_output_is_input(tmp):
    """`sample -o IN IN` replaced the input with its samples, exit 0: every
    command's -o (and --table) that is one of its inputs, by the same device
    and inode, is refused with exit 2 and the input left as it was."""
    directory = os.path.join(tmp, 'same')
    os.mkdir(directory)

    def copy(src, name):
        path = os.path.join(directory, name)
        with open(src, 'rb') as f, open(path, 'wb') as g:
            g.write(f.read())
        return path

    # Formats are sniffed from the contents: inputs named like outputs, so
    # that each command would otherwise write them.
    stacks = copy(trace, 'stacks.txt')
    chrome = copy(counters, 'counters.csv')
    other = copy(counters, 'other.csv')
    picture = copy(counters, 'counters.png')
    example = copy(os.path.join(data, '..', '..', 'data', 'examples', 'example-trace.json'), 'example.csv')
    link = os.path.join(directory, 'link.txt')
    os.symlink('stacks.txt', link)
    hard = os.path.join(directory, 'hard.txt')
    os.link(stacks, hard)
    state = os.path.join(directory, 'part.tss')
    proc = run('sample', '--state', '-o', state, stacks)
    check('same file: a state to merge', proc.returncode == 0, proc.stderr.decode())
    ranges = ('--a', '0%..50%', '--b', '50%..100%')

    cases = (
        ('sample -o IN IN', ('sample', '-o', stacks, stacks), stacks, None),
        ('sample -o SYMLINK IN', ('sample', '-o', link, stacks), stacks, None),
        ('sample -o HARDLINK IN', ('sample', '-o', hard, stacks), stacks, None),
        ('sample -o IN - < IN', ('sample', '-o', stacks, '-'), stacks, stacks),
        ('sample --state --after S -o S', ('sample', '--state', '--after', state, '-o', state, stacks),
         state, None),
        ('merge -o S S', ('merge', '-o', state, state), state, None),
        ('compare -o IN IN', ('compare', *ranges, '-o', chrome, chrome), chrome, None),
        ('compare -o AFTER BEFORE AFTER', ('compare', '-o', other, chrome, other), other, None),
        ('export -o IN IN', ('export', '-o', chrome, chrome), chrome, None),
        ('export --view -o IN IN', ('export', '--view', '0%..100%', '-o', chrome, chrome), chrome, None),
        ('export --flamegraph -o IN IN', ('export', '--flamegraph', '-o', example, example), example, None),
        ('export --report --table IN IN', ('export', '--report', '-o', os.path.join(directory, 'r.html'),
                                           '--table', example, example), example, None),
        ('export --merge -o IN IN OTHER', ('export', '--merge', '-o', picture, picture, other), picture, None),
    )
    for label, args, victim, stdin in cases:
        before = contents(victim)
        if stdin is not None:
            with open(stdin, 'rb') as f:
                proc = subprocess.run([timeslice, *args], stdin=f, capture_output=True, env=env, timeout=120)
        else:
            proc = run(*args)
        err = proc.stderr.decode()
        check(f'{label}: exit 2', proc.returncode == 2, f'exit {proc.returncode}: {err}')
        check(f'{label}: says the output is an input', 'is an input file' in err, err)
        check(f'{label}: the input is unchanged', contents(victim) == before)
    check('same file: report not written', not os.path.exists(os.path.join(directory, 'r.html')))
    check('same file: no temporary', parts(directory) == [], repr(parts(directory)))

    # Another file is still fine.
    out = os.path.join(directory, 'out.csv')
    proc = run('sample', '-o', out, stacks)
    check('another file: exit 0', proc.returncode == 0, proc.stderr.decode())


def test_signals(tmp):
    # A large PNG takes seconds to paint and encode into its temporary.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        directory = os.path.join(tmp, f'signal-{sig.name}')
        os.mkdir(directory)
        out = os.path.join(directory, 'big.png')
        # A shell without job control starts background jobs with SIGINT
        # ignored, and nohup ignores SIGHUP: timeslice rightly keeps an
        # ignored signal ignored, so give it the default disposition.
        proc = subprocess.Popen([timeslice, 'export', '-o', out, '--size', '20000x2000', counters],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                                preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
        seen = False
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if parts(directory):
                seen = True
                proc.send_signal(sig)
                break
            time.sleep(0.002)
        proc.wait(timeout=120)
        if not check(f'{sig.name}: the export was interrupted while writing', seen,
                     f'finished with {proc.returncode} before its temporary was seen'):
            continue
        check(f'{sig.name}: died of the signal', proc.returncode == -sig, f'exit {proc.returncode}')
        check(f'{sig.name}: no temporary left behind', parts(directory) == [], repr(os.listdir(directory)))
        check(f'{sig.name}: no partial file', not os.path.exists(out))


def main():
    csv = expected_csv()
    with tempfile.TemporaryDirectory() as tmp:
        test_fifo(tmp, csv)
        test_socket(tmp)
        test_regular(tmp, csv)
        links_ok = test_symlinks(tmp, csv)
        test_names(os.path.join(tmp), csv)
        test_output_is_input(tmp)
        test_signals(tmp)

        device_ok = False
        if os.geteuid() == 0:
            node = os.path.join(tmp, 'null')
            os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            device_ok = test_char_device(node, 'private /dev/null node')
        else:
            print('ok # a private device node needs root (mknod): /dev/null itself stands in')
            device_ok = True

    # The machine's own, once a private copy of each came through unchanged.
    if check('private device checks passed before touching /dev/null', device_ok):
        test_char_device('/dev/null', '/dev/null')
    if check('private symlink checks passed before touching /dev/stdout', links_ok):
        test_dev_stdout(csv)

    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
