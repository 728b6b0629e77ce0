#!/usr/bin/env bash
# Byte-identical outputs of two orcs binaries on Monte-Carlo simulations
# that together take every way a run walks its routes: one route after the
# other (small tables), in rounds (tables over 256 KiB, too few runs for
# entry routes), entry routes of inner words (three-level fat trees), of
# link words (a four-level tree) and of position words (65 536 links or
# more, three and four levels), LMC spread from OpenSM dumps, routes that fail; every
# metric, ORCS 2.0's per-route cable sums, one pattern level, random and
# combined patterns, --hot with the cables, on 1 and 16 threads and as
# shards merged again. A change to the run's hot path that must not change
# results runs it with the binary before and after:
#
#	bash bench/analyze-identical.sh OLD_BINARY NEW_BINARY
#	LARGE=1 bash bench/analyze-identical.sh OLD NEW   # also 21 952 hosts
#
# It prints one line per command and exits non-zero when any output
# differs.
set -uo pipefail
usage="analyze-identical.sh OLD_BINARY NEW_BINARY"
# shellcheck source=bench/identical-lib.sh
. "$(dirname "$0")/identical-lib.sh"
ib=$PWD/testdata/ib
td=$PWD/testdata

cmds=(
	"-i $td/ft16.dot -p bisect_fb_sym --metric hist_acc_band -n 3000 --seed 1"
	"-i $td/ft64.dot -p bisect --metric hist_max_cong -n 500 --seed 2"
	"-i gen:kary:k=8,n=3 -p bisect_fb_sym --metric hist_acc_band -n 5000 --seed 3"
	"-i gen:kary:k=8,n=3 -p alltoall -l 100 --metric sum_max_cong -n 2000 --seed 4"
	"-i gen:kary:k=8,n=3 -p rand --metric dep_max_delay -n 300 --seed 5"
	"-i gen:kary:k=8,n=3 -p gather --metric get_cable_cong -n 200 --seed 6"
	"-i gen:kary:k=8,n=3 -p gather --metric get_cable_cong --compat orcs2 -n 200 --seed 6"
	"-i gen:kary:k=8,n=3 -p ptrnvsptrn -f bisect_fb_sym -c rand -z 256 --metric dep_max_delay -n 300 --seed 7"
	"-i gen:kary:k=8,n=3 -p recdbl --metric hist_acc_band -n 500 --seed 8 --format json"
	"-i gen:kary:k=8,n=3 -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 9 --hot 5 --cables --format json"
	"-i gen:kary:k=16,n=3 -p bisect_fb_sym --metric hist_acc_band -n 40 --seed 10"
	"-i gen:kary:k=16,n=3 -p bisect_fb_sym --metric hist_acc_band -n 3000 --seed 11 --format csv"
	"-i gen:kary:k=24,n=3 -p bisect_fb_sym --metric hist_acc_band -n 600 --seed 12"
	"-i gen:rail:nodes=32 -p nccl_ring_allreduce -n 200 --seed 13"
	"-i gen:torus:dims=4x4x4 -p neighbor3d --metric hist_max_cong -n 500 --seed 14"
	"--topo $ib/ft16/ft16.net --lfts $ib/ft16/minhop-lmc1/opensm-lfts.dump --lmc-spread -p bisect_fb_sym --metric hist_acc_band -n 3000 --seed 15"
	"--topo $ib/ft16/ft16.net --lfts $ib/ft16/updn/opensm-lfts.dump -p alltoall --metric sum_max_cong -n 300 --seed 16"
	"--topo $ib/loopback/loopback.net --lfts $ib/loopback/minhop/opensm-lfts.dump --ignore-route-errors -p bisect_fb_sym --metric hist_acc_band -n 2000 --seed 17"
	"-i gen:kary:k=4,n=4 -p bisect_fb_sym --metric hist_acc_band -n 2000 --seed 18"
	"-i gen:kary:k=4,n=4 -p gather --metric dep_max_delay -n 500 --seed 19"
	"-i gen:kary:k=10,n=4 -p bisect_fb_sym --metric hist_acc_band -n 300 --seed 20"
)
if [[ ${LARGE:-0} == 1 ]]; then
	cmds+=("-i gen:kary:k=28,n=3 -p bisect_fb_sym --metric hist_acc_band -n 1000 --seed 1")
fi

# run BINARY DIR ARGS...: the outputs on 1 and 16 threads and of three
# shards merged, in DIR.
run() {
	local bin=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	(cd "$dir" || exit
		"$bin" "$@" -j 1 >j1.txt 2>j1.err
		echo "exit $?" >>j1.err
		"$bin" "$@" -j 16 >j16.txt 2>j16.err
		echo "exit $?" >>j16.err
		if [[ " $* " != *" --hot "* ]]; then
			for s in 0 1 2; do
				"$bin" "$@" -j 2 --shard "$s/3" -o "shard$s" 2>>shard.err
			done
			"$bin" merge shard0 shard1 shard2 >merged.txt 2>>shard.err
			echo "exit $?" >>shard.err
		fi)
}
for i in "${!cmds[@]}"; do
	# shellcheck disable=SC2206
	args=(${cmds[$i]})
	run "$old" "$tmp/$i/old" "${args[@]}"
	run "$new" "$tmp/$i/new" "${args[@]}"
	n=$(find "$tmp/$i/old" -type f | wc -l)
	if ! cmp -s "$tmp/$i/old/j1.txt" "$tmp/$i/old/j16.txt"; then
		printf 'THREADS %2d: 1 and 16 threads differ: %s\n' "$i" "${cmds[$i]//$PWD\//}"
		fail=1
	fi
	compare "$i" "$n files, $(tail -1 "$tmp/$i/old/j1.err")" "${cmds[$i]//$PWD\//}"
done
exit $fail
