#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole-trace state cache (app/core/read/tsl-state-cache.c): reopening an
# unchanged file loads its cached state, and whatever changed — the file
# touched, truncated, appended to or replaced, the entry corrupt, cut short or
# of another version, a cache folder that cannot be written — the file is read
# again and the result is what a read without the cache gives, never stale.
# --no-cache neither reads nor writes it; a size cap evicts the oldest first.
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

top = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
exe = os.environ['TSL_TIMESLICE']
tmp = tempfile.mkdtemp()
cache_home = os.path.join(tmp, 'cache')
env = dict(os.environ, LC_ALL='C.UTF-8', XDG_CACHE_HOME=cache_home, G_MESSAGES_DEBUG='tsl-state-cache')
env.pop('DISPLAY', None)
env.pop('TSL_NO_INDEX', None)
env.pop('TSL_CACHE_MAX_BYTES', None)   # the suite turns the state cache off
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def stat_is_fifo(name):
    return stat.S_ISFIFO(os.lstat(name).st_mode)


def path(name):
    return os.path.join(tmp, name)


def state_of(src, *extra, environ=None):
    """The canonical state bytes of a read of src, and whether the cache gave it."""
    out = path('out.tss')
    r = subprocess.run([exe, 'sample', '--state', '--mode', 'time', '-o', out, *extra, src],
                       capture_output=True, env=environ or env, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    with open(out, 'rb') as f:
        data = f.read()
    # GLib prints debug messages on standard output (free here: -o).
    return data, b'from the cache' in r.stdout + r.stderr


def fresh(src):
    return state_of(src, '--no-cache')[0]


def entries():
    d = os.path.join(cache_home, 'timeslice')
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.startswith('state-')) if os.path.isdir(d) else []


src = path('trace.json')
with open(src, 'wb') as f:
    subprocess.run([sys.executable, os.path.join(top, 'bench', 'gen-chrome.py'), '--mb', '2', '--seed', '5',
                    '--form', 'array'], stdout=f, check=True)

first, hit = state_of(src)
check(not hit and len(entries()) == 1, 'first read: read in full, one cache entry written')
second, hit = state_of(src)
check(hit and second == first, 'reopened unchanged: loaded from the cache, the same state byte for byte')
info = subprocess.run([exe, 'info', src], capture_output=True, env=env)
info2 = subprocess.run([exe, 'info', src], capture_output=True, env=env)


def plain(out):
    return [l for l in out.splitlines() if b'-DEBUG' not in l]


check(b'from the cache' in info2.stdout and plain(info.stdout) == plain(info2.stdout),
      'info twice: the second from the cache (count mode: its own entry), same output')

# --no-cache: neither used nor written.
n = len(entries())
data, hit = state_of(src, '--no-cache')
check(not hit and data == first and len(entries()) == n, '--no-cache: not used, nothing written')


def expect_reread(what, change):
    change()
    want = fresh(src)
    got, hit = state_of(src)
    check(not hit and got == want, f'{what}: read again, not the stale state')
    again, hit = state_of(src)
    check(hit and again == want, f'{what}: then cached anew')


def touch():
    st = os.stat(src)
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))


def truncate():
    with open(src, 'rb+') as f:
        size = f.seek(0, 2)
        f.truncate(size - 1000)


def append():
    with open(src, 'ab') as f:
        f.write(b'\n' * 10)


def replace():
    # Same bytes and times, another inode.
    shutil.copy2(src, src + '.new')
    os.replace(src + '.new', src)


def change_middle_keep_size():
    # Different content, same size; the modification time moves.
    with open(src, 'rb+') as f:
        data = f.read()
        f.seek(0)
        f.write(data.replace(b'"Layout"', b'"Paint!"', 50))


expect_reread('touched', touch)
expect_reread('truncated', truncate)
expect_reread('appended to', append)
expect_reread('replaced', replace)
expect_reread('rewritten in place', change_middle_keep_size)


def damage_entry(what, damage):
    for e in entries():
        with open(e, 'rb') as f:
            data = f.read()
        with open(e, 'wb') as f:
            f.write(damage(data))
    want = fresh(src)
    got, hit = state_of(src)
    check(not hit and got == want, f'cache entry {what}: ignored, the file read again')


damage_entry('corrupt', lambda d: d[:len(d) // 2] + bytes([d[len(d) // 2] ^ 1]) + d[len(d) // 2 + 1:])
damage_entry('truncated', lambda d: d[:len(d) - 100])
damage_entry('empty', lambda d: b'')


def other_version(d):
    # The program version after the magic and cache version (the state
    # after it checks itself; the header is compared byte for byte).
    at = 8 + 8
    vlen = int.from_bytes(d[at:at + 8], 'little')
    v = d[at + 8:at + 8 + vlen]
    return d[:at + 8] + bytes([v[0] ^ 1]) + v[1:] + d[at + 8 + vlen:]


for e in entries():
    os.unlink(e)
state_of(src)
damage_entry('of another version (checksum valid)', other_version)

# Another build of the same version (a copy of the program, made later):
# what the first build cached is not served to it.
for e in entries():
    os.unlink(e)
state_of(src)
rebuilt = path('timeslice-rebuilt')
shutil.copy(exe, rebuilt)
os.utime(rebuilt, (time.time() + 10, time.time() + 10))
r = subprocess.run([rebuilt, 'sample', '--state', '--mode', 'time', '-o', path('rebuilt.tss'), src],
                   capture_output=True, env=env, timeout=120)
check(r.returncode == 0 and b'from the cache' not in r.stdout + r.stderr,
      'another build of the same version: the file read again, not the first build\'s entry')

# A cache folder that cannot be written: the read works, nothing cached.
blocked = dict(env, XDG_CACHE_HOME=path('blocked'))
with open(path('blocked'), 'w') as f:
    f.write('a file where the cache folder would be')
data, hit = state_of(src, environ=blocked)
data2, hit2 = state_of(src, environ=blocked)
check(data == fresh(src) and not hit and not hit2, 'cache folder cannot be made: read in full each time, no error')
if os.geteuid() != 0:
    ro = path('ro')
    os.makedirs(os.path.join(ro, 'timeslice'))
    os.chmod(os.path.join(ro, 'timeslice'), 0o500)
    data, hit = state_of(src, environ=dict(env, XDG_CACHE_HOME=ro))
    check(data == fresh(src) and not hit, 'read-only cache folder: read in full, no error')

# A full disk (a file size limit: writes past it fail with EFBIG) while the
# entry is written: the read works, and neither an entry nor its temporary is
# left; with room again, the next read writes it whole.
full_home = path('full')
full = dict(env, XDG_CACHE_HOME=full_home)
entry_size = len(second) + 400
info_plain = subprocess.run([exe, 'info', '--no-cache', src], capture_output=True,
                            env={k: v for k, v in env.items() if k != 'G_MESSAGES_DEBUG'}).stdout


def limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (entry_size // 2, entry_size // 2))


r = subprocess.run([exe, 'info', src], capture_output=True, env=full, preexec_fn=limit_file_size, timeout=120)
left = os.listdir(os.path.join(full_home, 'timeslice'))
# GLib prints the debug messages on standard output: the reason, then the rest.
out = r.stdout.split(b'\n')
failed = [l for l in out if b'cannot write the state cache' in l]
rest = b'\n'.join(l for l in out if b'-DEBUG' not in l)
check(r.returncode == 0 and failed and rest == info_plain, f'disk full while saving the state: read in full, no error ({failed})')
check(not [n for n in left if n.startswith('state-')], f'disk full: no entry nor temporary left ({left})')
state_of(src, environ=full)
_, hit = state_of(src, environ=full)
check(hit, 'room again: the entry is written whole and loads')

# A temporary an interrupted save left is removed by a later save once an
# hour old; a recent one (another process still writing it) is left alone.
d = os.path.join(full_home, 'timeslice')
stale, recent = os.path.join(d, 'state-1-2-0123456789abcdef.tsc.AbC123'), os.path.join(d, 'state-1-2-0123456789abcdef.tsc.XyZ789')
for t in (stale, recent):
    with open(t, 'wb') as f:
        f.write(b'half an entry')
os.utime(stale, (time.time() - 7200, time.time() - 7200))
for n in os.listdir(d):
    if n.endswith('.tsc'):
        os.unlink(os.path.join(d, n))
state_of(src, environ=full)
check(not os.path.exists(stale) and os.path.exists(recent), 'an hour-old temporary removed, a recent one kept')

# A FIFO (or anything not a regular file) at an entry's path hung `info`
# (the state entry) and `compare` (the index entry) in open(): entries are
# opened only when regular, else the file is read as if there were none.
fifo_home = path('fifo')
fifo_env = dict(env, XDG_CACHE_HOME=fifo_home)
quiet = {k: v for k, v in fifo_env.items() if k != 'G_MESSAGES_DEBUG'}
compare_args = ['compare', '--a', '0%..10%', '--b', '50%..60%', src]


def run_quiet(args):
    try:
        r = subprocess.run([exe, *args], capture_output=True, env=quiet, timeout=30)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired:
        return 'hung', b''


want_info = subprocess.run([exe, 'info', '--no-cache', src], capture_output=True, env=quiet).stdout
want_compare = subprocess.run([exe, *compare_args[:-1], '--no-cache', src], capture_output=True, env=quiet).stdout
for args in (['info', src], compare_args):
    run_quiet(args)   # writes the entries
d = os.path.join(fifo_home, 'timeslice')
made = sorted(n for n in os.listdir(d) if n.endswith(('.tsc', '.tsi')))
check(any(n.endswith('.tsc') for n in made) and any(n.endswith('.tsi') for n in made),
      f'a state entry and an index entry to replace ({made})')
for n in made:
    os.unlink(os.path.join(d, n))
    os.mkfifo(os.path.join(d, n))
got_info = run_quiet(['info', src])
check(got_info == (0, want_info), f'FIFO at the state entry: info reads the file ({got_info[0]})')
for n in made:
    if not stat_is_fifo(os.path.join(d, n)):
        os.unlink(os.path.join(d, n))
        os.mkfifo(os.path.join(d, n))
got_compare = run_quiet(compare_args)
check(got_compare == (0, want_compare), f'FIFO at the index entry: compare reads the file ({got_compare[0]})')

# A size cap: the entries used longest ago go first.
capped = dict(env, XDG_CACHE_HOME=path('capped'))
one = len(second) + 400
srcs = []
for i in range(4):
    p = path(f'trace{i}.json')
    shutil.copy(src, p)
    with open(p, 'ab') as f:
        f.write(b' ' * i)   # another file, another entry
    srcs.append(p)
capped['TSL_CACHE_MAX_BYTES'] = str(int(2.5 * one))
for p in srcs:
    state_of(p, environ=capped)
    time.sleep(1.1)   # entry ages are whole seconds
d = os.path.join(path('capped'), 'timeslice')
names = [n for n in os.listdir(d) if n.startswith('state-')]
total = sum(os.path.getsize(os.path.join(d, n)) for n in names)
check(len(names) == 2 and total <= int(2.5 * one), f'cap of 2.5 entries: 2 kept ({len(names)}, {total} bytes)')
_, hit_new = state_of(srcs[3], environ=capped)
_, hit_old = state_of(srcs[0], environ=capped)
check(hit_new and not hit_old, 'the newest entry is kept, the oldest was evicted')

if failures:
    print(f'{len(failures)} failed')
    sys.exit(1)
