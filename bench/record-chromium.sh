#!/bin/sh
# bench/record-chromium.sh: a fresh Chromium startup trace, as issue 32 tried
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench/record-chromium.sh OUT [json|proto] [SECONDS] [URL] [CATEGORIES]
# Records Debian's chromium, headless, with every category for SECONDS
# (default 4) from its start: real traces are deep (30+ levels on
# CrBrowserMain), hold spans that never close and thousands of flows. The
# browser does not exit by itself on about:blank, so it is stopped after
# the trace is written. CATEGORIES (default '*') picks what is recorded, e.g.
# 'disabled-by-default-v8.cpu_profiler,v8.execute' for V8's CPU profile of a page's scripts
# (tests/data/chrome/chromium-v8-profile.json).
set -eu
out=${1:?usage: $0 OUT [json|proto] [SECONDS] [URL] [CATEGORIES]}
format=${2:-json}
seconds=${3:-4}
url=${4:-about:blank}
categories=${5:-*}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

timeout $((seconds + 20)) chromium --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --trace-startup="$categories" --trace-startup-format="$format" \
  --trace-startup-file="$out" --trace-startup-duration="$seconds" "$url" >/dev/null 2>&1 || true
test -s "$out" || { echo "$0: chromium wrote no trace to $out" >&2; exit 1; }
echo "$out: $(wc -c < "$out") bytes"
