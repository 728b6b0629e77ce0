#!/usr/bin/env bash
# Benchmarks of orcs: the walk (hops/s against a flat array walk), whole runs,
# loading routed dot of 4096 and 10648 hosts, and end-to-end commands with
# their wall time and peak RSS. Results go to bench/out/ and stdout.
#
#   bench/run.sh            # all of it (a few minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export ORCS_BENCH_DIR=$PWD/$out

go build -o bin/orcs ./orcs
echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version)"

echo "== walk and runs (one thread)"
go test -run '^$' -bench 'Run|FlatArray|AppendRoute' -benchtime 2s ./sim/ | tee "$out/sim.txt" | grep Benchmark

echo "== load and 1000-run simulations (all cores)"
go test -run '^$' -bench . -benchtime 3x ./bench/ | tee "$out/bench.txt" | grep Benchmark

echo "== end to end (wall time, peak RSS)"
e2e() {
  local label=$1; shift
  /usr/bin/time -f "$label: %e s, peak RSS %M KB" "$@" > /dev/null
}
for f in kary-4096-guid kary-10k-guid; do
  ls -l "$out/$f.dot" | awk '{printf "%s: %.1f MB\n", $NF, $5/1e6}'
done
e2e "4096 hosts (65 MB dot): load + 1000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-4096-guid.dot" -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1
e2e "4096 hosts: load + 1000 runs of alltoall level 1000 (-l)" \
  bin/orcs -i "$out/kary-4096-guid.dot" -p alltoall -l 1000 --metric hist_acc_band -n 1000 --seed 1
e2e "10648 hosts (314 MB dot): load + 1000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-10k-guid.dot" -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1
bin/orcs gen kary:k=8,n=3 -o "$out/kary-512.dot" 2>/dev/null
e2e "512 hosts: load + 100000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-512.dot" -p bisect_fb_sym --metric hist_acc_band -n 100000 --seed 1

echo "== congestion regions: 10 000 windows on the 4096-host 16-ary 3-tree (all cores)"
go test -run '^$' -bench 'Regions10k|Segment4096' -benchtime 1x ./regions/ | tee "$out/regions.txt" | grep Benchmark
