#!/usr/bin/env bash
# Byte-identical outputs of two orcs binaries on the analyzer's command
# lines at every scale that the fabric's representation touches (tables,
# entry routes, the route check): generated trees up to the 21 952-host
# 28-ary 3-tree, shard files (whose fabric digest covers every table
# entry), --hot, deadlock, the route check, gen's dot and InfiniBand dumps
# with and without LMC spread. A change that must not alter results runs
# it with the binary before and after:
#
#	bash bench/identical.sh OLD_BINARY NEW_BINARY
#
# Seeds are fixed; the lines a run prints about its own time are left
# out. It prints one line per command and exits non-zero when any output
# differs.
set -uo pipefail
usage="identical.sh OLD_BINARY NEW_BINARY"
# shellcheck source=bench/identical-lib.sh
. "$(dirname "$0")/identical-lib.sh"
ib=$PWD/testdata/ib
k28=gen:kary:k=28,n=3

cmds=(
	"-i $k28 -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1"
	"-i $k28 -p bisect_fb_sym -n 100 --seed 1 --format json --shard 1/3"
	"-i $k28 -p bisect_fb_sym -n 20 --seed 1 --hot 10"
	"-i $k28 --checkinputfile"
	"deadlock -i $k28"
	"gen kary:k=16,n=3"
	"-i gen:kary:k=16,n=3 -p alltoall -l 100 -n 100 --seed 2 --metric get_cable_cong --format csv"
	"-i gen:fattree3:pods=6,leaves=24,hosts=32,up=16,rep=8 -p rand -n 200 --seed 3 --format json"
	"-i gen:dragonfly:a=6,h=3,p=3 -p bisect -n 500 --seed 4 --routequal"
	"-i gen:torus:dims=8x8x8 -p neighbor3d -n 100 --seed 5 -j 1"
	"-i gen:rail:units=4,nodes=8,rails=4,up=8,spines=4,cores=8 -p nccl_ring_allreduce -n 50 --seed 6"
	"--topo $ib/ft64/ft64.net --lfts $ib/ft64/ftree/opensm-lfts.dump -p bisect_fb_sym -n 1000 --seed 7 --format json --shard 0/2"
	"--topo $ib/ft16/ft16.net --lfts $ib/ft16/minhop-lmc1/opensm-lfts.dump --lmc-spread -p alltoall -n 100 --seed 8 --hot 5"
	"map -i gen:kary:k=8,n=3 -p neighbor2d --strategy bisect"
)

run() {
	local bin=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	(cd "$dir" && "$bin" "$@" >out.txt 2>err.txt
		echo "exit $?" >>err.txt)
	sed -i -E '/(wall|cpu)_s"?:|seconds|elapsed/d' "$dir/out.txt" "$dir/err.txt"
}
for i in "${!cmds[@]}"; do
	# shellcheck disable=SC2206
	args=(${cmds[$i]})
	run "$old" "$tmp/$i/old" "${args[@]}"
	run "$new" "$tmp/$i/new" "${args[@]}"
	compare "$i" "$(tail -1 "$tmp/$i/old/err.txt"), $(wc -c <"$tmp/$i/old/out.txt") bytes" "${cmds[$i]//$ib/testdata/ib}"
done
exit $fail
