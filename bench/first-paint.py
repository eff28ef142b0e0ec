#!/usr/bin/python3
# first-paint.py: time from `timeslice FILE` to the first samples on screen
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run inside an X server (bench/run starts it under xvfb-run and
# dbus-run-session). Measured from outside, without any hook in the window
# code: launches the app, grabs the root window with XGetImage every
# --interval seconds and classifies each frame:
#
#   mapped   any non-black pixel (Xvfb's root is black; no window manager)
#   samples  the timeline shows samples: saturated pixels in at least
#            --min-hues distinct hue buckets (12 buckets of 30°), each
#            holding at least --min-pixels pixels of a 1-in-9 subsample. Flame-chart columns and
#            series lines use a 12-colour palette; the window chrome is grey
#            and the progress bar is a single blue, so one hue is not enough.
#   done     the first frame after which the screen no longer changes for
#            --settle seconds (loading finished, last redraw done)
#
# Times are from just before the app is launched to the end of the grab that
# first showed the state (an upper bound; the grab before it is the lower
# bound, printed as "resolution"). Prints one JSON object per run.
#
#   bench/first-paint.py --runs 3 _build-bench/app/timeslice trace.json

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time

import numpy as np

ZPIXMAP = 2
SUBSAMPLE = 3  # classify every 3rd pixel of every 3rd row
ALL_PLANES = ctypes.c_ulong(~0 & 0xFFFFFFFFFFFFFFFF)


class XImage(ctypes.Structure):
    _fields_ = [
        ("width", ctypes.c_int), ("height", ctypes.c_int),
        ("xoffset", ctypes.c_int), ("format", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
        ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
        ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int),
        ("bits_per_pixel", ctypes.c_int),
    ]


class Screen:
    def __init__(self):
        self.x = ctypes.CDLL("libX11.so.6")
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x.XDefaultRootWindow.restype = ctypes.c_ulong
        self.x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self.x.XDisplayWidth.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.x.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.x.XGetImage.restype = ctypes.POINTER(XImage)
        self.x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        self.x.XDestroyImage.argtypes = [ctypes.POINTER(XImage)]
        self.dpy = self.x.XOpenDisplay(None)
        if not self.dpy:
            sys.exit("first-paint.py: cannot open display %r" % os.environ.get("DISPLAY"))
        self.root = self.x.XDefaultRootWindow(self.dpy)
        self.w = self.x.XDisplayWidth(self.dpy, 0)
        self.h = self.x.XDisplayHeight(self.dpy, 0)

    def grab(self):
        """The screen's raw BGRX bytes."""
        img = self.x.XGetImage(self.dpy, self.root, 0, 0, self.w, self.h, ALL_PLANES, ZPIXMAP)
        if not img:
            raise RuntimeError("XGetImage failed")
        im = img.contents
        if im.bits_per_pixel != 32:
            raise RuntimeError("expected a 32-bit visual, got %d bpp" % im.bits_per_pixel)
        raw = ctypes.string_at(im.data, im.bytes_per_line * im.height)
        self.x.XDestroyImage(img)
        return raw

    def rgb(self, raw, step):
        """Every step-th pixel of every step-th row as an RGB array."""
        a = np.frombuffer(raw, dtype=np.uint8).reshape(self.h, -1, 4)[::step, :self.w:step, :]
        return a[:, :, 2::-1]  # BGRX → RGB


def classify(rgb, min_hues, min_pixels):
    sub = rgb.astype(np.int16)
    mapped = bool(sub.any())
    mx = sub.max(axis=2)
    mn = sub.min(axis=2)
    chroma = mx - mn
    sat = (mx >= 80) & (chroma * 100 >= 35 * np.maximum(mx, 1))
    if not sat.any():
        return mapped, 0
    r, g, b = (sub[:, :, i][sat].astype(np.float32) for i in range(3))
    c = chroma[sat].astype(np.float32)
    m = mx[sat]
    hue = np.where(m == sub[:, :, 0][sat], ((g - b) / c) % 6,
                   np.where(m == sub[:, :, 1][sat], (b - r) / c + 2, (r - g) / c + 4))
    buckets = np.bincount((hue * 2).astype(np.int64) % 12, minlength=12)
    return mapped, int((buckets >= min_pixels).sum())


def save_ppm(path, rgb):
    with open(path, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (rgb.shape[1], rgb.shape[0]))
        f.write(np.ascontiguousarray(rgb).tobytes())


def one_run(screen, argv, args):
    env = dict(os.environ)
    env.setdefault("GDK_BACKEND", "x11")
    env.setdefault("GSETTINGS_BACKEND", "memory")
    env.setdefault("NO_AT_BRIDGE", "1")
    env.setdefault("GTK_A11Y", "none")

    t0 = time.perf_counter()
    app = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mapped_s = samples_s = None
    samples_lo = None
    last_change = None
    last_frame = None
    prev_end = 0.0
    frames = 0
    try:
        while True:
            frame = screen.grab()
            t = time.perf_counter() - t0
            frames += 1
            if samples_s is None:
                mapped, hues = classify(screen.rgb(frame, SUBSAMPLE), args.min_hues, args.min_pixels)
                if mapped and mapped_s is None:
                    mapped_s = t
                if hues >= args.min_hues:
                    samples_s, samples_lo = t, prev_end
                    if args.save:
                        save_ppm(args.save, screen.rgb(frame, 1))
            if last_frame is None or frame != last_frame:
                last_change = t
                last_frame = frame
            elif samples_s is not None and t - last_change >= args.settle:
                break
            if t > args.timeout:
                break
            if app.poll() is not None:
                break
            prev_end = t
            time.sleep(args.interval)
    finally:
        app.terminate()
        try:
            app.wait(timeout=10)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()

    return {
        "mapped_s": mapped_s,
        "first_samples_s": samples_s,
        "first_samples_lower_s": samples_lo,
        "done_s": last_change if samples_s is not None else None,
        "frames": frames,
        "interval_s": args.interval,
        "screen": [screen.w, screen.h],
        "timed_out": samples_s is None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timeslice")
    parser.add_argument("file")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--interval", type=float, default=0.02, help="sleep between grabs (s)")
    parser.add_argument("--settle", type=float, default=1.5, help="unchanged this long = done (s)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--save", help="write the frame that first showed samples (PPM)")
    parser.add_argument("--min-hues", type=int, default=4)
    parser.add_argument("--min-pixels", type=int, default=60,
                        help="per hue bucket, counted on the 1-in-9 subsample")
    args = parser.parse_args()

    screen = Screen()
    for _ in range(args.runs):
        print(json.dumps(one_run(screen, [args.timeslice, args.file], args)), flush=True)


if __name__ == "__main__":
    main()
