#!/usr/bin/env bash
# Regenerates doc/report.html and doc/report.png, the report of the shipped
# fixtures (report/testdata: real runs on testdata/ft64.dot and a regions
# result), as the README shows it. Needs chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/orcs ./orcs
cd report/testdata
../../bin/orcs report analysis-ft64.json check-ft64.json deadlock-ft64.json compare-ft64.json \
  samplingsim-ft64.json regions-ft64.json -o ../../doc/report.html
cd ../..
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile" \
  --window-size=1240,2150 --screenshot=doc/report.png "file://$PWD/doc/report.html" 2>/dev/null
