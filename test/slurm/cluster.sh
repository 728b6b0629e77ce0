#!/usr/bin/env bash
# A real single-node Slurm cluster for integration tests, started by hand
# (no systemd). Must run as root; the packages come from install.sh.
#
#   cluster.sh start    start munged, slurmctld and slurmd; wait for an idle node
#   cluster.sh stop     cancel jobs, stop the daemons this script started
#   cluster.sh status   show daemons and node state (exit 0 when usable)
#
# Environment:
#   SLURM_TEST_CPUS            CPUs of the node (default: max(nproc, 4))
#   SLURM_TEST_START_TIMEOUT   seconds to wait for each start step (default 60)
set -euo pipefail

SLURM_CONF=/etc/slurm/slurm.conf
MUNGE_KEY=/etc/munge/munge.key
MUNGE_RUN=/run/munge
MUNGE_PIDFILE=$MUNGE_RUN/munged.pid
SLURM_RUN=/run/slurm
SLURM_LOG=/var/log/slurm
CTLD_SPOOL=/var/spool/slurmctld
SLURMD_SPOOL=/var/spool/slurmd
CTLD_PIDFILE=$SLURM_RUN/slurmctld.pid
SLURMD_PIDFILE=$SLURM_RUN/slurmd.pid
# Daemons started by this script, one "comm pid" per line.
STARTED=$SLURM_RUN/test-cluster.started
CONF_MARK="# written by test/slurm/cluster.sh"
START_TIMEOUT=${SLURM_TEST_START_TIMEOUT:-60}
STOP_GRACE=15

HOST=$(hostname -s)

log() { echo "cluster.sh: $*"; }
die() {
  echo "cluster.sh: ERROR: $*" >&2
  exit 1
}

need_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root"
}

# pid_alive PID COMM: true if PID runs a process whose /proc/PID/comm is COMM.
# A zombie (exited, not yet reaped by its parent, often init) counts as gone.
pid_alive() {
  local pid=$1 comm=$2 actual state
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  actual=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ $actual == "$comm" ]] || return 1
  state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || return 1
  [[ -n $state && $state != Z && $state != X ]]
}

# pid_from_file FILE: the PID in FILE, or nothing.
pid_from_file() {
  [[ -r $1 ]] || return 0
  tr -dc '0-9' <"$1"
}

# running COMM PIDFILE: print the live PID of COMM according to PIDFILE.
running() {
  local pid
  pid=$(pid_from_file "$2")
  if pid_alive "$pid" "$1"; then echo "$pid"; fi
}

# has_pid COMM PIDFILE: PIDFILE names a live COMM (re-read at every call).
has_pid() { [[ -n $(running "$1" "$2") ]]; }

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
ctld_ok() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
node_state() { sinfo -h -N -n "$HOST" -o '%T' 2>/dev/null | head -n1; }

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.5 s until it succeeds.
wait_for() {
  local secs=$1 what=$2
  shift 2
  local deadline=$((SECONDS + secs))
  until "$@"; do
    if ((SECONDS >= deadline)); then
      echo "cluster.sh: ERROR: timed out after ${secs}s waiting for $what" >&2
      return 1
    fi
    sleep 0.5
  done
}

record_started() { echo "$1 $2" >>"$STARTED"; }

show_log_tail() {
  local f=$1
  if [[ -r $f ]]; then
    echo "---- last lines of $f ----" >&2
    tail -n 30 "$f" >&2
  fi
}

write_conf() {
  local cpus mem_mb
  cpus=${SLURM_TEST_CPUS:-$(nproc)}
  ((cpus >= 4)) || cpus=4
  mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
  if [[ -e $SLURM_CONF ]] && ! grep -qF "$CONF_MARK" "$SLURM_CONF"; then
    log "keeping a copy of the existing $SLURM_CONF as $SLURM_CONF.orig"
    cp -p "$SLURM_CONF" "$SLURM_CONF.orig"
  fi
  install -d -m 0755 "$(dirname "$SLURM_CONF")"
  cat >"$SLURM_CONF.tmp" <<EOF
$CONF_MARK: single-node test cluster
ClusterName=orcstest
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
DependencyParameters=kill_invalid_depend
ReturnToService=2
MinJobAge=600
StateSaveLocation=$CTLD_SPOOL
SlurmdSpoolDir=$SLURMD_SPOOL
SlurmctldPidFile=$CTLD_PIDFILE
SlurmdPidFile=$SLURMD_PIDFILE
SlurmctldLogFile=$SLURM_LOG/slurmctld.log
SlurmdLogFile=$SLURM_LOG/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$HOST NodeAddr=127.0.0.1 NodeHostname=$HOST CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$SLURM_CONF.tmp" "$SLURM_CONF"
  chmod 0644 "$SLURM_CONF"
}

start_munge() {
  local pid
  pid=$(running munged "$MUNGE_PIDFILE")
  if [[ -n $pid ]] && munge_ok; then
    log "munged already running (pid $pid)"
    return 0
  fi
  [[ -r $MUNGE_KEY ]] || die "$MUNGE_KEY is missing (is munge installed? run install.sh)"
  install -d -o munge -g munge -m 0755 "$MUNGE_RUN"
  install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
  chown munge:munge "$MUNGE_KEY"
  chmod 0400 "$MUNGE_KEY"
  rm -f "$MUNGE_PIDFILE" "$MUNGE_RUN/munge.socket.2" "$MUNGE_RUN/munge.socket.2.lock"
  # As root munged refuses to start ("Logfile is insecure"): run it as munge.
  runuser -u munge -- /usr/sbin/munged ||
    {
      show_log_tail /var/log/munge/munged.log
      die "munged failed to start"
    }
  wait_for "$START_TIMEOUT" "munged pid file $MUNGE_PIDFILE" \
    has_pid munged "$MUNGE_PIDFILE" || {
    show_log_tail /var/log/munge/munged.log
    die "munged did not start"
  }
  record_started munged "$(running munged "$MUNGE_PIDFILE")"
  wait_for "$START_TIMEOUT" "munge credentials (munge -n | unmunge)" munge_ok || {
    show_log_tail /var/log/munge/munged.log
    die "munge does not work"
  }
  log "munged started (pid $(running munged "$MUNGE_PIDFILE"))"
}

start_slurmctld() {
  install -d -m 0755 "$SLURM_RUN" "$SLURM_LOG"
  install -d -m 0700 "$CTLD_SPOOL"
  rm -f "$CTLD_PIDFILE"
  # -c: fresh state (no jobs or node states from an earlier run).
  /usr/sbin/slurmctld -c || {
    show_log_tail "$SLURM_LOG/slurmctld.log"
    die "slurmctld failed to start"
  }
  wait_for "$START_TIMEOUT" "slurmctld pid file $CTLD_PIDFILE" \
    has_pid slurmctld "$CTLD_PIDFILE" || {
    show_log_tail "$SLURM_LOG/slurmctld.log"
    die "slurmctld did not start"
  }
  record_started slurmctld "$(running slurmctld "$CTLD_PIDFILE")"
  wait_for "$START_TIMEOUT" "slurmctld to answer 'scontrol ping'" ctld_ok || {
    show_log_tail "$SLURM_LOG/slurmctld.log"
    die "slurmctld does not answer"
  }
  log "slurmctld started (pid $(running slurmctld "$CTLD_PIDFILE"))"
}

start_slurmd() {
  install -d -m 0755 "$SLURMD_SPOOL"
  rm -f "$SLURMD_PIDFILE"
  /usr/sbin/slurmd -N "$HOST" || {
    show_log_tail "$SLURM_LOG/slurmd.log"
    die "slurmd failed to start"
  }
  wait_for "$START_TIMEOUT" "slurmd pid file $SLURMD_PIDFILE" \
    has_pid slurmd "$SLURMD_PIDFILE" || {
    show_log_tail "$SLURM_LOG/slurmd.log"
    die "slurmd did not start"
  }
  record_started slurmd "$(running slurmd "$SLURMD_PIDFILE")"
  log "slurmd started (pid $(running slurmd "$SLURMD_PIDFILE"))"
}

# node_usable: the node can run jobs (idle, or already running some).
node_usable() {
  case $(node_state) in
    idle | mixed | allocated) return 0 ;;
  esac
  return 1
}

# node_idle_or_resume: like node_usable, but resumes a down/drained node.
node_idle_or_resume() {
  node_usable && return 0
  case $(node_state) in
    down* | drain* | fail*)
      scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true
      ;;
  esac
  return 1
}

wait_node_idle() {
  wait_for "$START_TIMEOUT" "node $HOST to become idle" node_idle_or_resume || {
    echo "node state: '$(node_state)'" >&2
    scontrol show node "$HOST" >&2 || true
    show_log_tail "$SLURM_LOG/slurmd.log"
    show_log_tail "$SLURM_LOG/slurmctld.log"
    die "node $HOST is not usable"
  }
}

cluster_up() {
  [[ -n $(running munged "$MUNGE_PIDFILE") ]] &&
    [[ -n $(running slurmctld "$CTLD_PIDFILE") ]] &&
    [[ -n $(running slurmd "$SLURMD_PIDFILE") ]] &&
    munge_ok && ctld_ok && node_usable
}

# shellcheck disable=SC2317 # invoked by the trap
start_failed() {
  local rc=$?
  trap - EXIT
  echo "cluster.sh: start failed: stopping what was started" >&2
  cmd_stop quiet >&2 || true
  exit "$rc"
}

cmd_start() {
  need_root
  local b
  for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch; do
    [[ -x $b ]] || die "$b not found: run install.sh first"
  done
  if [[ -r $SLURM_CONF ]] && grep -qF "$CONF_MARK" "$SLURM_CONF" && cluster_up; then
    log "already running; node $HOST is $(node_state)"
    return 0
  fi
  # Clear any half-started leftovers of an earlier run.
  cmd_stop quiet
  install -d -m 0755 "$SLURM_RUN"
  local t0=$SECONDS
  # A failed start leaves nothing running behind it.
  trap start_failed EXIT
  start_munge
  write_conf
  start_slurmctld
  start_slurmd
  wait_node_idle
  trap - EXIT
  log "cluster up in $((SECONDS - t0))s: node $HOST $(node_state)," \
    "$(sinfo -h -N -n "$HOST" -o '%c') CPUs"
}

# stop_pid COMM PID: TERM, then KILL after STOP_GRACE seconds.
stop_pid() {
  local comm=$1 pid=$2 deadline
  pid_alive "$pid" "$comm" || return 0
  log "stopping $comm (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_GRACE))
  while pid_alive "$pid" "$comm"; do
    if ((SECONDS >= deadline)); then
      log "$comm (pid $pid) ignored TERM for ${STOP_GRACE}s: KILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
}

# started_pid COMM: the PID recorded for COMM when this script started it.
started_pid() {
  [[ -r $STARTED ]] || return 0
  awk -v c="$1" '$1 == c {p = $2} END {if (p != "") print p}' "$STARTED"
}

cmd_stop() {
  need_root
  local quiet=${1:-}
  # Cancel what is left while the controller is still there.
  if [[ -n $(running slurmctld "$CTLD_PIDFILE") ]] && ctld_ok; then
    local jobs
    jobs=$(squeue -h -o '%F' 2>/dev/null | sort -u | tr '\n' ' ')
    if [[ -n ${jobs// /} ]]; then
      log "cancelling remaining jobs: $jobs"
      # shellcheck disable=SC2086 # a list of job ids
      scancel --full --quiet $jobs 2>/dev/null || true
      local deadline=$((SECONDS + 10))
      while [[ -n $(squeue -h -t running,completing -o '%i' 2>/dev/null) ]] &&
        ((SECONDS < deadline)); do
        sleep 0.5
      done
    fi
  fi
  local comm pid stopped=0 gone=()
  for comm in slurmd slurmctld munged; do
    pid=$(started_pid "$comm")
    # The slurm daemons read this script's configuration, so those are ours
    # even if a crashed start did not record them; munged only if recorded.
    if [[ -z $pid ]] || ! pid_alive "$pid" "$comm"; then
      case $comm in
        slurmd) pid=$(running slurmd "$SLURMD_PIDFILE") ;;
        slurmctld) pid=$(running slurmctld "$CTLD_PIDFILE") ;;
        *) pid= ;;
      esac
    fi
    if [[ -n $pid ]] && pid_alive "$pid" "$comm"; then
      stop_pid "$comm" "$pid"
      stopped=$((stopped + 1))
      gone+=("$pid")
    fi
  done
  # Daemons are children of init: give it a moment to reap them, so that no
  # zombie of them is left in the process table either.
  local deadline=$((SECONDS + 10)) p left
  while ((${#gone[@]} > 0 && SECONDS < deadline)); do
    left=0
    for p in "${gone[@]}"; do [[ -e /proc/$p ]] && left=1; done
    ((left == 1)) || break
    sleep 0.2
  done
  rm -f "$STARTED"
  if [[ -z $quiet ]]; then
    if ((stopped == 0)); then log "nothing to stop"; else log "stopped"; fi
  fi
}

cmd_status() {
  local rc=0 comm pidfile pid
  for comm in munged slurmctld slurmd; do
    case $comm in
      munged) pidfile=$MUNGE_PIDFILE ;;
      slurmctld) pidfile=$CTLD_PIDFILE ;;
      slurmd) pidfile=$SLURMD_PIDFILE ;;
    esac
    pid=$(running "$comm" "$pidfile")
    if [[ -n $pid ]]; then
      echo "$comm: running (pid $pid)"
    else
      echo "$comm: not running"
      rc=3
    fi
  done
  if ((rc == 0)); then
    if ctld_ok; then
      sinfo -N -o '%N %T %c %m' || true
      squeue || true
      node_usable || rc=3
    else
      echo "slurmctld: not answering"
      rc=3
    fi
  fi
  return "$rc"
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
