#!/usr/bin/env bash
# Regenerate the port-counter fixtures of this directory with the real tools:
# ibsim emulates testdata/ib/ft16/ft16.net, OpenSM assigns LIDs, ibsim's
# console sets the counters of a growing congestion tree towards H-0
# (PerformanceSet), and perfquery reads every port of every LID, extended
# (-x) and basic counters, into one snapshot file per step. ibnetdiscover
# writes the topology with the LIDs the snapshots name.
# Usage: ./regen-counters.sh    (needs ibsim-utils, opensm, infiniband-diags)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
NET=$HERE/../ib/ft16/ft16.net
PATH=$PATH:/usr/sbin:/sbin
UMAD2SIM=$(ls /usr/lib/*/umad2sim/libumad2sim.so | head -1)
WORK=$(mktemp -d)
export IBSIM_SOCKNAME=orcsregions$$
IBSIM_PID= HOLD_PID=
cleanup() {
	[ -n "$IBSIM_PID" ] && kill "$IBSIM_PID" 2>/dev/null && wait "$IBSIM_PID" 2>/dev/null || true
	[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
mkfifo console
sleep 100000 >console & HOLD_PID=$!
ibsim -s "$NET" <console >ibsim.log 2>&1 & IBSIM_PID=$!
exec 7>console
for _ in $(seq 50); do grep -q "Network simulator ready" ibsim.log && break; sleep 0.1; done
LD_PRELOAD=$UMAD2SIM OSM_CACHE_DIR=$WORK/cache opensm -o -f "$WORK/opensm.log" </dev/null >/dev/null 2>&1
LD_PRELOAD=$UMAD2SIM ibnetdiscover 2>/dev/null >"$HERE/ft16-ibnetdiscover.txt"
lids=$(grep -o 'lid [0-9]*' "$HERE/ft16-ibnetdiscover.txt" | awk '{print $2}' | sort -nu)
# set NODE PORT WAIT DATA: cumulative PortXmitWait and PortXmitData
set_port() { echo "PerformanceSet \"$1\"[$2] PortCounters.PortXmitWait=$3" >&7
	echo "PerformanceSet \"$1\"[$2] PortCounters.PortXmitData=$4" >&7
	echo "PerformanceSet \"$1\"[$2] PortCountersExtended.PortXmitData=$4" >&7; }
snapshot() {
	: >"$HERE/$1"
	# switches: every port (-l LID 255); a CA port answers for itself
	for lid in $lids; do
		if grep -q "^Switch.* lid $lid " "$HERE/ft16-ibnetdiscover.txt"; then
			LD_PRELOAD=$UMAD2SIM perfquery -x -l "$lid" 255 2>/dev/null >>"$HERE/$1"
			LD_PRELOAD=$UMAD2SIM perfquery -l "$lid" 255 2>/dev/null >>"$HERE/$1"
		else
			LD_PRELOAD=$UMAD2SIM perfquery -x "$lid" 1 2>/dev/null >>"$HERE/$1"
			LD_PRELOAD=$UMAD2SIM perfquery "$lid" 1 2>/dev/null >>"$HERE/$1"
		fi
	done
}
# Step k: every port sends 1e6 words per step; the congestion tree towards
# H-0 grows: the leaf's port to H-0 waits from step 1, the spines' ports to
# leaf0 from step 2, the other leaves' up-ports from step 3.
data=0; w_root=0; w_spine=0; w_up=0
for k in 0 1 2 3; do
	data=$((data + 1000000))
	[ $k -ge 1 ] && w_root=$((w_root + 600000))
	[ $k -ge 2 ] && w_spine=$((w_spine + 300000))
	[ $k -ge 3 ] && w_up=$((w_up + 250000))
	for l in 0 1 2 3; do
		for p in 1 2 3 4 5 6 7 8; do
			w=0
			[ $l = 0 ] && [ $p = 1 ] && w=$w_root
			[ $l != 0 ] && [ $p -ge 5 ] && w=$w_up
			set_port "S-leaf$l" $p $w $data
		done
	done
	for s in 0 1 2 3; do
		for p in 1 2 3 4; do
			w=0; [ $p = 1 ] && w=$w_spine
			set_port "S-spine$s" $p $w $data
		done
	done
	sleep 0.3
	snapshot "ft16-perfquery-$k.txt"
done
# A reset between the last two snapshots: counters cleared, then counting again.
for l in 0 1 2 3; do for p in 1 2 3 4 5 6 7 8; do set_port "S-leaf$l" $p 0 0; done; done
for s in 0 1 2 3; do for p in 1 2 3 4; do set_port "S-spine$s" $p 0 0; done; done
set_port S-leaf0 1 500000 1000000
sleep 0.3
snapshot "ft16-perfquery-4-reset.txt"
