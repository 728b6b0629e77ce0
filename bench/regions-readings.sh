#!/usr/bin/env bash
# Monet's synthetic benchmark (appendix D) under every reading of it: the
# table "benchmark reading × method" of doc/regions.md
# comes from this script. Run from anywhere:
#
#	bash bench/regions-readings.sh [SAMPLES [SEED]]     # default 100 samples, seed 1
#
# READINGS="links ports" or FABRICS=torus restrict the rows (to split the
# run over machines or cores).
#
# Each row is one orcs regions --synthetic command (printed in the method
# column); its last line holds the numbers. About 2 to 4 minutes per torus
# row of 100 samples on 2 shared cores; the CI runs a few samples of each
# reading with floors (TestBenchReadings in package regions).
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-100}
seed=${2:-1}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs

methods=(
	"--theta-p 12 --theta-r 8 --sigma 20 --delta 2 --smooth 0 --overlaps=false"
	"--theta-p 4 --theta-r 4 --sigma 20 --delta 2 --smooth 0 --overlaps=false"
	"--theta-p 1.5 --theta-r 1.5 --sigma 20 --delta 2 --smooth 1 --overlaps=true"
	""
)
echo "| fabric | reading | method | score | 1:1 | precision | recall |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
row() { # fabric reading args…
	local fabric=$1 reading=$2
	shift 2
	"$tmp/orcs" regions --synthetic "$fabric" --reading "$reading" --samples "$samples" --seed "$seed" "$@" |
		sed -n "s/^score \([0-9.]*\)  precision \([0-9.]*\)  recall \([0-9.]*\)  (score with each found region matched once: \([0-9.]*\))/| $fabric | $reading | \`${*:-(default)}\` | \1 | \4 | \2 | \3 |/p"
}
readings=${READINGS:-links switches ports one-stall}
for fabric in ${FABRICS:-torus fattree}; do
	for reading in $readings; do
		[ "$fabric" = fattree ] && [ "$reading" != links ] && [ "$reading" != one-stall ] && continue
		for m in "${methods[@]}"; do
			# shellcheck disable=SC2086
			row "$fabric" "$reading" $m
		done
	done
done
