#!/usr/bin/python3
# bench/proto-instructions.py: Perfetto ingest in instructions, beside the floor's state rung
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   nice bench/proto-instructions.py --exe _build-bench/app/timeslice \
#       --floor _build-bench/bench/bench-proto-floor [--mb 10,100] [--chromium TRACE] [--old EXE]
#
# For the synthetic trace and the Chromium recording repeated (made by
# bench/gen-perfetto.py in a temporary directory, MB each): instructions
# under callgrind of bench-proto-floor's state rung (--only "state mmap"),
# of `timeslice info --no-cache` on one thread (TSL_READER_THREADS=1), and
# on two (--separate-threads=yes: the modelling thread, less the segments it
# decoded itself while waiting, which bounds what a second core can gain,
# and both threads together); with --old, the same
# for another build. Per TracePacket and as ratios to the state rung and to
# the one-thread read. Instruction counts do not depend on the load, so
# this runs on a busy machine; it takes a few minutes per 100 MB.

import argparse
import glob
import mmap
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable or "/usr/bin/python3"


def packets(path):
    """TracePackets (or any top-level fields) in the file."""
    n = 0
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as d:
        i, end = 0, len(d)
        while i < end:
            key = d[i]
            i += 1
            length = shift = 0
            while True:
                b = d[i]
                i += 1
                length |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
            i += length if key & 7 == 2 else 0
            n += 1
    return n


def scanned(out):
    """Instructions of the segments a thread decoded itself (scan_segment)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], capture_output=True,
                          text=True).stdout
    m = re.search(r"^\s*([\d,]+) .*:scan_segment ", text, re.M)
    return int(m.group(1).replace(",", "")) if m else 0


def callgrind(argv, env=None, threads=False):
    """Instructions: the total, or per thread (the first is the main one,
    less the segments it decoded itself while waiting: that share depends
    on how the threads were scheduled)."""
    with tempfile.TemporaryDirectory(prefix="tsl-cg-") as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
        if threads:
            cmd.append("--separate-threads=yes")
        subprocess.run(cmd + argv, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        counts, names = [], []
        for name in sorted(glob.glob(out + "*")):
            with open(name) as f:
                m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
            if m:  # a thread that ran nothing has no total
                counts.append(int(m.group(1)))
                names.append(name)
        if threads:
            counts.append(counts[0] - scanned(names[0]))
        return counts


def measure(exe, path):
    env1 = dict(os.environ, TSL_READER_THREADS="1")
    env2 = dict(os.environ, TSL_READER_THREADS="2")
    argv = [exe, "info", "--no-cache", path]
    one = callgrind(argv, env1)[0]
    two = callgrind(argv, env2, threads=True)
    return one, two[-1], sum(two[:-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--floor", required=True, help="bench-proto-floor")
    ap.add_argument("--old", help="another timeslice build, measured the same way")
    ap.add_argument("--mb", default="10")
    ap.add_argument("--chromium", help="a Chromium proto recording (default: the one in tests/data)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="tsl-proto-instr-") as tmp:
        source = args.chromium or os.path.join(ROOT, "tests", "data", "perfetto",
                                               "chromium-startup.pftrace.zst")
        if source.endswith(".zst"):
            plain = os.path.join(tmp, "chromium-source.pftrace")
            with open(plain, "wb") as f:
                subprocess.run(["zstd", "-q", "-d", "-c", source], stdout=f, check=True)
            source = plain
        print("| input | MB | packets | state rung | timeslice, 1 thread | × state | "
              "2 threads: modelling thread | × 1 thread | both threads | build |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for mb in args.mb.split(","):
            for kind in ("synthetic", "chromium"):
                path = os.path.join(tmp, "%s-%s.pftrace" % (kind, mb))
                gen = [PY, os.path.join(ROOT, "bench", "gen-perfetto.py"), "--mb", mb]
                gen += ["--seed", "1"] if kind == "synthetic" else ["--repeat", source]
                subprocess.run(gen + [path], check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                n = packets(path)
                state = callgrind([args.floor, "--only", "state mmap", path])[0]
                builds = [("new", args.exe)] + ([("old", args.old)] if args.old else [])
                for label, exe in builds:
                    one, main_thread, both = measure(exe, path)
                    print("| %s | %s | %d | %.0f | %.0f | %.2f | %.0f | %.2f | %.0f | %s |"
                          % (kind, mb, n, state / n, one / n, one / state, main_thread / n,
                             main_thread / one, both / n, label), flush=True)
                os.unlink(path)


if __name__ == "__main__":
    main()
