#!/bin/sh
# bench/record-firefox.sh: a fresh Firefox profile (Gecko format) of a page, as tests/data/gecko/ was made
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: bench/record-firefox.sh OUT [PAGE]
# Records Debian's firefox-esr, headless, with its built-in profiler from
# its start (MOZ_PROFILER_STARTUP: JS, native stacks, CPU use and memory at
# a 1 ms interval) while it loads PAGE (default tests/data/gecko/page.html,
# which does some work and closes its window; the profile is written when
# Firefox quits). A throwaway Firefox profile lets scripts close windows.
set -eu
out=${1:?usage: $0 OUT [PAGE]}
page=$(realpath "${2:-$(dirname "$0")/../tests/data/gecko/page.html}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/profile" "$dir/home"
cat > "$dir/profile/user.js" <<'JS'
user_pref("dom.allow_scripts_to_close_windows", true);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("app.update.enabled", false);
JS
rm -f "$out"
HOME="$dir/home" MOZ_PROFILER_STARTUP=1 MOZ_PROFILER_STARTUP_INTERVAL=1 \
  MOZ_PROFILER_STARTUP_FEATURES=js,stackwalk,cpu,memory \
  MOZ_PROFILER_STARTUP_FILTERS='GeckoMain,Compositor,DOM Worker' \
  MOZ_PROFILER_SHUTDOWN="$(realpath -m "$out")" \
  timeout 60 firefox-esr --headless --no-remote --profile "$dir/profile" "file://$page" >/dev/null 2>&1 || true
test -s "$out" || { echo "$0: firefox-esr wrote no profile to $out" >&2; exit 1; }
echo "$out: $(wc -c < "$out") bytes"
