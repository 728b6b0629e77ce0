#!/usr/bin/env bash
# Integration test: a real slurmctld reads what `orcs slurm-topology` writes.
#
#   topology_test.sh ORCS_BINARY
#
# Three Slurms, each reading the files of the Slurm versions that read them:
#   - the machine's own (Debian bookworm, Slurm 22.05): topology.conf for
#     topology/tree;
#   - Debian trixie's (Slurm 24.11), under chroot from
#     /var/lib/orcs-test/slurm-trixie: topology.conf for topology/tree and
#     topology/block;
#   - Debian forky's (Slurm 25.05 or later), under chroot from
#     /var/lib/orcs-test/slurm-forky: topology.yaml (tree, block and flat
#     in one file) and topology.conf for topology/block.
# test/slurm/install.sh installs all three (debian-slurm.sh the two chroot
# trees). For each case it writes the file for a generated rail fabric,
# starts a private slurmctld (own munged socket, ports, state and
# configuration in a temporary directory, no slurmd: the nodes need only
# exist in slurm.conf; so it runs beside a cluster of cluster.sh) and
# compares `scontrol show topology` with lines derived by hand (see the
# comments at each case). A Slurm that is not installed is skipped, and the
# test says why. Must run as root (chroot, munged as the munge user).
set -euo pipefail

ORCS=${1:?usage: topology_test.sh ORCS_BINARY}
[[ $(id -u) -eq 0 ]] || { echo "topology_test.sh: must run as root" >&2; exit 2; }
ORCS=$(cd "$(dirname "$ORCS")" && pwd)/$(basename "$ORCS")
TRIXIE=${ORCS_SLURM_TRIXIE:-/var/lib/orcs-test/slurm-trixie}
FORKY=${ORCS_SLURM_FORKY:-/var/lib/orcs-test/slurm-forky}

ROOT= D= P= MUNGE_PID= CTLD_PID= PORT= SLURM_NAME=
KEEP=()
cleanup() {
  local rc=$?
  stop_slurm
  if ((rc != 0)) && [[ -n $D ]]; then KEEP+=("$D"); fi
  ((${#KEEP[@]} == 0)) || echo "topology_test.sh: kept ${KEEP[*]}" >&2
  exit $rc
}
trap cleanup EXIT

# use_slurm NAME [ROOT]: the next cases run the Slurm under chroot ROOT
# (none: the machine's). D is the work directory as this shell sees it, P
# the same directory as Slurm sees it.
use_slurm() {
  stop_slurm
  SLURM_NAME=$1 ROOT=${2:-}
  D=$(mktemp -d "$ROOT/tmp/orcs-slurmtest.XXXXXX")
  P=${D#"$ROOT"}
  chmod 755 "$D"
  install -d -o munge -g munge -m 0700 "$D/munge"
  # setpriv execs munged (runuser would stay its parent, and may outlive a
  # TERM by minutes), so MUNGE_PID is munged's own.
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --foreground --force \
    --socket="$D/munge/munge.socket" --key-file=/etc/munge/munge.key \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
    --seed-file="$D/munge/munged.seed" 2>"$D/munged.err" &
  MUNGE_PID=$!
  for _ in $(seq 100); do [[ -S $D/munge/munge.socket ]] && break; sleep 0.1; done
  chmod 755 "$D/munge"
  PORT=$((20000 + RANDOM % 20000))
  mkdir -p "$D/etc" "$D/state"
  export SLURM_CONF=$P/etc/slurm.conf
  echo "---- $SLURM_NAME: $(slurm slurmctld -V)${ROOT:+ (chroot $ROOT)}"
}

# stop_slurm: stops this Slurm's munged and removes its work directory.
stop_slurm() {
  # (|| true: errexit holds in the EXIT trap too, and a slurmctld that
  # died on a bad file is no longer there to kill)
  if [[ -n $CTLD_PID ]]; then kill "$CTLD_PID" 2>/dev/null || true; wait "$CTLD_PID" 2>/dev/null || true; fi
  if [[ -n $MUNGE_PID ]]; then kill "$MUNGE_PID" 2>/dev/null || true; wait "$MUNGE_PID" 2>/dev/null || true; fi
  CTLD_PID= MUNGE_PID=
  [[ -n $D ]] && rm -rf "$D"
  D=
}

# slurm PROGRAM ARGS…: runs a Slurm program of the current Slurm.
slurm() {
  local prog=$1
  shift
  local dir=/usr/bin
  [[ $prog == slurmctld ]] && dir=/usr/sbin
  if [[ -z $ROOT ]]; then
    "$dir/$prog" "$@"
  else
    chroot "$ROOT" "$dir/$prog" "$@"
  fi
}

# start_ctld: slurmctld in the foreground, in the background of this shell.
# Under chroot it gets /proc and /dev in a private mount namespace (its
# slurmscriptd needs them), gone when it exits.
start_ctld() {
  if [[ -z $ROOT ]]; then
    /usr/sbin/slurmctld -D -c -i >"$D/slurmctld.out" 2>&1 &
  else
    unshare -m --propagation private sh -c \
      'mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" && exec chroot "$1" /usr/sbin/slurmctld -D -c -i' \
      sh "$ROOT" >"$D/slurmctld.out" 2>&1 &
  fi
  CTLD_PID=$!
}

# run NAME FILE PLUGIN NODES SPEC EXCLUDE QUERIES EXPECTED: writes FILE
# (topology.conf or topology.yaml) of gen:SPEC without the nodes EXCLUDE,
# starts slurmctld with TopologyPlugin=topology/PLUGIN (none for
# topology.yaml) and the nodes NODES in slurm.conf, and compares the output
# of `scontrol show topology Q` for each Q of QUERIES (space separated, "-"
# for none; "topoconf": the topology names, cluster_default and flat lines
# of `scontrol show topoconf`), each after a line "# Q", with EXPECTED.
run() {
  local name=$1 file=$2 plugin=$3 nodelist=$4 spec=$5 exclude=$6 queries=$7 expected=$8
  local args=(slurm-topology -o "$D/etc/$file" "gen:$spec")
  [[ -n $exclude ]] && args+=(--exclude "$exclude")
  case $file in
  topology.yaml) args+=(--format yaml) ;;
  *) args+=(--plugin "$plugin") ;;
  esac
  rm -f "$D/etc/topology.conf" "$D/etc/topology.yaml" # topology.yaml wins over topology.conf
  "$ORCS" "${args[@]}" 2>"$D/orcs.err" || { cat "$D/orcs.err" >&2; echo "FAIL $SLURM_NAME $name: orcs ${args[*]}" >&2; exit 1; }
  local topo="TopologyPlugin=topology/$plugin"
  [[ $file == topology.yaml ]] && topo="# topology.yaml names the plugins"
  rm -rf "$D/state" && mkdir -p "$D/state"
  cat >"$D/etc/slurm.conf" <<CONF
ClusterName=orcstopo
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$P/munge/munge.socket
CredType=cred/munge
SlurmUser=root
StateSaveLocation=$P/state
SlurmdSpoolDir=$P/spool
SlurmctldPidFile=$P/slurmctld.pid
SlurmctldLogFile=$P/slurmctld-$name.log
SlurmctldDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MailProg=/usr/bin/true
$topo
NodeName=$nodelist NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES State=UP
CONF
  start_ctld
  local ok=
  for _ in $(seq 150); do
    if slurm scontrol ping 2>/dev/null | grep -q 'is UP'; then ok=1; break; fi
    kill -0 "$CTLD_PID" 2>/dev/null || break
    sleep 0.2
  done
  if [[ -z $ok ]]; then
    echo "FAIL $SLURM_NAME $name: slurmctld did not come up; its output and log:" >&2
    cat "$D/slurmctld.out" "$D/slurmctld-$name.log" >&2
    exit 1
  fi
  local got= q
  for q in $queries; do
    case $q in
    -) got+="# -"$'\n'"$(slurm scontrol show topology 2>&1 | sed 's/ *$//')"$'\n' ;;
    topoconf) # the topologies read, their defaults and which is flat
      got+="# topoconf"$'\n'"$(slurm scontrol show topoconf 2>&1 | grep -E '^- topology: |^  cluster_default: |^  flat: true')"$'\n' ;;
    *) got+="# $q"$'\n'"$(slurm scontrol show topology "$q" 2>&1 | sed 's/ *$//')"$'\n' ;;
    esac
  done
  got=${got%$'\n'}
  kill "$CTLD_PID" 2>/dev/null || true; wait "$CTLD_PID" 2>/dev/null || true; CTLD_PID=
  if grep -Ei 'error|fatal|warn' "$D/slurmctld-$name.log" | grep -Ei 'topo|switch|block|yaml'; then
    echo "FAIL $SLURM_NAME $name: slurmctld complained about the topology (above)" >&2
    exit 1
  fi
  if [[ $got != "$expected" ]]; then
    echo "FAIL $SLURM_NAME $name: scontrol show topology (< expected, > got)" >&2
    diff <(echo "$expected") <(echo "$got") >&2 || true
    exit 1
  fi
  echo "ok   $SLURM_NAME $name: scontrol show topology as derived by hand ($(grep -vc '^#' <<<"$got") lines)"
}

passed=0 skipped=()

# The fabrics. RAIL2: two units of 2 slots × 2 rails under 2 spines; svc01
# on rail 0 of the last slot: dgx001-002 in unit su1, dgx003 and svc01 in
# su2, the spines (each linked to every leaf) one switch for Slurm.
RAIL2='rail:units=2,nodes=2,rails=2,service=1'
# RAIL3: three units of 3 slots × 2 rails under 3 spines; service=2 puts
# svc01 and svc02 on rails 0 and 1 of the last slot of su3, so su3 holds
# dgx007, dgx008, svc01, svc02; with --exclude 'svc02,dgx005' (a management
# node and a broken one): su1 = dgx[001-003], su2 = dgx[004,006],
# su3 = dgx[007-008],svc01.
RAIL3='rail:units=3,nodes=3,rails=2,service=2'
RAIL3_NODES='dgx[001-004,006-008],svc01'
RAIL3_EXCLUDE='svc02,dgx005'
# TREE3: three levels, every unit has its own 2 spines (one group per
# unit), 2 cores above both groups.
TREE3='rail:units=3,nodes=2,rails=2,up=2,spines=2,cores=2'
# RAIL2_TREE and TREE3_TREE: the topology.conf of RAIL2 and TREE3 with
# Slurm's topology/tree, the same on Slurm 22.05 and 24.11 (Level and
# LinkSpeed, 1: none given, on every switch; an upper switch lists every
# node below it).
RAIL2_TREE="# -
SwitchName=su1 Level=0 LinkSpeed=1 Nodes=dgx[001-002]
SwitchName=su2 Level=0 LinkSpeed=1 Nodes=dgx003,svc01
SwitchName=spine1 Level=1 LinkSpeed=1 Nodes=dgx[001-003],svc01 Switches=su[1-2]"
TREE3_TREE="# -
SwitchName=su1 Level=0 LinkSpeed=1 Nodes=dgx[001-002]
SwitchName=su2 Level=0 LinkSpeed=1 Nodes=dgx[003-004]
SwitchName=su3 Level=0 LinkSpeed=1 Nodes=dgx[005-006]
SwitchName=spine1 Level=1 LinkSpeed=1 Nodes=dgx[001-002] Switches=su1
SwitchName=spine2 Level=1 LinkSpeed=1 Nodes=dgx[003-004] Switches=su2
SwitchName=spine3 Level=1 LinkSpeed=1 Nodes=dgx[005-006] Switches=su3
SwitchName=core1 Level=2 LinkSpeed=1 Nodes=dgx[001-006] Switches=spine[1-3]"

if [[ -x /usr/sbin/slurmctld ]] && [[ -e $(dirname "$(find /usr/lib -name topology_tree.so -print -quit 2>/dev/null)")/topology_tree.so ]]; then
  use_slurm bookworm
  # Slurm 22.05 prints Level and LinkSpeed (1: none given) on every switch
  # and, for an upper switch, every node below it.
  run tree-2level topology.conf tree 'dgx[001-003],svc01' "$RAIL2" '' - "$RAIL2_TREE"
  run tree-3level topology.conf tree 'dgx[001-006]' "$TREE3" '' - "$TREE3_TREE"
  passed=$((passed + 2))
else
  skipped+=("bookworm: no slurmctld with topology/tree on this machine (run test/slurm/install.sh): the Slurm 22.05 tree not checked")
fi
stop_slurm

# chroot_slurm ROOT: why the Slurm under ROOT cannot run (nothing: it can).
chroot_slurm() {
  if [[ ! -x $1/usr/sbin/slurmctld ]]; then
    echo "not installed in $1 (run test/slurm/install.sh)"
  elif ! unshare -m --propagation private sh -c "mount -t proc proc '$1/proc'" 2>/dev/null; then
    echo "cannot mount /proc in a private mount namespace here (unshare -m), which its slurmctld needs"
  fi
}
# slurm_version ROOT: the x.y.z of the Slurm under ROOT.
slurm_version() { chroot "$1" /usr/sbin/slurmctld -V 2>/dev/null | awk '{ print $2 }'; }

why=$(chroot_slurm "$TRIXIE")
[[ -n $why || -e $TRIXIE/usr/lib/x86_64-linux-gnu/slurm-wlm/topology_block.so ]] ||
  why="its Slurm $(slurm_version "$TRIXIE") has no topology/block plugin"
if [[ -z $why ]]; then
  use_slurm trixie "$TRIXIE"
  # Slurm 24.11 prints the tree as 22.05 does.
  run tree-2level topology.conf tree 'dgx[001-003],svc01' "$RAIL2" '' - "$RAIL2_TREE"
  run tree-exclude topology.conf tree "$RAIL3_NODES" "$RAIL3" "$RAIL3_EXCLUDE" - \
"# -
SwitchName=su1 Level=0 LinkSpeed=1 Nodes=dgx[001-003]
SwitchName=su2 Level=0 LinkSpeed=1 Nodes=dgx[004,006]
SwitchName=su3 Level=0 LinkSpeed=1 Nodes=dgx[007-008],svc01
SwitchName=spine1 Level=1 LinkSpeed=1 Nodes=dgx[001-004,006-008],svc01 Switches=su[1-3]"
  run tree-3level topology.conf tree 'dgx[001-006]' "$TREE3" '' - "$TREE3_TREE"
  # Blocks: each unit with its index and the base size (BlockSizes' first,
  # the smallest unit), then Slurm's aggregated blocks of 2, 4, … contiguous
  # blocks (a last pair that would hold one block only is left out) with
  # their sizes from BlockSizes. RAIL2: 2 blocks of 2, BlockSizes=2,4: one
  # aggregate of both.
  run block-2 topology.conf block 'dgx[001-003],svc01' "$RAIL2" '' - \
"# -
BlockName=su1 BlockIndex=0 Nodes=dgx[001-002] BlockSize=2
BlockName=su2 BlockIndex=1 Nodes=dgx003,svc01 BlockSize=2
AggregatedBlock=su[1-2] BlockIndex=2 Nodes=dgx[001-003],svc01 BlockSize=4"
  # RAIL3 without svc02 and dgx005: blocks of 3, 2, 3 nodes, BlockSizes=
  # 2,4,8: su1+su2 (4), su3 alone is no pair, su1-su3 (8). Without
  # BlockSizes= slurmctld 24.11 stops: "Block configuration (su2) children
  # count lower than bblock_node_cnt" (the base is su1's 3 nodes).
  run block-exclude topology.conf block "$RAIL3_NODES" "$RAIL3" "$RAIL3_EXCLUDE" - \
"# -
BlockName=su1 BlockIndex=0 Nodes=dgx[001-003] BlockSize=2
BlockName=su2 BlockIndex=1 Nodes=dgx[004,006] BlockSize=2
BlockName=su3 BlockIndex=2 Nodes=dgx[007-008],svc01 BlockSize=2
AggregatedBlock=su[1-2] BlockIndex=3 Nodes=dgx[001-004,006] BlockSize=4
AggregatedBlock=su[1-3] BlockIndex=4 Nodes=dgx[001-004,006-008],svc01 BlockSize=8"
  # The DGX H100 SuperPOD of doc/gpu.md without its 4 UFM appliances (in the
  # last slots of su4): su1-su3 of 32 nodes, su4 of 31, BlockSizes=31,62,124:
  # pairs su[1-2] and su[3-4], then all four.
  run block-superpod topology.conf block 'dgx[001-127]' superpod-h100 'ufm[01-04]' - \
"# -
BlockName=su1 BlockIndex=0 Nodes=dgx[001-032] BlockSize=31
BlockName=su2 BlockIndex=1 Nodes=dgx[033-064] BlockSize=31
BlockName=su3 BlockIndex=2 Nodes=dgx[065-096] BlockSize=31
BlockName=su4 BlockIndex=3 Nodes=dgx[097-127] BlockSize=31
AggregatedBlock=su[1-2] BlockIndex=4 Nodes=dgx[001-064] BlockSize=62
AggregatedBlock=su[3-4] BlockIndex=6 Nodes=dgx[065-127] BlockSize=62
AggregatedBlock=su[1-4] BlockIndex=5 Nodes=dgx[001-127] BlockSize=124"
  passed=$((passed + 6))
else
  skipped+=("trixie: Debian trixie's Slurm 24.11 $why: topology/block not checked by a slurmctld")
fi

why=$(chroot_slurm "$FORKY")
if [[ -z $why ]]; then
  v=$(slurm_version "$FORKY")
  [[ $(printf '%s\n' 25.05 "$v" | sort -V | head -1) == 25.05 ]] || why="has Slurm $v, older than 25.05 (the first to read topology.yaml)"
fi
if [[ -z $why ]]; then
  use_slurm forky "$FORKY"
  # topology.yaml: the tree is the default topology (LinkSpeed 0 when read
  # from topology.yaml), the blocks as with topology.conf, flat has no
  # units to show; topoconf lists the three as read.
  run yaml-exclude topology.yaml - "$RAIL3_NODES" "$RAIL3" "$RAIL3_EXCLUDE" '- block flat topoconf' \
"# -
SwitchName=su1 Level=0 LinkSpeed=0 Nodes=dgx[001-003]
SwitchName=su2 Level=0 LinkSpeed=0 Nodes=dgx[004,006]
SwitchName=su3 Level=0 LinkSpeed=0 Nodes=dgx[007-008],svc01
SwitchName=spine1 Level=1 LinkSpeed=0 Nodes=dgx[001-004,006-008],svc01 Switches=su[1-3]
# block
BlockName=su1 BlockIndex=0 Nodes=dgx[001-003] BlockSize=2
BlockName=su2 BlockIndex=1 Nodes=dgx[004,006] BlockSize=2
BlockName=su3 BlockIndex=2 Nodes=dgx[007-008],svc01 BlockSize=2
AggregatedBlock=su[1-2] BlockIndex=3 Nodes=dgx[001-004,006] BlockSize=4
AggregatedBlock=su[1-3] BlockIndex=4 Nodes=dgx[001-004,006-008],svc01 BlockSize=8
# flat

# topoconf
- topology: tree
  cluster_default: true
- topology: block
  cluster_default: false
- topology: flat
  cluster_default: false
  flat: true"
  run yaml-3level topology.yaml - 'dgx[001-006]' "$TREE3" '' 'tree block' \
"# tree
SwitchName=su1 Level=0 LinkSpeed=0 Nodes=dgx[001-002]
SwitchName=su2 Level=0 LinkSpeed=0 Nodes=dgx[003-004]
SwitchName=su3 Level=0 LinkSpeed=0 Nodes=dgx[005-006]
SwitchName=spine1 Level=1 LinkSpeed=0 Nodes=dgx[001-002] Switches=su1
SwitchName=spine2 Level=1 LinkSpeed=0 Nodes=dgx[003-004] Switches=su2
SwitchName=spine3 Level=1 LinkSpeed=0 Nodes=dgx[005-006] Switches=su3
SwitchName=core1 Level=2 LinkSpeed=0 Nodes=dgx[001-006] Switches=spine[1-3]
# block
BlockName=su1 BlockIndex=0 Nodes=dgx[001-002] BlockSize=2
BlockName=su2 BlockIndex=1 Nodes=dgx[003-004] BlockSize=2
BlockName=su3 BlockIndex=2 Nodes=dgx[005-006] BlockSize=2
AggregatedBlock=su[1-2] BlockIndex=3 Nodes=dgx[001-004] BlockSize=4
AggregatedBlock=su[1-3] BlockIndex=4 Nodes=dgx[001-006] BlockSize=8"
  run block-exclude topology.conf block "$RAIL3_NODES" "$RAIL3" "$RAIL3_EXCLUDE" - \
"# -
BlockName=su1 BlockIndex=0 Nodes=dgx[001-003] BlockSize=2
BlockName=su2 BlockIndex=1 Nodes=dgx[004,006] BlockSize=2
BlockName=su3 BlockIndex=2 Nodes=dgx[007-008],svc01 BlockSize=2
AggregatedBlock=su[1-2] BlockIndex=3 Nodes=dgx[001-004,006] BlockSize=4
AggregatedBlock=su[1-3] BlockIndex=4 Nodes=dgx[001-004,006-008],svc01 BlockSize=8"
  passed=$((passed + 3))
else
  skipped+=("forky: Debian forky's Slurm $why: topology.yaml not checked by a slurmctld")
fi
stop_slurm

for s in "${skipped[@]}"; do echo "skip $s"; done
echo "topology_test.sh: $passed passed, 0 failed, ${#skipped[@]} skipped"
