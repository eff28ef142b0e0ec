#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs one fuzz harness built by tests/fuzz/build.sh, seeding a corpus from
# tests/data/, ../shared/corpus/ (copied, at most 64 KiB of each file; nothing
# is written into the source tree) and every regression of the harness.
#
#   tests/fuzz/run.sh HARNESS SECONDS [OUT_DIR [LIBFUZZER_FLAG...]]
#   tests/fuzz/run.sh HARNESS runs=N [OUT_DIR [LIBFUZZER_FLAG...]]
#
# SECONDS: an open-ended search that keeps its corpus in OUT_DIR between
# runs, with a random seed. runs=N: CI's fixed step, the same inputs each
# time, so a landing never fails on a new random finding; only a change of
# the code under test changes what is tried. It searches from a fresh corpus
# with -seed=$TSL_FUZZ_SEED (default 1) and -runs=N, the harness reading on
# one thread only (TSL_FUZZ_ONE_THREAD: coverage that depends on how threads
# were scheduled would steer the search elsewhere each time), then runs every
# input it kept once more with every check, threads included.
#
# HARNESS is chrome-json, speedscope, perf-script, collapsed, csv, perfetto-proto, cpuprofile, pprof,
# gecko, driver or state.
# Crashes land in OUT_DIR/artifacts-HARNESS/; keep each one as a regression in
# tests/fuzz/regressions/HARNESS/ (replayed by the unit suite). Exit status is
# the fuzzer's: 0 when nothing was found.
set -euo pipefail

cd "$(dirname "$0")/../.."
HARNESS=$1
SECONDS_=$2
OUT=${3:-_build-fuzz}
shift $(( $# < 3 ? $# : 3 ))
CORPUS_DIR=${TSL_CORPUS_DIR:-../shared/corpus}
BIN="$OUT/fuzz-$HARNESS"
[ -x "$BIN" ] || { echo "run.sh: $BIN not built (tests/fuzz/build.sh $OUT)" >&2; exit 1; }

if [[ $SECONDS_ == runs=* ]]; then
  corpus="$OUT/corpus-fixed-$HARNESS"
  rm -rf "$corpus"
  LIMIT=(-seed="${TSL_FUZZ_SEED:-1}" -runs="${SECONDS_#runs=}")
else
  corpus="$OUT/corpus-$HARNESS"
  LIMIT=(-max_total_time="$SECONDS_")
fi
artifacts="$OUT/artifacts-$HARNESS"
mkdir -p "$corpus" "$artifacts"

seed () {
  # seed PREFIX_BYTE_OR_EMPTY FILE...
  local prefix=$1; shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    local name
    name="$corpus/seed-${prefix:-raw}-$(basename "$f")"
    [ -f "$name" ] && continue
    { [ -n "$prefix" ] && printf "\\x$prefix"; head -c 65536 "$f"; } > "$name"
  done
}

shopt -s nullglob
case "$HARNESS" in
  chrome-json) seed "" tests/data/chrome/* "$CORPUS_DIR"/chrome-json/* ;;
  speedscope)  seed "" tests/data/speedscope/* "$CORPUS_DIR"/speedscope/* ;;
  perf-script) seed "" tests/data/perf-* "$CORPUS_DIR"/perf-script/* ;;
  collapsed)   seed "" tests/data/collapsed* "$CORPUS_DIR"/collapsed/* ;;
  csv)         seed "" tests/data/metrics* "$CORPUS_DIR"/csv-metrics/* ;;
  cpuprofile)  seed "" tests/data/cpuprofile/*.cpuprofile "$CORPUS_DIR"/cpuprofile/* ;;
  pprof)
    # The Go recordings, inflated (the harness reads the reader's input).
    for f in tests/data/pprof/*.pprof; do
      gzip -d -c "$f" | head -c 65536 > "$corpus/seed-raw-$(basename "$f")" || true
    done ;;
  # The recording is larger than a seed's 64 KiB: the hand-made regressions seed it.
  gecko)       seed "" "$CORPUS_DIR"/gecko/* ;;
  perfetto-proto)
    seed "" tests/data/perfetto/*.pftrace
    # The recorded Chromium trace, decompressed: its first 64 KiB.
    for f in tests/data/perfetto/*.pftrace.zst; do
      zstd -q -d -c "$f" | head -c 65536 > "$corpus/seed-raw-$(basename "${f%.zst}")" || true
    done ;;
  driver)
    # The first byte picks the transform (see fuzz-reader.c): 00 none, 01 gzip,
    # 02 damaged gzip, 03/04 UTF-16LE/BE, 05 UTF-8 BOM, 06/86 UTF-16LE/BE without a BOM,
    # 07 zstd, 47/c7 zstd with a byte flipped / truncated.
    all=(tests/data/*.* tests/data/chrome/* tests/data/speedscope/* tests/data/cpuprofile/*.cpuprofile
         tests/data/pprof/*.pprof tests/fuzz/regressions/gecko/hand-valid-subprocess.json)
    seed 00 "${all[@]}"
    seed 01 "${all[@]}"
    seed 02 tests/data/chrome/array-basic.json tests/data/perf-callchain.txt
    seed 03 tests/data/collapsed.txt tests/data/metrics.tsv tests/data/chrome/async.json
    seed 04 tests/data/perf-callchain.txt tests/data/speedscope/two-profiles.speedscope.json
    seed 05 tests/data/metrics-quoted.csv tests/data/chrome/object-form.json
    seed 06 tests/data/metrics-quoted.csv tests/data/collapsed.txt
    seed 86 tests/data/perf-callchain.txt
    seed 07 tests/data/perfetto/*.pftrace tests/data/metrics-wide.csv
    seed 47 tests/data/perfetto/*.pftrace
    seed c7 tests/data/collapsed.txt
    ;;
  state)
    # The first byte: 00 the file as it is, 01 its body in a fresh header and checksum.
    seed 00 tests/data/state/*.tss
    for f in tests/data/state/*.tss; do
      { printf '\x01'; tail -c +25 "$f" | head -c -32; } > "$corpus/seed-body-$(basename "$f")"
    done ;;
  *) echo "run.sh: unknown harness $HARNESS" >&2; exit 2 ;;
esac
for f in tests/fuzz/regressions/"$HARNESS"/*; do cp -n "$f" "$corpus/"; done

export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
FLAGS=(-max_len=65536 -timeout=20 -rss_limit_mb=2560 -artifact_prefix="$artifacts/")
if [[ $SECONDS_ != runs=* ]]; then
  exec "$BIN" "${LIMIT[@]}" "${FLAGS[@]}" -print_final_stats=1 "$@" "$corpus"
fi
TSL_FUZZ_ONE_THREAD=1 "$BIN" "${LIMIT[@]}" -use_counters=0 -reduce_inputs=0 "${FLAGS[@]}" -print_final_stats=1 "$@" "$corpus"
echo "run.sh: every kept input again, with every thread: $(find "$corpus" -type f | wc -l) inputs"
exec "$BIN" -runs=0 "${FLAGS[@]}" "$@" "$corpus"
