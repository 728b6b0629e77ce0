#!/usr/bin/env bash
# Taffet's chapter 4 case studies (§4.2 mapping, §4.3 reduction, §4.4
# background traffic) on the exact networks of the thesis's Table 3.1, with
# static (d-mod-k) and adaptive routing. Every row of the tables in
# samplingsim/README.md ("Taffet's chapter 4 on the Table 3.1 networks")
# comes from this script; each run prints its command. Needs jq and awk.
#
#	bash bench/taffet.sh            # all three sections (about 6 minutes of CPU)
#	bash bench/taffet.sh 4.2        # one section: 4.2, 4.3 or 4.4
#	bash bench/taffet.sh 4.4s       # §4.4 model sensitivity (not in "all"; about 3 minutes)
#	bash bench/taffet.sh seeds      # verdicts over seeds 1-10 (not in "all"; about 10 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
only=${1:-all}
command -v jq >/dev/null || { echo "bench/taffet.sh needs jq: apt-get install jq" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
orcs=$tmp/orcs

full="fattree3:pods=11,leaves=18,hosts=18,rep=3"        # Table 3.1 Full: 3564 hosts, 504 switches
tapered="fattree3:pods=6,leaves=24,hosts=32,up=16,rep=8" # Table 3.1 Tapered: 4608 hosts, 288 switches
routings=("static" "adaptive" "adaptive:mode=low")

# run NAME ARGS...: one samplingsim run with --json $tmp/NAME.json, the command echoed.
run() {
	local name=$1
	shift
	echo "\$ orcs samplingsim $*" >&2
	"$orcs" samplingsim "$@" --json "$tmp/$name.json" >/dev/null
}
finish() { jq -r --arg j "$2" '.jobs[] | select(.name == $j) | .finish_us' "$tmp/$1.json"; }

if [[ $only == all || $only == 4.2 ]]; then
	echo "== §4.2: 64×72 stencil, 128 KiB boundaries, on Tapered (thesis Table 4.1: time of one round in ns)"
	# Mappings: row major is the identity (no file); tiles from the generator;
	# random, reverse Cuthill–McKee and recursive bisection from orcs map.
	for o in row col scramble; do
		awk -v x=64 -v y=72 -v w=8 -v h=4 -v order=$o -f bench/taffet-tiles.awk >"$tmp/tile8x4-$o.map"
	done
	# Rows skewed inside the tile: slot = ((i + k·j) mod 8) + 8j.
	for k in 1 2; do
		awk -v x=64 -v y=72 -v w=8 -v h=4 -v order=skew -v k=$k -f bench/taffet-tiles.awk >"$tmp/tile8x4-skew$k.map"
	done
	awk -v x=64 -v y=72 -v w=4 -v h=8 -v order=row -f bench/taffet-tiles.awk >"$tmp/tile4x8-row.map"
	for s in tile random rcm bisect; do
		echo "\$ orcs map -i gen:$tapered -p file:testdata/stencil-64x72.ptrn --grid 64x72 --strategy $s --rank-hosts $s.map" >&2
		"$orcs" map -i "gen:$tapered" -p file:testdata/stencil-64x72.ptrn --grid 64x72 --strategy $s \
			--rank-hosts "$tmp/$s.map" >/dev/null
	done
	# The generator's skew by one column a row is orcs map's tile strategy,
	# rank for rank (its rows skewed so that d-mod-k spreads a tile's sides).
	if ! cmp -s <(grep -v '^#' "$tmp/tile8x4-skew1.map") <(grep -v '^#' "$tmp/tile.map"); then
		echo "bench/taffet-tiles.awk (skew order, k=1) differs from orcs map --strategy tile" >&2
		exit 1
	fi
	printf '%-17s %-18s %10s %12s  %s\n' mapping routing "time µs" "path length" diagnosis
	for m in row-major random rcm bisect tile8x4-row tile8x4-col tile8x4-scramble tile8x4-skew1 tile8x4-skew2 tile4x8-row; do
		for r in "${routings[@]}"; do
			mapflag=()
			[[ $m != row-major ]] && mapflag=(--mapping "$tmp/$m.map")
			run st --gen "$tapered" --workload stencil:x=64,y=72,size=131072 --routing "$r" "${mapflag[@]}"
			# Path length as the thesis counts it: links crossed minus one
			# (row major: 2.087 in Table 4.1 and here).
			jq -r --arg m "$m" --arg r "$r" '[$m, $r, .end_us, (.packet_hops / .packets - 1),
				.diagnosis.cause, ((.diagnosis.roots // []) | length)] |
				"\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]|gsub(" ";"_")) \(.[5])"' "$tmp/st.json" |
				awk '{printf "%-17s %-18s %10.2f %12.3f  %s (%d roots)\n", $1, $2, $3, $4, $5, $6}'
		done
	done
	echo
fi

if [[ $only == all || $only == 4.3 ]]; then
	echo "== §4.3: reduction of 50 × 4 KiB arrays per rank on 1024 hosts of Full"
	printf '%-18s %-26s %12s %10s %12s %14s  %s\n' routing workload "time µs" "root F" "root Gb/s" "naive/binomial" diagnosis
	for r in "${routings[@]}"; do
		naive=""
		for w in naive-reduce naive-reduce:root=388 binomial-reduce; do
			run red --gen "$full" --hosts 1024 --workload "$w" --routing "$r"
			t=$(jq -r '.end_us' "$tmp/red.json")
			[[ $w == naive-reduce ]] && naive=$t
			jq -r --arg w "$w" --arg r "$r" --arg naive "$naive" '
				((.diagnosis.roots // []) | map(select(.cause == "endpoint congestion")) | first) as $root |
				"\($r) \($w) \(.end_us) \($root.fraction // "-") \($root.gbps // "-") \(($naive|tonumber) / .end_us) \(.diagnosis.cause|gsub(" ";"_")) \((.diagnosis.roots // [])|length)"' \
				"$tmp/red.json" |
				awk '{f = $4 == "-" ? "-" : sprintf("%.4f", $4); g = $5 == "-" ? "-" : sprintf("%.1f", $5);
					printf "%-18s %-26s %12.2f %10s %12s %14.1f  %s (%d roots)\n", $1, $2, $3, f, g, $6, $7, $8}'
		done
	done
	echo
fi

# §4.4 as the thesis ran it (Taffet's CODES fork, model-net-synthetic-fattree.c,
# traffic pattern 6, and the CODES fat-tree parameters of its Summit-like
# networks, modelnet-synthetic-fattree-summit-k36-n3564.conf): every rank sends
# 2 messages of 128 KiB one at a time (closed loop: the next one an
# exponential think time of mean 1 µs after the previous one is received),
# 512-byte packets, 64 KiB of buffer per port (128 packets), 60 ns router
# delay, no separate link latency. See samplingsim/README.md, §4.4.
ring44="ring:size=131072,iters=2,closed=true"
bg44="random:msgs=2,size=131072,closed=true"
net44=(--mtu 512 --buffer 128 --router-delay 60ns --latency 0)

# parity_hosts: the two host sets of --alloc parity, for the runs of each job alone.
parity_hosts() {
	awk 'BEGIN { for (i = 0; i < 4608; i++) { v = (i + 1) * (i + 1); c = 0
		while (v > 0) { c += v % 2; v = int(v / 2) }
		print "H" i > (c % 2 == 0 ? ARGV[1] : ARGV[2]) } }' "$tmp/ring.hosts" "$tmp/bg.hosts"
}

# row44 LABEL SEED RING BG ARGS...: the ring and the background alone and
# together (ring's view), one line: times, slowdowns, the ring's view roots
# (all, below 30 Gb/s sampled, median Gb/s) and its verdict with the margin.
row44() {
	local label=$1 seed=$2 ring=$3 bg=$4
	shift 4
	run ringalone --gen "$tapered" --hosts @"$tmp/ring.hosts" --workload "$ring" --scheme none --seed "$seed" "$@"
	run bgalone --gen "$tapered" --hosts @"$tmp/bg.hosts" --workload "$bg" --scheme none --seed "$seed" "$@"
	run both --gen "$tapered" --workload "$ring" --background "$bg" --alloc parity --view ring \
		--messages "$tmp/both.csv" --seed "$seed" "$@"
	ra=$(finish ringalone ring) ba=$(finish bgalone random) rb=$(finish both ring) bb=$(finish both random)
	view=$(jq -r '(.diagnosis.roots // []) as $r | ($r | map(.gbps) | sort) as $g |
		"\($r|length) \($r | map(select(.gbps < 30)) | length) \(if ($g|length) == 0 then 0 else $g[($g|length) / 2 | floor] end) \(.diagnosis.cause|gsub(" ";"_")) \((.diagnosis.roots // [])[0].margin_gbps // 0)"' "$tmp/both.json")
	# The ring's messages that leave their leaf (32 hosts a leaf): how many, the slowest.
	cross=$(awk -F, '$2 == "ring" { s = substr($3, 2); d = substr($4, 2)
		if (int(s / 32) != int(d / 32)) { n++; if ($8 > m) m = $8 } } END { printf "%d %.1f", n, m }' "$tmp/both.csv")
	echo "$label $seed $ra $ba $rb $bb $view $cross" | awk '{printf "%-30s %4d %8.2f %8.2f %8.2f %8.2f %+7.0f%% %+6.0f%%  %3d %3d %6.1f  %-20s %+7.1f  %4d %7.1f\n",
		$1, $2, $3, $4, $5, $6, 100 * ($5 / $3 - 1), 100 * ($6 / $4 - 1), $7, $8, $9, $10, $11, $12, $13}'
}
head44() {
	printf '%-30s %4s %8s %8s %8s %8s %8s %7s  %3s %3s %6s  %-20s %7s  %4s %7s\n' setup seed "ring µs" alone "bg µs" alone ring bg \
		roots "<30" "median" "ring's verdict" margin cross "slowest"
}

if [[ $only == all || $only == 4.4 ]]; then
	echo "== §4.4 (seeds 1-3): ring beside uniform random background on Tapered, bit-parity allocation, the thesis's closed loop and CODES parameters"
	parity_hosts
	head44
	for r in "${routings[@]}"; do
		for seed in 1 2 3; do
			row44 "$r" "$seed" "$ring44" "$bg44" --routing "$r" "${net44[@]}"
		done
	done
	# Input buffers without head-of-line blocking, as CODES's switch has.
	for seed in 1 2 3; do
		row44 adaptive,bypass "$seed" "$ring44" "$bg44" --routing adaptive --buffers bypass "${net44[@]}"
	done
	echo
fi

if [[ $only == 4.4s ]]; then
	echo "== §4.4, seed 1: which model difference moves the ring's slowdown"
	parity_hosts
	head44
	row44 open-loop,4KiB-packets 1 ring:size=131072 random:msgs=2,size=131072 --routing adaptive
	row44 closed-loop,4KiB-packets 1 "$ring44" "$bg44" --routing adaptive
	row44 open-loop,CODES-network 1 ring:size=131072 random:msgs=2,size=131072 --routing adaptive "${net44[@]}"
	row44 closed-loop,CODES-network 1 "$ring44" "$bg44" --routing adaptive "${net44[@]}"
	row44 same,128-byte-packets 1 "$ring44" "$bg44" --routing adaptive --mtu 128 --buffer 512 --router-delay 60ns --latency 0
	row44 same,16KiB-buffers 1 "$ring44" "$bg44" --routing adaptive --mtu 512 --buffer 32 --router-delay 60ns --latency 0
	row44 static,fifo 1 "$ring44" "$bg44" --routing static "${net44[@]}"
	row44 static,bypass-no-HOL 1 "$ring44" "$bg44" --routing static --buffers bypass "${net44[@]}"
	row44 adaptive,bypass-no-HOL 1 "$ring44" "$bg44" --routing adaptive --buffers bypass "${net44[@]}"
fi

# One verdict per case over seeds 1-10 (--seeds): the headline with its
# support, and the seeds' verdicts in one line.
if [[ $only == seeds ]]; then
	echo "== verdicts over seeds 1-10"
	awk -v x=64 -v y=72 -v w=8 -v h=4 -v order=row -f bench/taffet-tiles.awk >"$tmp/tile8x4-row.map"
	awk -v x=64 -v y=72 -v w=8 -v h=4 -v order=skew -v k=1 -f bench/taffet-tiles.awk >"$tmp/tile8x4-skew1.map"
	parity_hosts
	verdict() {
		local label=$1
		shift
		echo "\$ orcs samplingsim $* --seeds 1-10" >&2
		"$orcs" samplingsim "$@" --seeds 1-10 --json "$tmp/v.json" >/dev/null
		jq -r --arg l "$label" '.diagnosis.seeds as $s | "\($l)|\($s.cause)|\($s.agree) of \($s.runs)|\($s.holds)|\($s.low * 100 | round / 100)-\($s.high * 100 | round / 100)|\([$s.runs_by_seed[] | .cause | split(" ")[0]] | join(","))"' "$tmp/v.json" |
			awk -F'|' '{printf "%-36s %-20s %-9s %-6s %-10s %s\n", $1, $2, $3, $4, $5, $6}'
	}
	printf '%-36s %-20s %-9s %-6s %-10s %s\n' case verdict support holds "95 % CI" "seeds 1..10"
	verdict "4.2 tiles 8x4 row, static" --gen "$tapered" --workload stencil:x=64,y=72,size=131072 --routing static --mapping "$tmp/tile8x4-row.map"
	verdict "4.2 tiles 8x4 skew k=1, static" --gen "$tapered" --workload stencil:x=64,y=72,size=131072 --routing static --mapping "$tmp/tile8x4-skew1.map"
	for r in static adaptive; do
		verdict "4.4 ring's view, $r" --gen "$tapered" --workload "$ring44" --background "$bg44" --alloc parity --view ring --routing "$r" "${net44[@]}"
	done
	verdict "saturation kary:k=8,n=3, 200us" --gen kary:k=8,n=3 --max-time 200us --buffer 16 --workload saturation:hot=1,msgs=400,gbps=40,frac=0.05
fi
