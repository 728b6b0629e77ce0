#!/usr/bin/env bash
# orcs whatif: the fail-in-place tables and the random sweep of
# doc/whatif.md. Run from anywhere:
#
#	bash bench/whatif.sh [SPEC [OUTDIR]]
#
# SPEC is the generated fabric (default kary:k=8,n=3: 512 hosts, 192
# switches, 1 536 cables, the must-show fabric). Each job keeps one ibsim
# and OpenSM per engine running (COLD=1 passes --cold: a fresh pair per
# set, for comparison); SHARD=I/N routes only that shard of each-link
# (--shard, e.g. 0/32 for a sample). It writes OUTDIR/each-link.json
# (every single cable with ftree, minhop, dfsssp), OUTDIR/random.json
# (K = 1, 2, 4, 8, 16, 32 random cables, 10 trials each, per engine), their
# text tables, OUTDIR/random.svg (bandwidth kept vs K) and the wall time
# and CPU time (orcs with every ibsim and OpenSM it ran) of each step. On
# several machines, split the sets with --shard I/N (one job each) and join
# the JSON files with orcs merge.
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-kary:k=8,n=3}
out=${2:-whatif-out}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/orcs" ./orcs
engines=ftree,minhop,dfsssp
jobs=$(nproc)
cold=()
[ "${COLD:-}" = 1 ] && cold=(--cold)
shard=()
[ -n "${SHARD:-}" ] && shard=(--shard "$SHARD")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# timed runs the command and writes the CPU seconds of it and of the
# processes it waited for (orcs, every ibsim and OpenSM) to "$out/$1.cpu".
timed() {
	local name=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$out/$name.cpu" "$@"
	else
		"$@"
		echo "? ?" >"$out/$name.cpu"
	fi
}
cpu() { awk '{ printf "CPU %.1f s (user %s s, sys %s s)", $1 + $2, $1, $2 }' "$out/$1.cpu"; }

t0=$(date +%s)
timed each-link "$tmp/orcs" whatif "gen:$spec" --engine "$engines" --fail each-link --jobs "$jobs" "${cold[@]}" "${shard[@]}" --format json -o "$out/each-link.json"
t1=$(date +%s)
"$tmp/orcs" merge "$out/each-link.json" --format text -o "$out/each-link.txt"
echo "each-link: $((t1 - t0)) s on $jobs cores, $(cpu each-link), load after $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/each-link.time"

timed random "$tmp/orcs" whatif "gen:$spec" --engine "$engines" --trials 10 --seed 1 --jobs "$jobs" "${cold[@]}" \
	--fail random:1 --fail random:2 --fail random:4 --fail random:8 --fail random:16 --fail random:32 \
	--format json -o "$out/random.json" --plot "$out/random.svg"
t2=$(date +%s)
"$tmp/orcs" merge "$out/random.json" --format text -o "$out/random.txt"
echo "random sweep: $((t2 - t1)) s on $jobs cores, $(cpu random), load after $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/random.time"
