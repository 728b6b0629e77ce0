#!/usr/bin/env bash
# Benchmarks and full-scale runs of "orcs samplingsim"; the numbers in
# samplingsim/README.md come from this script. Run from anywhere:
#
#	bash bench/samplingsim.sh
#
# To compare the event loop's speed with another revision on a machine
# whose speed drifts, use bench/samplingsim-ab.sh (runs in turn, paired).
#
# Throughput is reported per CPU second of the event loop's thread (one
# core), which does not depend on other load on the machine, and per wall
# second.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
TIMEFORMAT='  (%R s wall for the whole command)'

echo "== event loop benchmarks (one core)"
go test -run '^$' -bench . -benchtime 5x -count 1 ./samplingsim

echo
echo "== adaptive routing and network noise: barrier beside random traffic, 528-host Dragonfly"
"$tmp/orcs" samplingsim --gen dragonfly:a=8,h=4,p=2 --global-latency 300ns --workload barrier:iters=30 \
	--background random:msgs=20,size=65536 --alloc interleaved --background-routing adaptive --scheme none \
	--compare-routing 'static;adaptive;adaptive:mode=imb;adaptive:mode=low;adaptive:mode=high;adaptive:mode=app'

echo
echo "== naive reduction vs binomial reduce, 3564 hosts (thesis Table 3.1 'Full' host count)"
for topo in "fattree3:pods=11,leaves=18,hosts=18" "fattree2:leaves=198,hosts=18,up=18,spines=18" "kary:k=18,n=3 --hosts 3564"; do
	for wl in naive-reduce binomial-reduce; do
		echo "-- $topo, $wl"
		# shellcheck disable=SC2086
		time "$tmp/orcs" samplingsim --gen $topo --workload "$wl" | head -6 | cut -c1-160
	done
done

echo
echo "== estimates vs ground truth on 1000 hosts (kary:k=10,n=3)"
SAMPLINGSIM_LONG=1 go test -count 1 -run TestErrorScaling1k -v ./samplingsim | grep '^|'

echo
echo "== thesis case studies on the 4608-host tapered tree (fattree3, 2:1 taper)"
tapered="fattree3:pods=6,leaves=24,hosts=32,up=16"
echo "-- 64×72 stencil, row major"
time "$tmp/orcs" samplingsim --gen "$tapered" --workload stencil | head -6 | cut -c1-160
echo "-- ring exchange alone, then with uniform random background (bit-parity allocation), ring's view"
time "$tmp/orcs" samplingsim --gen "$tapered" --workload ring --hosts 4608 | head -4 | cut -c1-160
time "$tmp/orcs" samplingsim --gen "$tapered" --workload ring --background random:msgs=8 --alloc parity --view ring | head -7 | cut -c1-160
