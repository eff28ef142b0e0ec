#!/usr/bin/env python3
# bench-threads.py: ingest on 1..4 threads against the two-thread reader
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-threads.py [--exe TIMESLICE] [--baseline-exe OLD] [--format chrome|csv|perf|speedscope|collapsed|perfetto]
#                          [--file F | --mb 1000] [--runs 3]
#
# Times `timeslice info --no-cache FILE` (a regular file) and
# `cat FILE | timeslice info --no-cache -` (a pipe) with TSL_READER_THREADS
# = 1, 2, 3, 4, unset (the default: every online core) and "pipe" (the
# two-thread tokenize/model reader that was the default for files before
# and still is for pipes), optionally also with another build's binary
# (--baseline-exe, e.g. main's, unset). Runs are interleaved; wall and CPU
# (user + sys) are medians, peak RSS the largest (GNU time's %M of
# timeslice itself). The trace is bench/gen-chrome.py --mb MB --seed 1 in
# /tmp unless --file is given; the page cache is warmed first. Prints one
# Markdown table per input kind with ratios to the "pipe" row of the same
# run, and the load average before and after.

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(argv, env, stdin_file=None):
    fd, stats = tempfile.mkstemp(prefix="timeslice-bench-threads-")
    os.close(fd)
    timed = ["/usr/bin/time", "-f", "%M", "-o", stats] + argv
    try:
        t0 = time.perf_counter()
        cat = None
        if stdin_file is not None:
            cat = subprocess.Popen(["cat", stdin_file], stdout=subprocess.PIPE)
            proc = subprocess.Popen(timed, stdin=cat.stdout, stdout=subprocess.DEVNULL, env=env)
            cat.stdout.close()
        else:
            proc = subprocess.Popen(timed, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(proc.pid, 0)
        if cat is not None:
            cat.wait()
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("%s exited with %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
        with open(stats) as f:
            rss_kb = int(f.read().split()[-1])
        return wall, ru.ru_utime + ru.ru_stime, rss_kb / 1024.0
    finally:
        os.unlink(stats)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exe", default=os.path.join(ROOT, "_build-bench", "app", "timeslice"))
    parser.add_argument("--baseline-exe", help="another build's timeslice, run with its defaults")
    parser.add_argument("--format", choices=("chrome", "csv", "perf", "speedscope", "collapsed", "perfetto"), default="chrome",
                        help="what to generate when --file is not given")
    parser.add_argument("--file", help="an existing trace (default: generate one in /tmp)")
    parser.add_argument("--mb", type=float, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pipe", action="store_true", help="only the regular file")
    args = parser.parse_args()

    path = args.file
    made = False
    generators = {
        "chrome": (".json", ["gen-chrome.py", "--mb", str(args.mb), "--seed", "1"]),
        "csv": (".csv", ["gen-csv.py", str(args.mb)]),
        "perf": (".perf.txt", ["gen-perf.py", str(args.mb)]),
        "speedscope": (".speedscope.json", ["gen-speedscope.py", str(args.mb)]),
        "collapsed": (".folded", ["gen-collapsed.py", str(args.mb)]),
        "perfetto": (".pftrace", ["gen-perfetto.py", "--mb", str(args.mb), "--seed", "1"]),
    }
    suffix, generator = generators[args.format]
    if path is None:
        path = "/tmp/timeslice-bench-threads-%g%s" % (args.mb, suffix)
        if not os.path.exists(path):
            with open(path + ".part", "wb") as f:
                # gen-perfetto.py writes to the path it is given.
                out = [path + ".part"] if args.format == "perfetto" else []
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", generator[0])] + generator[1:] + out,
                               stdout=None if out else f, check=True)
            os.rename(path + ".part", path)
            made = True
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)

    pipe_label = ("two-thread reader (before; TSL_READER_THREADS=pipe)" if args.format == "chrome"
                  else "pipe (one thread for this format)")
    configs = [("pipe", pipe_label, args.exe, "pipe")]
    if args.baseline_exe:
        configs.append(("baseline", "baseline build, its default", args.baseline_exe, None))
    configs += [(str(n), "%d thread%s" % (n, "s" if n > 1 else ""), args.exe, str(n)) for n in (1, 2, 3, 4)]
    configs.append(("default", "default (%d online cores)" % os.cpu_count(), args.exe, None))

    load_before = os.getloadavg()
    kinds = [("file", None)] + ([] if args.no_pipe else [("pipe", path)])
    results = {(kind, c[0]): [] for kind, _ in kinds for c in configs}
    for _ in range(args.runs):
        for kind, stdin_file in kinds:
            for key, _, exe, threads in configs:
                env = dict(os.environ)
                env.pop("TSL_READER_THREADS", None)
                env.pop("TSL_READER_SPLIT_SEED", None)
                if threads is not None:
                    env["TSL_READER_THREADS"] = threads
                argv = [exe, "info", "--no-cache", "-" if stdin_file else path]
                results[(kind, key)].append(measure(argv, env, stdin_file))
    load_after = os.getloadavg()

    size = os.path.getsize(path) / 1e6
    base_key = "pipe" if args.format == "chrome" else "1"
    print("Ingest of %s (%.0f MB, %s) by `timeslice info --no-cache`; medians of %d "
          "interleaved runs; load average %.2f before, %.2f after; %d online cores."
          % (os.path.basename(path), size, " ".join(generator) if args.file is None else "given",
             args.runs, load_before[0], load_after[0], os.cpu_count()))
    for kind, _ in kinds:
        base = statistics.median(r[0] for r in results[(kind, base_key)])
        print()
        print("%s:" % ("Regular file" if kind == "file" else "Pipe (`cat FILE | timeslice info -`)"))
        print()
        print("| TSL_READER_THREADS | wall s | vs %s | MB/s | CPU s | peak RSS MiB |"
              % ("two-thread reader" if base_key == "pipe" else "one thread"))
        print("|---|---:|---:|---:|---:|---:|")
        for key, label, _, _ in configs:
            runs = results[(kind, key)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = max(r[2] for r in runs)
            print("| %s | %.2f | %.2f | %.0f | %.2f | %.1f |" % (label, wall, wall / base, size / wall, cpu, rss))
    if made and args.file is None and os.environ.get("KEEP") is None:
        os.unlink(path)


if __name__ == "__main__":
    main()
