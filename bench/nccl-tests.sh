#!/usr/bin/env bash
# The nccl-tests rows of doc/gpu-collectives.md: samplingsim's NCCL
# allreduce, ring and tree, static and adaptive routing, 1 MiB to 1 GiB on
# one DGX-style scalable unit (testdata/rail/rail32x8.net: 32 nodes × 8
# rails, 32 spines, 200 Gb/s) routed by OpenSM's ftree on ibsim; then the
# same unit's all-to-all with and without PXN, 1 MiB to 64 MiB. Needs
# opensm and ibsim (see doc/route.md). Run from anywhere:
#
#	bash bench/nccl-tests.sh
#
# Prints the load average before each table: the wall times depend on the
# machine's other work.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
TIMEFORMAT='  (%R s wall for the whole command)'

"$tmp/orcs" route --engine ftree --topo testdata/rail/rail32x8.net --keep "$tmp/ft32"
lfts="$tmp/ft32/opensm-lfts.dump"

echo "== allreduce, ring and tree, 1M-1G; load: $(cut -d' ' -f1-3 /proc/loadavg)"
time "$tmp/orcs" samplingsim --topo testdata/rail/rail32x8.net --lfts "$lfts" -w nccl:op=allreduce \
	--gbps 200 --nccl-sizes 1M-1G --nccl-algos ring,tree --compare-routing 'static;adaptive'

for op in alltoall alltoall_pxn; do
	echo
	echo "== $op, 1M-64M; load: $(cut -d' ' -f1-3 /proc/loadavg)"
	time "$tmp/orcs" samplingsim --topo testdata/rail/rail32x8.net --lfts "$lfts" -w nccl:op=$op \
		--gbps 200 --nccl-sizes 1M-64M --compare-routing 'static;adaptive'
done
