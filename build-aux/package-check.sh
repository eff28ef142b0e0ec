#!/bin/sh
# Runs inside the throwaway root of build-aux/package-deb, on the installed package.
set -eu
example=/usr/share/timeslice/examples/example-trace.json

timeslice --version
timeslice info "$example" > /tmp/info.txt
cat /tmp/info.txt
grep -q '^Events: *10841$' /tmp/info.txt
man -w timeslice > /dev/null 2>&1 || test -e /usr/share/man/man1/timeslice.1.gz
test -e /usr/share/help/C/timeslice/index.page
test -e /usr/share/mime/packages/org.timeslice.Timeslice.mime.xml

# The window: it must map a window titled after the file and still be running.
cat > /tmp/gui.sh <<'GUI'
timeslice "$1" > /tmp/gui.log 2>&1 &
pid=$!
title=
for i in $(seq 1 60); do
  sleep 1
  win=$(xdotool search --name 'example-trace.json' 2>/dev/null | head -1 || true)
  if [ -n "$win" ]; then title=$(xdotool getwindowname "$win"); break; fi
done
alive=no
kill -0 $pid 2>/dev/null && alive=yes
kill $pid 2>/dev/null || true
echo "window: ${title:-none}, running: $alive"
[ -n "$title" ] && [ $alive = yes ]
GUI
dbus-run-session -- xvfb-run -a -s '-screen 0 1400x900x24' sh /tmp/gui.sh "$example" 2> /dev/null
