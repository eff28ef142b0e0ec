#!/usr/bin/env python3
# perfetto-outputs.py: what timeslice makes of every Perfetto input we have
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   perfetto-outputs.py OUTDIR          writes OUTDIR/NAME.{info,sample,k}
#
# For comparing two builds (or two reader paths, TSL_READER_THREADS=1 and
# not) byte for byte: `diff -r A B`. The inputs are tests/data/perfetto, the
# fuzz regressions, every trace test-perfetto.py writes, and traces made by
# bench/gen-perfetto.py (synthetic, two seeds, and the Chromium trace
# repeated). TSL_TIMESLICE names the binary, as for the unit tests.

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
timeslice = os.environ.get('TSL_TIMESLICE', 'timeslice')


def unit_fixtures(into):
    """The traces test-perfetto.py encodes, each under its own name."""
    spec = importlib.util.spec_from_file_location('test_perfetto', os.path.join(HERE, 'test-perfetto.py'))
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, HERE)
    spec.loader.exec_module(mod)
    seen = {}
    write = mod.write

    def keep(name, content):
        seen[name] = seen.get(name, 0) + 1
        with open(os.path.join(into, 'unit-%d-%s' % (seen[name], name)), 'wb') as f:
            f.write(content)
        return write(name, content)

    mod.write = keep
    devnull = open(os.devnull, 'w')
    old = sys.stdout
    sys.stdout = devnull
    try:
        mod.main()
    finally:
        sys.stdout = old


def generated(into):
    gen = os.path.join(ROOT, 'bench', 'gen-perfetto.py')
    chromium = os.path.join(into, 'chromium-source.pftrace')
    with open(chromium, 'wb') as f:
        subprocess.run(['zstd', '-q', '-d', '-c',
                        os.path.join(ROOT, 'tests', 'data', 'perfetto', 'chromium-startup.pftrace.zst')],
                       stdout=f, check=True)
    for seed in (1, 7):
        subprocess.run([sys.executable, gen, '--mb', '3', '--seed', str(seed),
                        os.path.join(into, 'gen-synthetic-%d.pftrace' % seed)],
                       check=True, stderr=subprocess.DEVNULL)
    subprocess.run([sys.executable, gen, '--mb', '3', '--repeat', chromium,
                    os.path.join(into, 'gen-chromium.pftrace')], check=True, stderr=subprocess.DEVNULL)
    os.unlink(chromium)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='tsl-perfetto-outputs-')
    try:
        inputs = []
        for d in (os.path.join(ROOT, 'tests', 'data', 'perfetto'),
                  os.path.join(ROOT, 'tests', 'fuzz', 'regressions', 'perfetto-proto')):
            inputs += [os.path.join(d, n) for n in sorted(os.listdir(d))
                       if not n.endswith(('.md', '.html', '.json.gz'))]
        unit_fixtures(tmp)
        generated(tmp)
        inputs += [os.path.join(tmp, n) for n in sorted(os.listdir(tmp))]
        for path in inputs:
            name = os.path.basename(path)
            runs = {
                'info': ['info', '--json', '--no-cache', path],
                'sample': ['sample', '--no-cache', '--k', '100000', path],
                'k': ['sample', '--no-cache', '--k', '50', '--mode', 'time', path],
            }
            for ext, argv in runs.items():
                p = subprocess.run([timeslice, *argv], capture_output=True, timeout=120)
                with open(os.path.join(out, '%s.%s' % (name, ext)), 'wb') as f:
                    # The file's own path differs between runs: name it only.
                    f.write(p.stdout.replace(path.encode(), name.encode()))
                    f.write(b'\n--- stderr\n' + p.stderr.replace(path.encode(), name.encode()))
                    f.write(b'\n--- exit %d\n' % p.returncode)
        print('%d inputs' % len(inputs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
