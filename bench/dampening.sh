#!/usr/bin/env bash
# Dampening switches (Kuszmaul and Kuszmaul, SPAA'14) in "orcs samplingsim":
# the tables of samplingsim/README.md ("Hot spots and dampening switches")
# come from this script. Run from anywhere:
#
#	bash bench/dampening.sh
#
# Every row is one command, printed above its table; the line "buffers …"
# of its output holds the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
run() { "$tmp/orcs" samplingsim --gen kary:k=8,n=3 --scheme none --max-time 200us "$@"; }

# row prints policy | B | offered | delivered | ratio | ports | hot per port | blocked.
row() {
	sed -n 's/^buffers \([^,]*\), B = \([0-9]*\).*offered \([0-9.]*\) Gb\/s per sender, delivered \([0-9.]*\) (\([0-9.]*\)).*; \([0-9]*\) switch ports block a hot spot (\([0-9.]*\) on average) and \([0-9.]*\) of the other.*/\1 | \2 | \3 | \4 | \5 | \6 | \7 | \8/p'
}

echo "== one hot spot, 512 hosts (kary:k=8,n=3): orcs samplingsim --gen kary:k=8,n=3 --scheme none --max-time 200us \\"
echo "   --workload saturation:hot=1,msgs=400,gbps=40,frac=0.05 --buffers POLICY --buffer B"
echo "| policy | B | offered Gb/s | delivered Gb/s | delivered/offered | ports blocking the hot spot | hot spots blocked per port | other destinations blocked there |"
echo "|---|---|---|---|---|---|---|---|"
for b in 2 4 8 16 32; do
	pols="fifo bypass dias-kumar counting hashed:j=2"
	[ "$b" -gt 4 ] && pols="$pols hashed:j=$((b / 2))"
	for pol in $pols; do
		echo "| $(run --workload saturation:hot=1,msgs=400,gbps=40,frac=0.05 --buffers "$pol" --buffer "$b" | row) |"
	done
done

echo
echo "== many hot spots, hashed:j=2, B = 16 ((B/j)·ln B = 22.2): ... --workload saturation:hot=H,msgs=400,gbps=40,frac=0.2 --buffers hashed:j=2 --buffer 16"
echo "| H | policy | B | offered Gb/s | delivered Gb/s | delivered/offered | ports blocking a hot spot | hot spots blocked per port | other destinations blocked there |"
echo "|---|---|---|---|---|---|---|---|---|"
for h in 1 2 4 8 16 22 32 64; do
	echo "| $h | $(run --workload saturation:hot=$h,msgs=400,gbps=40,frac=0.2 --buffers hashed:j=2 --buffer 16 | row) |"
done

echo
echo "== Theorem 1 per port: the runs above with H = 22 and 64, ports grouped by the hot spots routed through them (B = 16, j = 2)"
echo "| H | hot spots routed h | ports | free buffers | B(1−j/B)^h | other destinations blocked | (1−(1−j/B)^h)^j |"
echo "|---|---|---|---|---|---|---|"
for h in 22 64; do
	run --workload saturation:hot=$h,msgs=400,gbps=40,frac=0.2 --buffers hashed:j=2 --buffer 16 |
		sed -n 's/^  ports routing \([0-9]*\) hot spots: \([0-9]*\), \([0-9.]*\) buffers free, \([0-9.]*\) of the other.*/\1 \2 \3 \4/p' |
		awk -v H=$h '{ q = (1 - 2/16)^$1; printf "| %d | %d | %d | %.2f | %.2f | %.4f | %.4f |\n", H, $1, $2, $3, 16*q, $4, (1-q)^2 }'
done
