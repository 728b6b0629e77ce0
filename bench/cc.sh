#!/usr/bin/env bash
# InfiniBand congestion control in samplingsim on the 512-host fat tree
# (kary:k=8,n=3) with the saturation workload: one hot host that receives
# at line rate, ten times oversubscribed (511 senders × 40 Gb/s × 5 %),
# off against the presets per queue pair and per service level, and a
# table that reaches far enough; then the event loop's speed with CC on
# and off. The tables of doc/congestion-control.md come from it:
#
#	bash bench/cc.sh
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs

echo "== saturation on 512 hosts, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/orcs" samplingsim --gen kary:k=8,n=3 --scheme none \
	--workload saturation:hot=1,msgs=400,gbps=40,frac=0.05,stop=0 \
	--compare-cc 'off;default;aggressive;timid;default:flows=sl;aggressive:flows=sl;timid:flows=sl;aggressive:cct=linear:128:8'

echo
echo "== event loop with CC on and off (one core), load average $(cut -d' ' -f1-3 /proc/loadavg)"
go test -run '^$' -bench 'HotSpotCC' -benchtime 5x -count 3 ./samplingsim
