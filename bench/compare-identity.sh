#!/bin/bash
# bench/compare-identity.sh: does a faster build print the same compare output?
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   bench/compare-identity.sh BEFORE AFTER [BIG_TRACE]
#
# Runs `timeslice compare` of both builds (say main's and a branch's) on
# every corpus file (two range pairs and --rounds values, -v, --stat count,
# the one-range summary) and on BIG_TRACE if given (four range pairs with
# --rounds 1, 5 and 20, -v, the summary), each build with its own index
# cache, and diffs the CSV, standard output and standard error byte for
# byte. Exit status 1 when anything differs.

set -u
before=$1 after=$2 big=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/../shared/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_all () {
  local bin=$1 out=$2 f b
  mkdir -p "$out"
  export XDG_CACHE_HOME=$out.cache
  for f in "$corpus"/*/*; do
    case "$f" in *.md | *.py | *.json.facts) continue ;; esac
    [ -f "$f" ] || continue
    b=$(basename "$f")
    "$bin" compare --rounds 1 --a 10%..40% --b 50%..90% -o "$out/$b.1.csv" "$f" > "$out/$b.1.out" 2>&1
    echo "rc $?" >> "$out/$b.1.out"
    "$bin" compare --rounds 3 --a 0%..50% --b 50%..100% -o "$out/$b.3.csv" "$f" > "$out/$b.3.out" 2>&1
    echo "rc $?" >> "$out/$b.3.out"
    "$bin" compare --rounds 2 -v --stat count --a 0%..30% --b 60%..100% "$f" > "$out/$b.v" 2>&1
    echo "rc $?" >> "$out/$b.v"
    "$bin" compare --rounds 2 --a 5%..70% "$f" > "$out/$b.sum" 2>&1
    echo "rc $?" >> "$out/$b.sum"
  done
  if [ -n "$big" ]; then
    "$bin" info "$big" > /dev/null 2>&1   # records the index
    for r in "10%..11% 90%..91% 1" "45%..46% 60%..61% 1" "20%..21% 70%..72% 5" "10%..11% 90%..91% 20"; do
      set -- $r
      "$bin" compare --rounds "$3" --a "$1" --b "$2" -o "$out/big.$1.$3.csv" "$big" > "$out/big.$1.$3.out" 2>&1
      "$bin" compare --rounds "$3" -v --a "$1" --b "$2" "$big" > "$out/big.$1.$3.v" 2>&1
      "$bin" compare --rounds "$3" --a "$1" "$big" > "$out/big.$1.$3.sum" 2>&1
    done
  fi
}

run_all "$before" "$tmp/before"
run_all "$after" "$tmp/after"
n=$(ls "$tmp/before" | wc -l)
if diff -r "$tmp/before" "$tmp/after" > "$tmp/diff"; then
  echo "identical: $n outputs"
else
  head -50 "$tmp/diff"
  echo "DIFFERENT ($n outputs)"
  exit 1
fi
