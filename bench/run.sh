#!/usr/bin/env bash
# Benchmarks of orcs: the route walk of 512 to 21952 hosts (hops per CPU
# second of one thread, against a flat array walk over the same hops),
# loading routed dot of 4096 to 21952 hosts against reading the same bytes
# with cat, and end-to-end commands with their wall time and peak RSS.
# Results go to bench/out/ and stdout.
#
#   bench/run.sh            # all of it (a few minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
export ORCS_BENCH_DIR=$PWD/$out

go build -o bin/orcs ./orcs
echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version)"

echo "== route walk of bisect_fb_sym runs (one thread; Mhops/s per CPU second, ratio to a flat array walk; 65536 hosts: 3 GB, minutes)"
go test -run '^$' -bench 'Walk|RunAlltoall|AppendRoute' -benchtime 2s ./analyze/ | tee "$out/analyze.txt" | grep Benchmark
echo "== the stages of a run, ns per route (one thread)"
go test -run '^$' -bench 'Stages' ./analyze/ | tee -a "$out/analyze.txt" | grep Benchmark

echo "== load and 1000-run simulations (all cores)"
go test -run '^$' -bench . -benchtime 3x ./bench/ | tee "$out/bench.txt" | grep Benchmark

echo "== the I/O limit: reading the same files with cat (warm page cache)"
for f in kary-4096-guid kary-10k-guid kary-22k; do
  cat "$out/$f.dot" > /dev/null
  /usr/bin/time -f "cat $f.dot: %e s" cat "$out/$f.dot" > /dev/null
done

echo "== placement search (one thread)"
go test -run '^$' -bench 'Swap|Search|BisectTorus' -benchtime 1x ./mapping/ | tee "$out/mapping.txt" | grep Benchmark
go test -run '^$' -bench 'Swap' -benchtime 2s ./mapping/ | tee -a "$out/mapping.txt" | grep Benchmark

echo "== end to end (wall time, peak RSS)"
e2e() {
  local label=$1; shift
  /usr/bin/time -f "$label: %e s, peak RSS %M KB" "$@" > /dev/null
}
for f in kary-4096-guid kary-10k-guid kary-22k; do
  ls -l "$out/$f.dot" | awk '{printf "%s: %.1f MB\n", $NF, $5/1e6}'
done
e2e "4096 hosts (65 MB dot): load + 1000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-4096-guid.dot" -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1
e2e "4096 hosts: load + 1000 runs of alltoall level 1000 (-l)" \
  bin/orcs -i "$out/kary-4096-guid.dot" -p alltoall -l 1000 --metric hist_acc_band -n 1000 --seed 1
e2e "10648 hosts (314 MB dot): load + 1000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-10k-guid.dot" -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1
e2e "21952 hosts (340 MB dot): load + 1000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-22k.dot" -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1
bin/orcs gen kary:k=8,n=3 -o "$out/kary-512.dot" 2>/dev/null
e2e "512 hosts: load + 100000 runs bisect_fb_sym/hist_acc_band" \
  bin/orcs -i "$out/kary-512.dot" -p bisect_fb_sym --metric hist_acc_band -n 100000 --seed 1
e2e "orcs map, 4096 hosts, neighbor2d, --strategy search" \
  bin/orcs map -i gen:kary:k=16,n=3 -p neighbor2d
e2e "orcs map, Taffet stencil on 4608 hosts, --compare --verify-workload" \
  bin/orcs map -i gen:fattree3:pods=6,leaves=24,hosts=32,up=16 -p file:testdata/stencil-64x72.ptrn --grid 64x72 \
  --compare --verify-workload stencil:x=64,y=72

echo "== the HTML report of the 4096-host fabric"
go test -run '^$' -bench Report4096 -benchmem -benchtime 5x ./report/ | tee "$out/report.txt" | grep Benchmark
e2e "4096 hosts: 1000 runs bisect_fb_sym with --hot 10 --cables --format json" \
  bin/orcs -i gen:kary:k=16,n=3 -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1 --hot 10 --cables --format json -o "$out/report-4096.json"
e2e "4096 hosts: orcs report of that result" bin/orcs report "$out/report-4096.json" -o "$out/report-4096.html"
ls -l "$out/report-4096.json" "$out/report-4096.html" | awk '{printf "%s: %.2f MB\n", $NF, $5/1e6}'

echo "== congestion regions: 10 000 windows on the 4096-host 16-ary 3-tree (all cores)"
go test -run '^$' -bench 'Regions10k|Segment4096' -benchtime 1x ./regions/ | tee "$out/regions.txt" | grep Benchmark
