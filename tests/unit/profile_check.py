# profile_check.py: what the tests of the profile readers (cpuprofile, pprof, gecko) share
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# TAP-style checks collected in `failures`, the command line run without
# its state cache, its outputs parsed, generated profiles written to the
# test's temporary folder and a child's own peak memory. A test calls
# setup() first and finish() last.

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
SANITIZED = os.environ.get('TSL_SANITIZED') == '1'
failures = []
tmp = None


def setup(name):
    """The test's temporary folder (removed by finish())."""
    global tmp
    tmp = tempfile.mkdtemp(prefix=f'tsl-{name}-')
    return tmp


def finish():
    shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print('FAILED: ' + ', '.join(failures), file=sys.stderr)
        sys.exit(1)


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def run(*args, env_extra=None):
    env = dict(os.environ, LC_ALL='C.UTF-8')
    env.update(env_extra or {})
    return subprocess.run([timeslice, args[0], '--no-cache', *args[1:]], capture_output=True, env=env,
                          timeout=600)


def info(path, env_extra=None):
    proc = run('info', '--json', path, env_extra=env_extra)
    return proc.returncode, (json.loads(proc.stdout) if proc.returncode == 0 else None), proc.stderr.decode()


def sample_rows(path):
    proc = run('sample', path)
    return list(csv.DictReader(io.StringIO(proc.stdout.decode())))


def flame_csv(path, a='0%..100%', env_extra=None):
    """Self weight per call path of the flame graph of range `a` (a range
    makes the figures exact: every sample, not the kept ones)."""
    out = os.path.join(tmp, 'flame.csv')
    proc = run('export', '--flamegraph', '--a', a, '-o', out, path, env_extra=env_extra)
    if proc.returncode != 0:
        return {}
    with open(out) as f:
        return {r['call_path']: float(r['self_weight']) for r in csv.DictReader(f) if float(r['self_weight']) > 0}


def folded(path, env_extra=None):
    out = os.path.join(tmp, 'stacks.folded')
    run('export', '--a', '0%..100%', '-o', out, path, env_extra=env_extra)
    got = Counter()
    with open(out) as f:
        for line in f:
            stack, count = line.rstrip('\n').rsplit(' ', 1)
            got[stack] += int(count)
    return got


def generate(script, name, *args):
    """The output of bench/SCRIPT ARGS as the temporary file NAME."""
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        subprocess.run([sys.executable, os.path.join(top, 'bench', script), *args], stdout=f, check=True)
    return path


def peak_rss(args):
    """Exit status and the child's own peak RSS (bytes) of `timeslice ARGS`."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execvp(timeslice, [timeslice] + args)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024
