#!/usr/bin/python3
# window-compare.py: time from releasing a drag that selects range B to the
# compare table on screen, in the window, as a user does it
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run inside an X server with xdotool (bench/run has one):
#
#   dbus-run-session -- xvfb-run -a -s '-screen 0 1600x1000x24' \
#     bench/window-compare.py [--runs 3] [--width 1] _build-bench/app/timeslice FILE
#
# Launches the app on FILE with G_MESSAGES_DEBUG set, waits until the window
# logs that the file is loaded (the first open of a file reads it whole; a
# second one comes from the cache), drags range A over --width % of the
# timeline at 10 %, then for each run Shift+drags range B at another place.
# Two figures per run: the window's own (from the release's ranges-changed
# to the table filled, logged by the compare panel) and the outside one (from
# xdotool's button release to that log line reaching this script, which adds
# the event's delivery). Prints one JSON object.

import argparse
import json
import os
import re
import select
import subprocess
import sys
import time

LOADED = re.compile(r"loaded: (\d+) events")
COMPARED = re.compile(r"compare: (\d+) rows, ([0-9.]+) ms")
DRAWN = re.compile(r"compare: the first rows drawn, ([0-9.]+) ms")


def xdo(*args):
    subprocess.run(["xdotool", *map(str, args)], check=True)


def window_geometry():
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", "timeslice",
                          "getwindowgeometry", "--shell", "%@"],
                         capture_output=True, text=True).stdout
    best = None
    for block in out.split("WINDOW=")[1:]:
        g = dict(line.split("=", 1) for line in ("WINDOW=" + block).split() if "=" in line)
        w, h = int(g["WIDTH"]), int(g["HEIGHT"])
        if best is None or w * h > best[2] * best[3]:
            best = (int(g["X"]), int(g["Y"]), w, h)
    return best


class Log:
    """The app's stderr, read line by line without blocking."""

    def __init__(self, stream):
        self.stream = stream
        self.buf = b""

    def wait_for(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                m = pattern.search(line.decode("utf-8", "replace"))
                if m:
                    return m, time.monotonic()
            left = deadline - time.monotonic()
            if left <= 0:
                return None, time.monotonic()
            ready, _, _ = select.select([self.stream], [], [], left)
            if ready:
                chunk = os.read(self.stream.fileno(), 65536)
                if not chunk:
                    return None, time.monotonic()
                self.buf += chunk
                if os.environ.get("WC_LOG"):
                    with open(os.environ["WC_LOG"], "ab") as f:
                        f.write(chunk)


def drag(x0, x1, y, shift=False):
    xdo("mousemove", x0, y)
    time.sleep(0.2)
    if shift:
        xdo("keydown", "shift")
    xdo("mousedown", 1)
    steps = 8
    for i in range(1, steps + 1):
        xdo("mousemove", int(x0 + (x1 - x0) * i / steps), y)
        time.sleep(0.03)
    xdo("mouseup", 1)
    released = time.monotonic()
    if shift:
        xdo("keyup", "shift")
    return released


def main():
    ap = argparse.ArgumentParser(description="time from selecting B to the compare table, in the window")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--width", type=float, default=1.0, help="range width, % of the timeline")
    ap.add_argument("--load-timeout", type=float, default=600)
    ap.add_argument("exe")
    ap.add_argument("file")
    args = ap.parse_args()

    env = dict(os.environ, G_MESSAGES_DEBUG=os.environ.get("WC_DEBUG", "tsl-window tsl-compare-panel"))
    started = time.monotonic()
    app = subprocess.Popen([args.exe, args.file], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)  # GLib logs debug to stdout
    log = Log(app.stdout)
    result = {"file": args.file, "width_percent": args.width, "runs": []}
    try:
        m, t = log.wait_for(LOADED, args.load_timeout)
        if m is None:
            sys.exit("window-compare: the window did not log a finished load")
        result["load_s"] = round(t - started, 3)
        result["events"] = int(m.group(1))
        time.sleep(1.0)  # the last redraw
        perf = None
        if os.environ.get("WC_PERF"):  # profile the selections: perf record into this file
            perf = subprocess.Popen(["perf", "record", "-F", "499"] + os.environ.get("WC_PERF_ARGS", "-g").split() + ["-p", str(app.pid),
                                     "-o", os.environ["WC_PERF"]],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        x, y, w, h = window_geometry()
        # The timeline's plot: right of the 205 px label column, left of the
        # scrollbar; the first track lies about 230 px below the window's top.
        plot0, plot1 = x + 215, x + w - 40
        row = y + 250

        def at(percent):
            return int(plot0 + (plot1 - plot0) * percent / 100.0)

        drag(at(10), at(10 + args.width), row)
        time.sleep(2.0)  # A's summary
        for i in range(args.runs):
            start = 90 - 15 * i
            released = drag(at(start), at(start + args.width), row, shift=True)
            m, t = log.wait_for(COMPARED, 120)
            if m is None:
                sys.exit("window-compare: no compare result within 120 s")
            run = {"b_percent": start, "rows": int(m.group(1)), "window_ms": float(m.group(2)),
                   "outside_ms": round((t - released) * 1000, 1)}
            # A table of more than a screen is drawn in two steps: the
            # window logs when its first rows were painted.
            d, td = log.wait_for(DRAWN, 2)
            if d is not None:
                run["drawn_ms"] = float(d.group(1))
                run["drawn_outside_ms"] = round((td - released) * 1000, 1)
            result["runs"].append(run)
            if os.environ.get("WC_SHOT"):  # WC_SHOT=PREFIX: the screen at the result and 1 s later
                subprocess.run(["import", "-window", "root", "%s-%d-first.png" % (os.environ["WC_SHOT"], start)])
            time.sleep(1.0)
            if os.environ.get("WC_SHOT"):
                subprocess.run(["import", "-window", "root", "%s-%d-later.png" % (os.environ["WC_SHOT"], start)])
        if perf is not None:
            perf.send_signal(2)
            perf.wait(30)
    finally:
        app.terminate()
        app.wait(10)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
