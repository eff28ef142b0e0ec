#!/usr/bin/env python3
# bench-decompress.py: reading FILE.zst and FILE.gz against their two floors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/bench-decompress.py [--exe TIMESLICE] [--baseline-exe OLD] [--mb 300] [--runs 3]
#                             [--formats chrome,perfetto] [--no-gzip] [--dir DIR]
#
# For a Chrome JSON trace (bench/gen-chrome.py) and a Perfetto trace
# (bench/gen-perfetto.py) of MB megabytes, compressed with `zstd -3` and
# `gzip -6`, times, interleaved, with the default threads:
#   plain   `timeslice info --no-cache FILE`
#   zstd -dc `zstd -dc FILE.zst > /dev/null`  (and `zcat FILE.gz > /dev/null`)
#   .zst    `timeslice info --no-cache FILE.zst` (and FILE.gz)
# and, with --baseline-exe, the same reads by another build (main's, say).
# Prints per input the medians of wall and CPU (user + sys) time and the
# ratio the target is about: the compressed read over the larger of its
# two floors (plain read, decompressor alone), target <= 1.25 on 2 cores.
# The load average before and after is printed: figures from a busy
# machine are upper bounds. About 3 minutes at 300 MB on 2 cores.

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(argv, env=None, stdout=subprocess.DEVNULL):
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s exited with %d" % (" ".join(argv), os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_utime + ru.ru_stime


def generate(kind, mb, tmp):
    if kind == "chrome":
        path = os.path.join(tmp, "bench.json")
        with open(path, "wb") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen-chrome.py"), "--mb", str(mb),
                            "--seed", "1"], stdout=f, check=True)
    else:
        path = os.path.join(tmp, "bench.pftrace")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen-perfetto.py"), "--mb", str(mb),
                        "--seed", "1", path], stdout=subprocess.DEVNULL, check=True)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exe", default=os.path.join(ROOT, "_build-bench", "app", "timeslice"))
    parser.add_argument("--baseline-exe", help="another build's timeslice, also timed on each input")
    parser.add_argument("--mb", type=float, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", default="chrome,perfetto")
    parser.add_argument("--no-gzip", action="store_true", help="zstd only")
    parser.add_argument("--dir", help="where the inputs go (default: a temporary directory)")
    args = parser.parse_args()

    env = dict(os.environ, TSL_CACHE_MAX_BYTES="0")
    env.pop("TSL_READER_THREADS", None)
    tmp = args.dir or tempfile.mkdtemp(prefix="timeslice-bench-decompress-")
    load_before = os.getloadavg()
    tables = []
    for kind in args.formats.split(","):
        plain = generate(kind, args.mb, tmp)
        subprocess.run(["zstd", "-q", "-f", "-3", plain, "-o", plain + ".zst"], check=True)
        codecs = [("zstd", plain + ".zst", ["zstd", "-dc", plain + ".zst"])]
        if not args.no_gzip:
            with open(plain + ".gz", "wb") as f:
                subprocess.run(["gzip", "-6", "-c", plain], stdout=f, check=True)
            codecs.append(("gzip", plain + ".gz", ["zcat", plain + ".gz"]))

        configs = [("plain", [args.exe, "info", "--no-cache", plain])]
        if args.baseline_exe:
            configs.append(("plain, baseline", [args.baseline_exe, "info", "--no-cache", plain]))
        for codec, packed, floor in codecs:
            configs.append((codec + " -dc" if codec == "zstd" else "zcat", floor))
            configs.append(("." + ("zst" if codec == "zstd" else "gz"), [args.exe, "info", "--no-cache", packed]))
            if args.baseline_exe:
                configs.append(("." + ("zst" if codec == "zstd" else "gz") + ", baseline",
                                [args.baseline_exe, "info", "--no-cache", packed]))
        results = {label: [] for label, _ in configs}
        for argv in ([c[1] for c in configs]):   # warm the page cache
            measure(argv, env)
        for _ in range(args.runs):
            for label, argv in configs:
                results[label].append(measure(argv, env))
        tables.append((kind, configs, results))
        for name in os.listdir(tmp):
            if name.startswith("bench."):
                os.unlink(os.path.join(tmp, name))
    load_after = os.getloadavg()

    print("bench-decompress: %g MB inputs, medians of %d interleaved runs; load average %.2f before, "
          "%.2f after; %d online cores." % (args.mb, args.runs, load_before[0], load_after[0], os.cpu_count()))
    for kind, configs, results in tables:
        wall = {label: statistics.median(r[0] for r in runs) for label, runs in results.items()}
        cpu = {label: statistics.median(r[1] for r in runs) for label, runs in results.items()}
        print()
        print("%s:" % ("Chrome JSON" if kind == "chrome" else "Perfetto"))
        print()
        print("| read | wall s | CPU s | × plain | × decompressor | × the larger floor (target ≤ 1.25) |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, _ in configs:
            floor = None
            if label.startswith(".zst"):
                floor = wall["zstd -dc"]
            elif label.startswith(".gz"):
                floor = wall["zcat"]
            if floor is None:
                print("| %s | %.2f | %.2f | %.2f | | |" % (label, wall[label], cpu[label], wall[label] / wall["plain"]))
            else:
                print("| %s | %.2f | %.2f | %.2f | %.2f | **%.2f** |"
                      % (label, wall[label], cpu[label], wall[label] / wall["plain"], wall[label] / floor,
                         wall[label] / max(floor, wall["plain"])))
    if not args.dir:
        os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
