#!/usr/bin/env bash
# Integration test: sharded orcs runs on a real single-node Slurm cluster.
#
#   shards_test.sh ORCS_BINARY FABRIC
#
# For each configuration below it
#   1. runs the unsplit `orcs ARGS -o full.out` directly,
#   2. submits `sbatch --array=0-(N-1)` whose task i runs
#      `orcs ARGS --shard i/N -o shard-i.json`,
#   3. submits `sbatch --dependency=afterok:<array job>` running
#      `orcs merge [--format F] -o merged.out shard-*.json`,
#   4. waits for both, checks every job COMPLETED with ExitCode 0:0, and
#      that merged.out is byte-identical to full.out.
# One configuration is submitted as the unprivileged user `nobody`.
#
# Starts the cluster itself (cluster.sh start) and stops it on exit, also on
# failure. Must run as root, after install.sh.
#
# Environment:
#   SLURM_TEST_JOB_TIMEOUT   seconds to wait for one configuration's jobs (default 120)
#   SLURM_TEST_KEEP          1: keep the work directories even on success
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$SCRIPT_DIR/cluster.sh
SHARDS=3
JOB_TIMEOUT=${SLURM_TEST_JOB_TIMEOUT:-120}
RUN_USER=nobody

# name | submitting user | output format ("" = default text) | orcs arguments
CONFIGS=(
  "bisect-text|root||--ptrn bisect_fb_sym --metric hist_acc_band -n 300 --seed 7"
  "tree-subset-text|$RUN_USER||--ptrn tree --metric sum_max_cong -n 200 --seed 11 --subset rand -s 12"
  "bisect-json|root|json|--ptrn bisect_fb_sym --metric hist_acc_band -n 300 --seed 7"
  "tree-bfs-csv|root|csv|--ptrn tree --metric sum_max_cong -n 100 --seed 3 --subset linear_bfs -s 8"
  "whatif-text|root||whatif --engine minhop --fail random:2 --trials 6 -n 20 --seed 3 --jobs 1"
)

usage() {
  echo "usage: $0 ORCS_BINARY FABRIC" >&2
  exit 2
}

[[ $# -eq 2 ]] || usage
[[ $(id -u) -eq 0 ]] || {
  echo "shards_test.sh: must run as root (it starts the Slurm daemons)" >&2
  exit 2
}

ORCS=$1
FABRIC=$2
[[ -f $ORCS && -x $ORCS ]] || {
  echo "shards_test.sh: ORCS_BINARY '$ORCS' is not an executable file" >&2
  exit 2
}
[[ -e $FABRIC ]] || {
  echo "shards_test.sh: FABRIC '$FABRIC' does not exist" >&2
  exit 2
}
ORCS=$(cd "$(dirname "$ORCS")" && pwd)/$(basename "$ORCS")
FABRIC=$(cd "$(dirname "$FABRIC")" && pwd)/$(basename "$FABRIC")

ROOT=$(mktemp -d /tmp/orcs-slurm-test.XXXXXX)
chmod 0755 "$ROOT"
finished=0

# finish RC: stop the cluster, tidy up; returns non-zero if anything failed.
finish() {
  local rc=$1
  bash "$CLUSTER" stop || rc=1
  if [[ $rc -eq 0 && ${SLURM_TEST_KEEP:-0} != 1 ]]; then
    rm -rf "$ROOT"
  else
    echo "shards_test.sh: work directories kept in $ROOT"
  fi
  finished=1
  return "$rc"
}

# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  trap '' PIPE # still stop the cluster if our output is gone
  # A signal may arrive inside a redirected function: report to the real outputs.
  exec 1>&3 2>&4
  if [[ $finished -eq 0 ]]; then
    ((rc != 0)) || rc=1
    finish "$rc" || true
    echo "shards_test.sh: aborted"
  fi
  exit "$rc"
}
exec 3>&1 4>&2 # the script's own stdout/stderr, for cleanup
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Jobs of $RUN_USER must be able to run orcs and read the fabric: if they
# cannot where they are, use copies in a world-readable directory.
as_run_user() { runuser -u "$RUN_USER" -- "$@"; }
if ! as_run_user test -x "$ORCS"; then
  install -d -m 0755 "$ROOT/bin"
  install -m 0755 "$ORCS" "$ROOT/bin/orcs"
  ORCS=$ROOT/bin/orcs
fi
if ! as_run_user test -r "$FABRIC"; then
  install -d -m 0755 "$ROOT/fabric"
  cp -r "$FABRIC" "$ROOT/fabric/"
  chmod -R a+rX "$ROOT/fabric"
  FABRIC=$ROOT/fabric/$(basename "$FABRIC")
fi

t_all=$SECONDS
bash "$CLUSTER" start

# quote WORDS...: the words as one shell-quoted command line.
quote() { printf '%q ' "$@"; }

# active_jobs IDS: ids (comma-separated) still pending or running.
active_jobs() {
  squeue -h -j "$1" -t PENDING,RUNNING,COMPLETING,CONFIGURING,SUSPENDED,REQUEUED,RESIZING,SIGNALING,STAGE_OUT \
    -o '%i' 2>/dev/null || true
}

# show_jobs DIR IDS...: everything useful about jobs, for failure reports.
show_jobs() {
  local dir=$1 id f
  shift
  for id in "$@"; do
    echo "---- scontrol show job $id ----"
    scontrol show job "$id" 2>&1 || true
  done
  for f in "$dir"/slurm-*; do
    [[ -e $f ]] || continue
    echo "---- $(basename "$f") ($(wc -l <"$f") lines, last 40) ----"
    tail -n 40 "$f" || true
  done
}

# check_job ID EXPECTED_RECORDS: every record COMPLETED with ExitCode 0:0.
check_job() {
  local id=$1 want=$2 out n bad
  out=$(scontrol -o show job "$id" 2>&1) || {
    echo "scontrol show job $id failed: $out"
    return 1
  }
  n=$(grep -c 'JobState=' <<<"$out" || true)
  if [[ $n -ne $want ]]; then
    echo "job $id has $n records, expected $want"
    return 1
  fi
  bad=$(grep -v -E 'JobState=COMPLETED .*ExitCode=0:0( |$)' <<<"$out" || true)
  if [[ -n $bad ]]; then
    echo "job $id did not complete cleanly:"
    grep -o -E '(^|[[:space:]])(JobId|ArrayTaskId|JobState|Reason|ExitCode)=[^[:space:]]+' \
      <<<"$bad" | paste -sd' ' || true
    return 1
  fi
}

# run_config NAME USER FORMAT ARGS: one full-vs-sharded comparison.
# Prints the reason and returns 1 on failure.
run_config() {
  local name=$1 user=$2 format=$3 argstr=$4
  local dir=$ROOT/$name args fmt_args=() submit=() wrap array_id merge_id deadline ids i f
  # shellcheck disable=SC2206 # the configured arguments are plain words
  args=($argstr -i "$FABRIC")
  [[ -n $format ]] && fmt_args=(--format "$format")

  mkdir -p "$dir"
  chmod 0777 "$dir"
  [[ $user == root ]] || submit=(runuser -u "$user" --)

  # 1. the unsplit run
  local t_start=$SECONDS t_full
  if ! "$ORCS" "${args[@]}" "${fmt_args[@]}" -o "$dir/full.out" >"$dir/full.log" 2>&1; then
    echo "unsplit run failed: $(quote "$ORCS" "${args[@]}" "${fmt_args[@]}")"
    tail -n 20 "$dir/full.log"
    return 1
  fi
  [[ -s $dir/full.out ]] || {
    echo "unsplit run wrote an empty full.out"
    return 1
  }

  t_full=$((SECONDS - t_start))

  # 2. the shards as a job array
  wrap="$(quote "$ORCS" "${args[@]}" "${fmt_args[@]}")--shard \"\$SLURM_ARRAY_TASK_ID/$SHARDS\" -o \"shard-\$SLURM_ARRAY_TASK_ID.json\""
  if ! array_id=$("${submit[@]}" sbatch --parsable --job-name="orcs-$name" \
    --array="0-$((SHARDS - 1))" --chdir="$dir" \
    --output="$dir/slurm-%A_%a.out" --error="$dir/slurm-%A_%a.err" \
    --wrap "$wrap" 2>"$dir/sbatch-array.err"); then
    echo "sbatch of the shard array failed: $(cat "$dir/sbatch-array.err")"
    return 1
  fi
  array_id=${array_id%%;*}

  # 3. the merge, once every shard succeeded
  local shard_files=()
  for ((i = 0; i < SHARDS; i++)); do shard_files+=("shard-$i.json"); done
  wrap=$(quote "$ORCS" merge "${fmt_args[@]}" -o merged.out "${shard_files[@]}")
  if ! merge_id=$("${submit[@]}" sbatch --parsable --job-name="orcs-$name-merge" \
    --dependency="afterok:$array_id" --chdir="$dir" \
    --output="$dir/slurm-%j.out" --error="$dir/slurm-%j.err" \
    --wrap "$wrap" 2>"$dir/sbatch-merge.err"); then
    echo "sbatch of the merge job failed: $(cat "$dir/sbatch-merge.err")"
    scancel "$array_id" 2>/dev/null || true
    return 1
  fi
  merge_id=${merge_id%%;*}

  # 4. wait, bounded
  deadline=$((SECONDS + JOB_TIMEOUT))
  while ids=$(active_jobs "$array_id,$merge_id") && [[ -n $ids ]]; do
    if ((SECONDS >= deadline)); then
      echo "jobs still not done after ${JOB_TIMEOUT}s: $(paste -sd' ' <<<"$ids")"
      squeue -j "$array_id,$merge_id" || true
      show_jobs "$dir" "$array_id" "$merge_id"
      scancel "$array_id" "$merge_id" 2>/dev/null || true
      return 1
    fi
    sleep 0.5
  done

  local ok=1
  check_job "$array_id" "$SHARDS" || ok=0
  check_job "$merge_id" 1 || ok=0
  if ((ok == 0)); then
    show_jobs "$dir" "$array_id" "$merge_id"
    return 1
  fi
  for f in "${shard_files[@]}"; do
    [[ -s $dir/$f ]] || {
      echo "shard file $f missing or empty"
      return 1
    }
  done
  if ! cmp "$dir/full.out" "$dir/merged.out"; then
    echo "merged.out differs from full.out:"
    diff "$dir/full.out" "$dir/merged.out" | head -n 20 || true
    return 1
  fi
  echo "unsplit ${t_full}s, array+merge $((SECONDS - t_start - t_full))s"
}

passed=0
failed=0
for cfg in "${CONFIGS[@]}"; do
  IFS='|' read -r name user format argstr <<<"$cfg"
  t0=$SECONDS
  # Run in this shell (not a subshell), so that a signal stops it at once.
  report=$ROOT/$name.report
  if run_config "$name" "$user" "$format" "$argstr" >"$report" 2>&1; then
    passed=$((passed + 1))
    echo "PASS $name (as $user, ${format:-text}, $SHARDS shards; $(tail -n1 "$report"))"
  else
    failed=$((failed + 1))
    echo "FAIL $name (as $user, ${format:-text}, $SHARDS shards; $((SECONDS - t0))s)"
    while IFS= read -r line; do echo "    $line"; done <"$report"
  fi
done

rc=0
((failed == 0)) || rc=1
finish "$rc" || rc=1
echo "shards_test.sh: total $((SECONDS - t_all))s"
echo "$passed passed, $failed failed"
exit "$rc"
