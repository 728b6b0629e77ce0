#!/usr/bin/env bash
# Paired comparison of samplingsim's event-loop speed between the working
# tree and another revision, on a machine whose speed drifts (shared
# hosts): the two test binaries run in turn, three runs each per round, in
# alternating order, and the ratio of each round's medians is printed
# beside both sides' runs.
#
#	bash bench/samplingsim-ab.sh REV [BENCH] [ROUNDS]
#
# e.g. bash bench/samplingsim-ab.sh HEAD~1 BenchmarkRandom10648None 8
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: samplingsim-ab.sh REV [BENCH] [ROUNDS]}
bench=${2:-BenchmarkRandom10648None}
rounds=${3:-6}

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/old" "$rev" >/dev/null
(cd "$tmp/old" && go test -c -o "$tmp/old.test" ./samplingsim)
go test -c -o "$tmp/new.test" ./samplingsim

# run SIDE: three runs of the benchmark, M packet-hops per CPU second.
run() {
	"$tmp/$1.test" -test.run '^$' -test.bench "$bench\$" -test.benchtime 1x -test.count 3 |
		awk '{for (i = 2; i <= NF; i++) if ($i == "hops/cpu-s") printf "%.2f\n", $(i-1) / 1e6}'
}
for r in $(seq "$rounds"); do
	order="old new"
	if ((r % 2 == 0)); then order="new old"; fi
	for side in $order; do
		run "$side" | tee -a "$tmp/$side.all" | sort -n | awk 'NR == 2' >"$tmp/$side.round"
	done
	paste "$tmp/old.round" "$tmp/new.round" >>"$tmp/rounds"
done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "$bench, $rounds rounds, M packet-hops per CPU second of the loop's thread"
for side in old new; do
	printf '%s (%s): median %s; runs %s\n' "$side" "$([ "$side" = old ] && echo "$rev" || echo "working tree")" \
		"$(median <"$tmp/$side.all")" "$(sort -n "$tmp/$side.all" | tr '\n' ' ')"
done
awk '{printf "%.2f\n", $2 / $1}' "$tmp/rounds" >"$tmp/ratios"
printf 'new/old per round: %s; median %s\n' "$(tr '\n' ' ' <"$tmp/ratios")" "$(median <"$tmp/ratios")"
