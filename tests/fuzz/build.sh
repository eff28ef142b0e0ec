#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds the libFuzzer harnesses with clang, without a second Meson
# configuration: the core sources listed in app/core/meson.build and
# tests/fuzz/fuzz-reader.c, once per reader plus the byte driver, and
# tests/fuzz/fuzz-state.c for the sampler state reader.
#
#   tests/fuzz/build.sh [OUT_DIR]        (default _build-fuzz)
#
# Produces OUT_DIR/fuzz-{chrome-json,speedscope,perf-script,collapsed,csv,perfetto-proto,cpuprofile,pprof,gecko,driver,state}.
# Run one with tests/fuzz/run.sh, or by hand:
#   _build-fuzz/fuzz-csv -max_total_time=600 CORPUS_DIR
set -euo pipefail

cd "$(dirname "$0")/../.."
SRC=$PWD
OUT=${1:-_build-fuzz}
CC=${CC_FUZZ:-clang}
mkdir -p "$OUT/obj"

# What core's config.h defines, as far as the core uses it.
cat > "$OUT/config.h.new" <<'H'
#pragma once
#define APP_ID "org.timeslice.Timeslice"
#define PACKAGE_NAME "timeslice"
#define PACKAGE_VERSION "fuzz"
#define GETTEXT_PACKAGE "timeslice"
H
cmp -s "$OUT/config.h.new" "$OUT/config.h" || mv "$OUT/config.h.new" "$OUT/config.h"
rm -f "$OUT/config.h.new"

PKGS="glib-2.0 gio-2.0 gio-unix-2.0 json-glib-1.0 cairo libzstd zlib"
read -r -a PKG_CFLAGS <<< "$(pkg-config --cflags $PKGS)"
read -r -a PKG_LIBS <<< "$(pkg-config --libs $PKGS)"
CFLAGS=(-std=gnu11 -g -O1 -fno-omit-frame-pointer
        -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
        -Wmissing-prototypes -Wstrict-prototypes
        -DGLIB_VERSION_MIN_REQUIRED=GLIB_VERSION_2_74 -DGLIB_VERSION_MAX_ALLOWED=GLIB_VERSION_2_74
        -UG_DISABLE_ASSERT -DGETTEXT_PACKAGE='"timeslice"' -I"$OUT" "${PKG_CFLAGS[@]}")
mapfile -t LAYERS < <(sed -n '/core_layers = \[/,/]/p' app/core/meson.build | grep -o "'[a-z/]*'" | tr -d "'")
for l in "${LAYERS[@]}"; do CFLAGS+=(-I"$SRC/app/core/$l"); done

mapfile -t CORE < <(sed -n '/core_sources = files(/,/)/p' app/core/meson.build | grep -o "[a-z/]*tsl-[a-z0-9-]*\.c")
OBJS=()
for c in "${CORE[@]}"; do
  o="$OUT/obj/$(basename "${c%.c}").o"
  if [ ! -f "$o" ] || [ "app/core/$c" -nt "$o" ] || [ "$OUT/config.h" -nt "$o" ] \
     || [ -n "$(find app/core -name '*.h' -newer "$o" -print -quit)" ]; then
    "$CC" "${CFLAGS[@]}" -fsanitize=fuzzer-no-link -c "app/core/$c" -o "$o"
  fi
  OBJS+=("$o")
done

for f in chrome-json speedscope perf-script collapsed csv perfetto-proto cpuprofile pprof gecko driver; do
  def=()
  [ "$f" = driver ] || def=("-DTSL_FUZZ_FORMAT=\"$f\"")
  "$CC" "${CFLAGS[@]}" -fsanitize=fuzzer "${def[@]}" tests/fuzz/fuzz-reader.c \
    "${OBJS[@]}" "${PKG_LIBS[@]}" -lm -o "$OUT/fuzz-$f"
done
"$CC" "${CFLAGS[@]}" -fsanitize=fuzzer tests/fuzz/fuzz-state.c \
  "${OBJS[@]}" "${PKG_LIBS[@]}" -lm -o "$OUT/fuzz-state"
echo "Built $OUT/fuzz-{chrome-json,speedscope,perf-script,collapsed,csv,perfetto-proto,cpuprofile,pprof,gecko,driver,state}"
