#!/usr/bin/env python3
# test-speedscope-sampled.py: sampled speedscope profiles are read as they
# stream, in flat memory, with the results of a profile held whole
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A sampled profile's samples come before the weights that give their
# times. The reader spools the samples' text (memory, then an unlinked
# temporary file) until the weights come; TSL_SPEEDSCOPE_HOLD_SAMPLED=1
# makes it hold the profile whole as it used to. Checked: the same `info`
# (warnings included) and `sample` output both ways, on generated files,
# every corpus speedscope file and copies cut at random places; a 60 MB
# one-profile file read within 48 MiB streamed (held, it takes more than
# the file); and a temporary file that cannot be made (TMPDIR missing) or
# fills up (RLIMIT_FSIZE) keeps the spool in memory with the same results.

import os
import random
import resource
import signal
import subprocess
import sys
import tempfile

timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.normpath(os.path.join(here, '..', '..'))
corpus = os.environ.get('TSL_CORPUS_DIR', os.path.join(top, '..', 'shared', 'corpus'))
SANITIZED = os.environ.get('TSL_SANITIZED') == '1'
MIB = 1 << 20
failures = []
tmp = tempfile.mkdtemp(prefix='tsl-speedscope-sampled-')


def check(name, cond, detail=''):
    print(('ok ' if cond else 'not ok ') + name + (f' # {detail}' if detail and not cond else ''))
    if not cond:
        failures.append(name)


def env_for(hold, env_extra):
    env = dict(os.environ, LC_ALL='C.UTF-8', XDG_CACHE_HOME=os.path.join(tmp, 'cache'))
    env.pop('TSL_SPEEDSCOPE_HOLD_SAMPLED', None)
    if hold:
        env['TSL_SPEEDSCOPE_HOLD_SAMPLED'] = '1'
    env.update(env_extra or {})
    return env


def limit_files(size):
    """In the child: files it writes stop at `size` bytes (EFBIG), as on a full disk."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


def run(args, hold=False, env_extra=None, file_limit=None):
    """`timeslice MODE --no-cache FILE`: exit status, output, messages."""
    proc = subprocess.run([timeslice, args[0], '--no-cache'] + args[1:], capture_output=True,
                          env=env_for(hold, env_extra), timeout=600,
                          preexec_fn=limit_files(file_limit) if file_limit is not None else None)
    return proc.returncode, proc.stdout, proc.stderr


def run_rss(args, hold=False, env_extra=None):
    """Exit status, output and the child's own peak RSS (bytes)."""
    env = env_for(hold, env_extra)
    out_path = os.path.join(tmp, 'out.txt')
    with open(out_path, 'wb') as out:
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            os.execvpe(timeslice, [timeslice] + args, env)
        _, status, usage = os.wait4(pid, 0)
    with open(out_path, 'rb') as f:
        return os.waitstatus_to_exitcode(status), f.read(), usage.ru_maxrss * 1024


def gen(path, mb, kind, profiles):
    with open(path, 'wb') as f:
        subprocess.run([sys.executable, os.path.join(top, 'bench', 'gen-speedscope.py'), str(mb),
                        '--kind', kind, '--profiles', str(profiles)], stdout=f, check=True)


def both_ways(label, path, env_extra=None):
    """info and sample of `path`, streamed and held: the same, byte for byte."""
    results = []
    for hold in (False, True):
        results.append(tuple(run([mode, path], hold, env_extra if not hold else None) for mode in ('info', 'sample')))
    check(f'{label}: info and sample streamed == held', results[0] == results[1],
          repr(results[0][0][1][-300:]) + ' / ' + repr(results[1][0][1][-300:]))
    return results[0]


def main():
    inputs = []
    for name, mb, kind, profiles in (('sampled-3.json', 2, 'sampled', 3), ('mixed-4.json', 2, 'mixed', 4),
                                     ('sampled-1.json', 1, 'sampled', 1)):
        p = os.path.join(tmp, name)
        gen(p, mb, kind, profiles)
        inputs.append(p)
    speedscope_corpus = os.path.join(corpus, 'speedscope')
    inputs += sorted(os.path.join(speedscope_corpus, f) for f in os.listdir(speedscope_corpus))
    inputs += sorted(os.path.join(top, 'tests', 'data', 'speedscope', f)
                     for f in os.listdir(os.path.join(top, 'tests', 'data', 'speedscope')))
    for p in inputs:
        both_ways(os.path.basename(p), p)

    # A type that comes after the samples (austin writes it last) is taken
    # as sampled; one that says otherwise is too late to change that, and says so.
    late = os.path.join(tmp, 'late-type.json')
    with open(late, 'w') as f:
        f.write('{"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":['
                '{"name":"p","unit":"milliseconds","startValue":0,"samples":[[0],[0,1]],"weights":[1,2],'
                '"type":"sampled"},'
                '{"name":"q","unit":"milliseconds","startValue":0,"samples":[[1]],"weights":[3],'
                '"type":"evented"}]}')
    code, out, err = run(['info', late])
    check('type after the samples: read, the contradicting one named in a warning',
          code == 0 and b'"q": its type "evented" comes after its samples; read as sampled' in out
          and b'"p": its type' not in out, (out + err)[-400:])

    # Cut anywhere: inside a sample, between samples, inside the weights.
    rng = random.Random(7)
    cut_path = os.path.join(tmp, 'cut.json')
    same = 0
    tried = 0
    for src in inputs[:3] + [p for p in inputs if 'sampled' in os.path.basename(p)][3:]:
        data = open(src, 'rb').read()
        for _ in range(12):
            c = rng.randrange(1, len(data))
            with open(cut_path, 'wb') as f:
                f.write(data[:c])
            outs = [tuple(run([mode, cut_path], hold) for mode in ('info', 'sample')) for hold in (False, True)]
            tried += 1
            if outs[0] == outs[1]:
                same += 1
            else:
                print(f'# {os.path.basename(src)} cut at {c}: differs')
    check(f'{tried} cut copies: streamed == held', same == tried, f'{tried - same} differ')

    # 60 MB in one profile: spooled to a temporary file past 8 MiB.
    big = os.path.join(tmp, 'big.json')
    gen(big, 60, 'sampled', 1)
    size = os.path.getsize(big)
    code_s, out_s, rss_s = run_rss(['info', '--no-cache', big])
    code_h, out_h, rss_h = run_rss(['info', '--no-cache', big], hold=True)
    check('60 MB sampled profile: exit 0 both ways', code_s == 0 and code_h == 0, f'{code_s} {code_h}')
    check('60 MB sampled profile: the same info both ways', out_s == out_h)
    if not SANITIZED:
        check(f'60 MB sampled profile: streamed peak RSS {rss_s / MIB:.1f} MiB within 48 MiB', rss_s <= 48 * MIB)
        check(f'60 MB sampled profile: held, {rss_h / MIB:.1f} MiB, more than the file ({size / MIB:.0f} MiB)',
              rss_h > size)
    # The samples kept, with their stacks and times, tell a sample read
    # back twice or lost (info alone would not).
    sampled = run(['sample', big])
    check('60 MB sampled profile: the same samples both ways', sampled == run(['sample', big], hold=True))
    # No temporary file can be made: the spool stays in memory, the result the same.
    check('60 MB sampled profile, TMPDIR missing: the same samples',
          run(['sample', big], env_extra={'TMPDIR': os.path.join(tmp, 'no-such-dir')}) == sampled)
    # The disk fills up after the first 4 MiB block: that block is read back
    # from the file, the rest from memory.
    check('60 MB sampled profile, the temporary file full at 6 MiB: the same samples',
          run(['sample', big], file_limit=6 * MIB) == sampled)
    leftovers = [f for f in os.listdir(tempfile.gettempdir()) if f.startswith('timeslice-samples-')]
    check('no temporary file is left behind', not leftovers, leftovers)

    if failures:
        print(f'{len(failures)} failed')
        sys.exit(1)


if __name__ == '__main__':
    try:
        main()
    finally:
        subprocess.run(['rm', '-rf', tmp])
