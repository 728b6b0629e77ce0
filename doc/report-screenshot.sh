#!/usr/bin/env bash
# Regenerates doc/report.png, the screenshot in doc/report.md of the report of the
# shipped fixtures (report/testdata: real runs on testdata/ft64.dot and a
# regions result). Needs chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/orcs ./orcs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd report/testdata && ../../bin/orcs report analysis-ft64.json check-ft64.json deadlock-ft64.json \
  compare-ft64.json samplingsim-ft64.json regions-ft64.json -o "$tmp/report.html")
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
  --user-data-dir="$tmp/profile" --window-size=1240,2150 --screenshot=doc/report.png \
  "file://$tmp/report.html" 2>/dev/null
