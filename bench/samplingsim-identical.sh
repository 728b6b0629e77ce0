#!/usr/bin/env bash
# Byte-identical outputs of two orcs binaries on 25 samplingsim command
# lines that together use every plug-in: the sampling schemes, every
# workload, the buffer policies, the marking policies and mark points,
# adaptive routing and its modes, network noise (--background,
# --compare-routing), several jobs, --seeds, the text summary and the
# JSON, CSV, per-message and SVG files. A refactoring that must not change
# results runs it with the binary before and after:
#
#	bash bench/samplingsim-identical.sh OLD_BINARY NEW_BINARY
#
# The wall and CPU times of a run (the "simulated" line and "wall_s",
# "cpu_s") differ from run to run and are left out of the comparison. It
# prints one line per command and exits non-zero when any output differs.
set -uo pipefail
usage="samplingsim-identical.sh OLD_BINARY NEW_BINARY"
# shellcheck source=identical-lib.sh
source "$(dirname "$0")/identical-lib.sh"
ib=$PWD/testdata/ib

cmds=(
	"--gen kary:k=4,n=3 --workload naive-reduce --window 100us"
	"--gen kary:k=4,n=3 --workload binomial-reduce --scheme onebit --restrict hostrule --hash crc"
	"--gen kary:k=4,n=3 --workload naive-reduce --scheme onereservoir --ids global --hop-bits 5"
	"--gen kary:k=4,n=3 --workload stencil:x=8,y=8 --scheme none --window 20us"
	"--gen fattree2:leaves=8,hosts=8,up=4,spines=4 --workload ring:iters=3 --background random:msgs=5 --alloc interleaved --view ring"
	"--gen kary:k=4,n=3 --workload allreduce:iters=5 --marking queue:threshold=2 --mark-at arrival"
	"--gen kary:k=4,n=3 --workload alltoall:iters=2 --marking probabilistic:min=1,max=4 --mark-at departure --seed 7"
	"--gen kary:k=4,n=3 --workload barrier:iters=10 --marking credit-threshold:threshold=1 --tag 0.5"
	"--gen kary:k=4,n=3 --workload flow:src=0,dst=63,msgs=20 --slow-hosts H63 --slow-factor 0.25"
	"--gen torus:dims=4x4x4 --workload halo3d:iters=3"
	"--gen kary:k=4,n=3 --workload hotspot:hot=5,msgs=20,gbps=40 --buffers dias-kumar"
	"--gen kary:k=4,n=3 --workload pattern:name=bisect --fp-confidence 0"
	"--gen kary:k=4,n=3 --workload pingpong:iters=20,peer=17 --background random:msgs=3,gbps=20 --alloc parity"
	"--gen kary:k=4,n=3 --workload random:msgs=5,closed=true,gap=2us --window 50us --seed 3"
	"--gen kary:k=4,n=3 --workload saturation:msgs=20 --buffers counting:alpha=0.5 --max-time 100us"
	"--gen kary:k=4,n=3 --workload saturation:msgs=20,hot=2 --buffers hashed:j=2 --max-time 100us --buffer 8"
	"--gen kary:k=4,n=3 --workload saturation:msgs=20,stop=0 --buffers bypass"
	"--gen kary:k=4,n=3 --workload ring:closed=true,iters=4 --buffers fifo --outq 2 --buffer 2 --mtu 2048"
	"--gen kary:k=4,n=3 --workload alltoall:iters=1 --routing adaptive"
	"--gen dragonfly:a=4,h=2,p=2 --global-latency 300ns --workload barrier:iters=5 --background random:msgs=5,size=65536 --alloc interleaved --background-routing adaptive --scheme none"
	"--gen dragonfly:a=4,h=2,p=2 --workload barrier:iters=5 --background random:msgs=5 --alloc interleaved --compare-routing static;adaptive;adaptive:mode=imb;adaptive:mode=low;adaptive:mode=high;adaptive:mode=app"
	"--gen kary:k=4,n=3 --workload alltoall:iters=1 --routing adaptive:mode=app --background allreduce:iters=3 --hosts 32"
	"--gen kary:k=4,n=3 --workload naive-reduce:arrays=5 --seeds 1-4 --diagnose-truth"
	"--topo $ib/rates/rates.net --lfts $ib/rates/minhop/opensm-lfts.dump --workload naive-reduce:arrays=5 --window 10us"
	"--topo $ib/ft16/ft16.net --lfts $ib/ft16/minhop-lmc1/opensm-lfts.dump --lmc-spread --workload random:msgs=5 --scheme onebit --restrict all"
)

# run BINARY DIR ARGS...: the command's outputs in DIR, times left out.
run() {
	local bin=$1 dir=$2
	shift 2
	local files=(--json run.json --csv run.csv --messages msgs.csv --svg plot)
	if [[ " $* " == *" --compare-routing "* ]]; then
		files=() # one table of several runs: no files
	fi
	mkdir -p "$dir"
	(cd "$dir" && "$bin" samplingsim "$@" "${files[@]}" >out.txt 2>err.txt
		echo "exit $?" >>err.txt)
	sed -i -E 's/ in [0-9.]+ s wall, [0-9.]+ s CPU.*$//; s/[0-9.]+ M packet-hops per (CPU|wall) s[^,;]*//g' "$dir/out.txt"
	[ -f "$dir/run.json" ] && sed -i -E '/"(wall_s|cpu_s)":/d' "$dir/run.json"
	true
}
for i in "${!cmds[@]}"; do
	# shellcheck disable=SC2206
	args=(${cmds[$i]})
	if [[ ${cmds[$i]} == *--compare-routing* ]]; then # its SPECS hold no blanks
		args=(${cmds[$i]%% --compare-routing *} --compare-routing "${cmds[$i]##* --compare-routing }")
	fi
	run "$old" "$tmp/$i/old" "${args[@]}"
	run "$new" "$tmp/$i/new" "${args[@]}"
	n=$(find "$tmp/$i/old" -type f | wc -l)
	compare "$i" "$n files, $(tail -1 "$tmp/$i/old/err.txt")" "${cmds[$i]//$ib/testdata/ib}"
done
exit $fail
