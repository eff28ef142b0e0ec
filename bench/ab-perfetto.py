#!/usr/bin/python3
# bench/ab-perfetto.py: two timeslice builds on the same Perfetto inputs, interleaved
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/ab-perfetto.py --old OLD/timeslice --new NEW/timeslice [--runs 3] FILE...
#
# For each FILE (plain or .zst): `info --json` by the old build, by the new
# one on one thread (TSL_READER_THREADS=0) and by default, beside the read
# floor (`wc -l`, or `zstd -dc FILE > /dev/null` for .zst) — interleaved, so
# a busy machine weighs on every column alike. Wall and CPU (user + system)
# medians, MB of uncompressed input per second, peak RSS the largest. The
# builds must print the same `info --json`.

import argparse
import os
import statistics
import subprocess


def run(argv, threads=None):
    env = dict(os.environ)
    env.pop("TSL_READER_THREADS", None)
    if threads is not None:
        env["TSL_READER_THREADS"] = threads
    p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + argv, env=env,
                       capture_output=True, text=True, check=True)
    e, u, s, m = p.stderr.strip().split("\n")[-1].split()
    return float(e), float(u) + float(s), int(m) / 1024, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    cfg = [("old", args.old, None), ("new, 1 thread", args.new, "0"),
           ("new, eager", args.new, "eager")]
    res = {}
    for f in args.files:
        subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)
    load = open("/proc/loadavg").read().split()[:3]
    for _ in range(args.runs):
        for f in args.files:
            outs = set()
            for name, exe, threads in cfg:
                e, c, m, out = run([exe, "info", "--json", "--no-cache", f], threads)
                outs.add(out)
                res.setdefault((f, name), []).append((e, c, m))
            if len(outs) != 1:
                raise SystemExit("%s: the builds disagree" % f)
            floor = (["sh", "-c", 'exec zstd -q -d -c "$1" > /dev/null', "sh", f]
                     if f.endswith(".zst") else ["wc", "-l", f])
            res.setdefault((f, "floor"), []).append(run(floor)[:3])
    print("Load average %s at start, %s at end; medians of %d."
          % (" ".join(load), " ".join(open("/proc/loadavg").read().split()[:3]), args.runs))
    print("")
    print("| input | read by | wall s | CPU s | MB/s | MB per CPU-s | peak RSS MiB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (f, name), v in res.items():
        plain = f[:-4] if f.endswith(".zst") else f
        mb = (os.path.getsize(plain) if os.path.exists(plain) else os.path.getsize(f)) / 1e6
        e = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        m = max(x[2] for x in v)
        print("| %s | %s | %.3f | %.3f | %.0f | %.0f | %s |"
              % (os.path.basename(f), name if name != "floor" else
                 ("`zstd -dc`" if f.endswith(".zst") else "`wc -l`"),
                 e, c, mb / max(e, 1e-9), mb / max(c, 1e-9), "%.1f" % m if m else "—"))


if __name__ == "__main__":
    main()
