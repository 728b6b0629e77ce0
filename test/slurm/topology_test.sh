#!/usr/bin/env bash
# Integration test: a real slurmctld reads what `orcs slurm-topology` writes.
#
#   topology_test.sh ORCS_BINARY
#
# Starts a private munged (own socket) and a private slurmctld (own ports,
# state and configuration in a temporary directory, no slurmd: the nodes
# need only exist in slurm.conf), so it runs beside a cluster of cluster.sh.
# For each generated fabric below it writes topology.conf with the tree
# plugin, starts slurmctld with TopologyPlugin=topology/tree and compares
# `scontrol show topology` with the lines derived by hand. The block plugin
# (topology/block, Slurm 23.11 and later) is tested the same way when the
# installed Slurm has it; Slurm 22.05 (Debian bookworm) has not, and the
# test says so. Must run as root (munged runs as the munge user).
set -euo pipefail

ORCS=${1:?usage: topology_test.sh ORCS_BINARY}
[[ $(id -u) -eq 0 ]] || { echo "topology_test.sh: must run as root" >&2; exit 2; }
ORCS=$(cd "$(dirname "$ORCS")" && pwd)/$(basename "$ORCS")
PLUGINS=$(dirname "$(find /usr/lib -name topology_tree.so -print -quit 2>/dev/null)")
[[ -n $PLUGINS ]] || { echo "topology_test.sh: no Slurm topology plugins (run test/slurm/install.sh)" >&2; exit 2; }

D=$(mktemp -d /tmp/orcs-slurmtest.XXXXXX)
chmod 755 "$D"
MUNGE_PID= CTLD_PID=
cleanup() {
  local rc=$?
  [[ -n $CTLD_PID ]] && kill "$CTLD_PID" 2>/dev/null && wait "$CTLD_PID" 2>/dev/null
  [[ -n $MUNGE_PID ]] && kill "$MUNGE_PID" 2>/dev/null
  if ((rc == 0)); then rm -rf "$D"; else echo "topology_test.sh: kept $D" >&2; fi
  exit $rc
}
trap cleanup EXIT

install -d -o munge -g munge -m 0700 "$D/munge"
runuser -u munge -- /usr/sbin/munged --foreground --force \
  --socket="$D/munge/munge.socket" --key-file=/etc/munge/munge.key \
  --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
  --seed-file="$D/munge/munged.seed" 2>"$D/munged.err" &
MUNGE_PID=$!
for _ in $(seq 100); do [[ -S $D/munge/munge.socket ]] && break; sleep 0.1; done
chmod 755 "$D/munge"

PORT=$((20000 + RANDOM % 20000))
mkdir -p "$D/etc" "$D/state"
export SLURM_CONF=$D/etc/slurm.conf

# run NAME PLUGIN NODES SPEC EXPECTED: topology.conf of gen:SPEC for PLUGIN
# (tree or block), slurm.conf with the nodes NODES, and scontrol's view.
run() {
  local name=$1 plugin=$2 nodelist=$3 spec=$4 expected=$5
  "$ORCS" slurm-topology --plugin "$plugin" -o "$D/etc/topology.conf" "gen:$spec"
  cat >"$SLURM_CONF" <<CONF
ClusterName=orcstopo
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket
CredType=cred/munge
SlurmUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmctldLogFile=$D/slurmctld-$name.log
SlurmctldDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
TopologyPlugin=topology/$plugin
NodeName=$nodelist NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES State=UP
CONF
  /usr/sbin/slurmctld -D -c -i >"$D/slurmctld-$name.out" 2>&1 &
  CTLD_PID=$!
  local ok=
  for _ in $(seq 150); do
    if scontrol ping 2>/dev/null | grep -q 'is UP'; then ok=1; break; fi
    kill -0 "$CTLD_PID" 2>/dev/null || break
    sleep 0.2
  done
  if [[ -z $ok ]]; then
    echo "FAIL $name: slurmctld did not come up; its log:" >&2
    cat "$D/slurmctld-$name.log" >&2
    exit 1
  fi
  local got
  got=$(scontrol show topology | sed 's/ *$//')
  kill "$CTLD_PID"; wait "$CTLD_PID" 2>/dev/null || true; CTLD_PID=
  if grep -Ei 'error|fatal' "$D/slurmctld-$name.log" | grep -Ei 'topolog|switch|block'; then
    echo "FAIL $name: slurmctld complained about the topology (above)" >&2
    exit 1
  fi
  if [[ $got != "$expected" ]]; then
    echo "FAIL $name: scontrol show topology" >&2
    diff <(echo "$expected") <(echo "$got") >&2 || true
    exit 1
  fi
  echo "ok   $name: scontrol show topology as derived by hand ($(echo "$got" | wc -l) switches)"
}

# Two units of 2 slots × 2 rails under 2 spines; svc01 on rail 0 of the
# last slot: dgx001-002 in unit su1, dgx003 and svc01 in su2, the spines
# (each linked to every leaf) one switch for Slurm.
run tree-2level tree 'dgx[001-003],svc01' 'rail:units=2,nodes=2,rails=2,service=1' \
"SwitchName=su1 Level=0 LinkSpeed=1 Nodes=dgx[001-002]
SwitchName=su2 Level=0 LinkSpeed=1 Nodes=dgx003,svc01
SwitchName=spine1 Level=1 LinkSpeed=1 Nodes=dgx[001-003],svc01 Switches=su[1-2]"

# Three levels: every unit has its own 2 spines (one group per unit), 2
# cores above both groups.
run tree-3level tree 'dgx[001-006]' 'rail:units=3,nodes=2,rails=2,up=2,spines=2,cores=2' \
"SwitchName=su1 Level=0 LinkSpeed=1 Nodes=dgx[001-002]
SwitchName=su2 Level=0 LinkSpeed=1 Nodes=dgx[003-004]
SwitchName=su3 Level=0 LinkSpeed=1 Nodes=dgx[005-006]
SwitchName=spine1 Level=1 LinkSpeed=1 Nodes=dgx[001-002] Switches=su1
SwitchName=spine2 Level=1 LinkSpeed=1 Nodes=dgx[003-004] Switches=su2
SwitchName=spine3 Level=1 LinkSpeed=1 Nodes=dgx[005-006] Switches=su3
SwitchName=core1 Level=2 LinkSpeed=1 Nodes=dgx[001-006] Switches=spine[1-3]"

if [[ -e $PLUGINS/topology_block.so ]]; then
  run block block 'dgx[001-003],svc01' 'rail:units=2,nodes=2,rails=2,service=1' \
"BlockName=su1 BlockIndex=0 Nodes=dgx[001-002] BlockSize=2
BlockName=su2 BlockIndex=1 Nodes=dgx003,svc01 BlockSize=2"
else
  echo "skip block: $(/usr/sbin/slurmctld -V) has no topology/block plugin (Slurm 23.11 and later); BlockName= lines are checked by TestSlurmTopologyBlock only"
fi
echo "topology_test.sh: all passed"
