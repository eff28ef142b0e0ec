#!/usr/bin/env python3
# bench-busy.py: the default read against one thread, with a core kept busy
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-busy.py [--exe TIMESLICE] [--baseline-exe OLD] [--mb 300] [--runs 3]
#                       [--formats csv,chrome,perfetto] [--codecs zst,gz] [--busy-core 1] [--dir DIR]
#
# For a CSV (bench/gen-csv.py), a Chrome JSON (bench/gen-chrome.py) and a
# Perfetto (bench/gen-perfetto.py) file of MB megabytes, and each of them
# compressed with `zstd -3` and `gzip -6` (--codecs, "none" for neither), times
# `timeslice info --no-cache FILE` with the default threads (every online
# core, governed: tsl-scan-governor.h) and with TSL_READER_THREADS=1,
# interleaved, twice: while another process spins on one core (a
# `nice -n 0` shell loop pinned with `taskset` to --busy-core), and on
# idle cores. With --baseline-exe another build's default read is timed
# beside (main's, say, to see what the governor changed). Prints one table:
# per input, the medians of wall and CPU time and the ratios the targets
# are about: busy, default over one thread (target <= 1.05); idle, one
# thread over default (the gain kept, CSV 1.55x before). About 2 minutes at
# 300 MB on 2 cores for the plain files, plus the inputs' generation, and
# as much again for each codec.

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(argv, env):
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s exited with %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_utime + ru.ru_stime


def generate(kind, mb, tmp):
    gen = os.path.join(ROOT, "bench")
    if kind == "perfetto":
        path = os.path.join(tmp, "bench.pftrace")
        subprocess.run([sys.executable, os.path.join(gen, "gen-perfetto.py"), "--mb", str(mb), "--seed", "1",
                        path], stdout=subprocess.DEVNULL, check=True)
        return path
    path = os.path.join(tmp, "bench.csv" if kind == "csv" else "bench.json")
    argv = ([os.path.join(gen, "gen-csv.py"), str(mb)] if kind == "csv"
            else [os.path.join(gen, "gen-chrome.py"), "--mb", str(mb), "--seed", "1"])
    with open(path, "wb") as f:
        subprocess.run([sys.executable] + argv, stdout=f, check=True)
    return path


def spinner(core):
    """A process that keeps `core` busy at the default priority."""
    return subprocess.Popen(["taskset", "-c", str(core), "nice", "-n", "0", "sh", "-c", "while :; do :; done"],
                            start_new_session=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exe", default=os.path.join(ROOT, "_build-bench", "app", "timeslice"))
    parser.add_argument("--baseline-exe", help="another build's timeslice, its default read timed beside")
    parser.add_argument("--mb", type=float, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", default="csv,chrome,perfetto")
    parser.add_argument("--codecs", default="zst,gz", help="compressed copies also timed, or none")
    parser.add_argument("--busy-core", type=int, default=1)
    parser.add_argument("--dir", help="where the inputs go (default: a temporary directory)")
    args = parser.parse_args()

    base = dict(os.environ, TSL_CACHE_MAX_BYTES="0")
    base.pop("TSL_READER_THREADS", None)
    base.pop("TSL_READER_ADAPT", None)
    one = dict(base, TSL_READER_THREADS="1")
    tmp = args.dir or tempfile.mkdtemp(prefix="timeslice-bench-busy-")
    load_before = os.getloadavg()
    rows = []
    names = {"csv": "CSV", "chrome": "Chrome JSON", "perfetto": "Perfetto"}
    codecs = [] if args.codecs == "none" else args.codecs.split(",")
    inputs = []
    for kind in args.formats.split(","):
        plain = generate(kind, args.mb, tmp)
        inputs.append((names[kind], plain))
        for codec in codecs:
            if codec == "zst":
                subprocess.run(["zstd", "-q", "-f", "-3", plain, "-o", plain + ".zst"], check=True)
            else:
                with open(plain + ".gz", "wb") as f:
                    subprocess.run(["gzip", "-6", "-c", plain], stdout=f, check=True)
            inputs.append((names[kind] + " ." + codec, plain + "." + codec))
    for name, path in inputs:
        configs = [("default", [args.exe, "info", "--no-cache", path], base),
                   ("one thread", [args.exe, "info", "--no-cache", path], one)]
        if args.baseline_exe:
            configs.append(("baseline default", [args.baseline_exe, "info", "--no-cache", path], base))
        for _, argv, env in configs:   # warm the page cache
            measure(argv, env)
        result = {}
        for busy in (True, False):
            spin = spinner(args.busy_core) if busy else None
            try:
                time.sleep(0.2 if busy else 0)
                runs = {label: [] for label, _, _ in configs}
                for _ in range(args.runs):
                    for label, argv, env in configs:
                        runs[label].append(measure(argv, env))
            finally:
                if spin is not None:
                    os.killpg(spin.pid, signal.SIGTERM)
                    spin.wait()
            for label, r in runs.items():
                result[(busy, label)] = (statistics.median(x[0] for x in r), statistics.median(x[1] for x in r))
        rows.append((name, result))
    for _, path in inputs:
        os.unlink(path)
    load_after = os.getloadavg()

    print("bench-busy: %g MB inputs, medians of %d interleaved runs; core %d kept busy by a spinning "
          "shell for the busy columns; load average %.2f before, %.2f after (the spinner's included); "
          "%d online cores." % (args.mb, args.runs, args.busy_core, load_before[0], load_after[0],
                                os.cpu_count()))
    print()
    head = ("| input | busy: default s | busy: one thread s | **busy: default / one (≤ 1.05)** "
            "| idle: default s | idle: one thread s | **idle: one / default** | CPU s busy default / one |")
    sep = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if args.baseline_exe:
        head += " baseline default busy / idle s |"
        sep += "---:|"
    print(head)
    print(sep)
    for name, r in rows:
        bd, bo = r[(True, "default")], r[(True, "one thread")]
        idd, io = r[(False, "default")], r[(False, "one thread")]
        line = ("| %s | %.2f | %.2f | **%.2f** | %.2f | %.2f | **%.2f** | %.2f / %.2f |"
                % (name, bd[0], bo[0], bd[0] / bo[0], idd[0], io[0], io[0] / idd[0], bd[1], bo[1]))
        if args.baseline_exe:
            line += " %.2f / %.2f |" % (r[(True, "baseline default")][0], r[(False, "baseline default")][0])
        print(line)
    if not args.dir:
        os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
