#!/usr/bin/env bash
# The InfiniBand readers at scale (doc/performance.md, "Reading fabric
# dumps"). Run from anywhere:
#
#	bash bench/ib-readers.sh [SPEC [DIR]]
#
# SPEC is the generated fabric (default kary:k=24,n=3: 13 824 hosts, 1 728
# switches, a 1.6 GB opensm-lfts.dump; kary:k=32,n=3 gives 32 768 hosts and
# 6.7 GB; fattree3:pods=44,leaves=32,hosts=32,up=32,mup=32, the largest
# three-level radix-64 tree one subnet addresses, 45 056 hosts, 3 840
# switches and 48 896 LIDs in a 12 GB dump). The dumps are written once
# into DIR (default ib-dumps-SPEC) by orcs gen --format
# ibnetdiscover|lfts|fdbs, in the format of OpenSM's and
# ibnetdiscover's own. Then, with the files in the page cache, it prints
# for each file wc -l against the reader alone (BenchmarkReadRoutingFile,
# BenchmarkReadFDBsFile, BenchmarkReadTopologyFile: one read each; set
# SKIP_FDBS=1 to leave out the opensm.fdbs: every LID of every switch,
# 26 bytes a line, about 0.45 of the opensm-lfts.dump), and the load +
# route check
# (--checkinputfile) of the generated fabric against the same fabric read
# from the dumps: wall, user and system seconds, peak RSS, and the load
# average before each, as the 2 cores are shared; last, ROUNDS rounds
# (default 3) of load + route check + 1000 runs of bisect_fb_sym from gen
# and from each dump in turn, with the dumps' ratios to gen.
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-kary:k=24,n=3}
dir=${2:-ib-dumps-$(echo "$spec" | tr ':=,' '___')}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
go test -c -o "$tmp/ib.test" ./ib
topo=$dir/ibnetdiscover.txt
lfts=$dir/opensm-lfts.dump
[ -s "$topo" ] || "$tmp/orcs" gen --format ibnetdiscover -o "$topo" "$spec"
[ -s "$lfts" ] || "$tmp/orcs" gen --format lfts -o "$lfts" "$spec"
fdbs=$dir/opensm.fdbs
if [ -z "${SKIP_FDBS:-}" ]; then
	[ -s "$fdbs" ] || "$tmp/orcs" gen --format fdbs -o "$fdbs" "$spec"
	ls -l "$fdbs"
	cat "$fdbs" >/dev/null
fi
ls -l "$topo" "$lfts"

load() { cut -d' ' -f1-3 /proc/loadavg; }
timed() { /usr/bin/time -f '%e s wall, %U s user, %S s sys, %M KB peak' "$@"; }
cat "$topo" "$lfts" >/dev/null # warm page cache

for round in 1 2; do
	echo "round $round"
	echo "  wc -l $lfts (load $(load)): $({ timed wc -l "$lfts" >/dev/null; } 2>&1)"
	echo "  reader $lfts (load $(load)): $({ ORCS_BENCH_LFTS=$lfts timed "$tmp/ib.test" -test.run XXX \
		-test.bench 'BenchmarkReadRoutingFile$' -test.benchtime 1x | grep '^Bench'; } 2>&1 | tr '\n' ' ')"
	if [ -z "${SKIP_FDBS:-}" ]; then
		echo "  wc -l $fdbs (load $(load)): $({ timed wc -l "$fdbs" >/dev/null; } 2>&1)"
		echo "  reader $fdbs (load $(load)): $({ ORCS_BENCH_FDBS=$fdbs timed "$tmp/ib.test" -test.run XXX \
			-test.bench 'BenchmarkReadFDBsFile$' -test.benchtime 1x | grep '^Bench'; } 2>&1 | tr '\n' ' ')"
	fi
	echo "  wc -l $topo (load $(load)): $({ timed wc -l "$topo" >/dev/null; } 2>&1)"
	echo "  reader $topo (load $(load)): $({ ORCS_BENCH_TOPO=$topo timed "$tmp/ib.test" -test.run XXX \
		-test.bench 'BenchmarkReadTopologyFile$' -test.benchtime 1x | grep '^Bench'; } 2>&1 | tr '\n' ' ')"
	echo "  orcs -i gen:$spec --checkinputfile (load $(load)): $({ timed "$tmp/orcs" -i "gen:$spec" --checkinputfile >/dev/null; } 2>&1 | tail -1)"
	echo "  orcs --topo --lfts --checkinputfile (load $(load)): $({ timed "$tmp/orcs" --topo "$topo" --lfts "$lfts" --checkinputfile >/dev/null; } 2>&1 | tail -1)"
done

# Load + route check + 1000 runs of bisect_fb_sym, gen and the dumps in
# turn, ROUNDS times (default 3): wall seconds, peak RSS and the dumps'
# ratio to gen of the same round. The outputs must be the same.
run1000() { # OUT ARGS...: the output into OUT, "wall KB" printed
	local out=$1
	shift
	/usr/bin/time -f '%e %M' "$tmp/orcs" "$@" -p bisect_fb_sym -n 1000 --seed 1 2>"$tmp/time" >"$out"
	tail -1 "$tmp/time"
}
dumps=("$lfts")
[ -n "${SKIP_FDBS:-}" ] || dumps+=("$fdbs")
for round in $(seq "${ROUNDS:-3}"); do
	read -r gw gm < <(run1000 "$tmp/gen.out" -i "gen:$spec")
	line="round $round (load $(load)): gen ${gw} s ${gm} KB"
	for dump in "${dumps[@]}"; do
		read -r dw dm < <(run1000 "$tmp/dump.out" --topo "$topo" --lfts "$dump")
		cmp -s "$tmp/gen.out" "$tmp/dump.out" || { echo "output from $dump differs from gen's" >&2; exit 1; }
		line="$line; $(basename "$dump") ${dw} s ${dm} KB: $(awk -v a="$dw" -v b="$gw" -v c="$dm" -v d="$gm" 'BEGIN { printf "%.2f× the time, %.2f× the memory", a/b, c/d }')"
	done
	echo "$line"
done
