#!/usr/bin/env bash
# Dampening switches (Kuszmaul and Kuszmaul, SPAA'14) in "orcs samplingsim":
# the tables of samplingsim/README.md ("Hot spots and dampening switches")
# come from this script. Run from anywhere:
#
#	bash bench/dampening.sh
#
# Every run is one command; the line "buffers …" of its output holds the
# numbers of a table row.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
fabric="kary:k=8,n=3" # 512 hosts, 5-hop paths, 16-port switches

# row prints the numbers of the "buffers" line of one run.
row() {
	"$tmp/orcs" samplingsim --gen "$fabric" --scheme none --max-time 200us "$@" |
		sed -n 's/^buffers \([^,]*\), B = \([0-9]*\).*offered \([0-9.]*\) Gb\/s per sender, delivered \([0-9.]*\) (\([0-9.]*\)).*block a hot spot (\([0-9.]*\) on average) and \([0-9.]*\) of the other.*/\1 | \2 | \3 | \4 | \5 | \6 | \7/p'
}

echo "== one hot spot (host H0 stops receiving), 5 % of the traffic to it, 40 Gb/s offered per host"
echo "| policy | B | offered Gb/s | delivered Gb/s | delivered/offered | hot spots blocked per port | other destinations blocked |"
echo "|---|---|---|---|---|---|---|"
for b in 2 4 8 16 32; do
	for pol in fifo bypass dias-kumar counting hashed:j=2 "hashed:j=$((b / 2 > 0 ? b / 2 : 1))"; do
		echo "| $(row --workload hotspots:hot=1,msgs=400,gbps=40,frac=0.05 --buffers "$pol" --buffer "$b") |"
	done
done

echo
echo "== many hot spots: hashed dampener, B = 16, j = 2 ((B/j)·ln B = 22.2 hot spots)"
echo "| policy | B | offered Gb/s | delivered Gb/s | delivered/offered | hot spots blocked per port | other destinations blocked |"
echo "|---|---|---|---|---|---|---|"
for h in 1 2 4 8 16 22 32 64 128; do
	echo "| $(row --workload hotspots:hot=$h,msgs=400,gbps=40,frac=0.2 --buffers hashed:j=2 --buffer 16) | h = $h"
done
