#!/usr/bin/env bash
# Regenerate the InfiniBand parser fixtures of this directory from the ibsim
# net files <fabric>/<fabric>.net, with the real tools: ibsim emulates the
# fabric, OpenSM routes it, infiniband-diags reads it back. See README.md.
#
# Usage: ./regen.sh [FABRIC...]        (default: ft16 ft64 dualport torus lid64 cluster sharp
#                                      sharp576 loopback port2 sharp-spines rates ratesopt rail)
#   FT64_ENGINES="minhop updn ..." ./regen.sh ft64   overrides the ft64 engines.
#
# Every run gets a private temporary work directory and its own ibsim socket
# name. Each fixture directory <fabric>/<run>/ is replaced only once its run
# succeeded. Every process this script starts is stopped by its PID, also on
# failure or Ctrl-C, and no sys-* directory of libumad2sim is left behind.
set -euo pipefail

case $0 in */*) HERE=${0%/*} ;; *) HERE=. ;; esac
HERE=$(cd "$HERE" && pwd)
SELF=${0##*/}

die() { echo "$SELF: $*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------
need() { # need TOOL DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	# the diagnostics live in /usr/sbin, often not in a non-root PATH
	[ -x "/usr/sbin/$1" ] && return 0
	die "missing tool '$1': install the Debian package(s): apt-get install $2"
}
PATH=$PATH:/usr/sbin:/sbin
need ibsim ibsim-utils
need opensm opensm
need ibnetdiscover infiniband-diags
need dump_fts infiniband-diags
need ibroute infiniband-diags
need iblinkinfo infiniband-diags
UMAD2SIM=${UMAD2SIM:-}
if [ -z "$UMAD2SIM" ]; then
	for f in /usr/lib/*/umad2sim/libumad2sim.so /usr/lib/umad2sim/libumad2sim.so; do
		[ -e "$f" ] && { UMAD2SIM=$f; break; }
	done
fi
if [ -z "$UMAD2SIM" ] || [ ! -e "$UMAD2SIM" ]; then
	die "missing libumad2sim.so: install the Debian packages: apt-get install ibsim-utils libumad2sim0"
fi

# --- process bookkeeping ----------------------------------------------------
IBSIM_PID=    # the running ibsim, if any
CHILD=        # the running tool, if any
WORK=         # the running fabric's work directory, if any

stop_pid() { # stop_pid PID: TERM, then KILL if it is still there after 3 s
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	[ -n "$CHILD" ] && stop_pid "$CHILD"
	[ -n "$IBSIM_PID" ] && stop_pid "$IBSIM_PID"
	[ -n "$WORK" ] && rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "$SELF: interrupted" >&2; exit 130' INT
trap 'echo "$SELF: terminated" >&2; exit 143' TERM HUP

# run_timed SECONDS OUT ERR CMD...: run CMD in the work directory with stdin
# from /dev/null, stdout to OUT and stderr to ERR (ERR "+" : stderr into OUT
# as well, as 2>&1 does); stop it after SECONDS.
run_timed() {
	local limit=$1 out=$2 err=$3 rc=0 i=0
	shift 3
	if [ "$err" = + ]; then
		(cd "$WORK" && exec "$@" 2>&1) </dev/null >"$out" &
	else
		(cd "$WORK" && exec "$@") </dev/null >"$out" 2>"$err" &
	fi
	CHILD=$!
	while kill -0 "$CHILD" 2>/dev/null; do
		if ((i >= limit * 20)); then
			stop_pid "$CHILD"
			CHILD=
			return 124
		fi
		sleep 0.05
		i=$((i + 1))
	done
	wait "$CHILD" || rc=$?
	CHILD=
	return "$rc"
}

# --- one ibsim session ------------------------------------------------------
SEQ=0
start_ibsim() { # start_ibsim NETFILE
	local net=$1 n s p i
	# ibsim's limits: nodes, switches, ports (at least its defaults)
	read -r n s p < <(awk '
		$1 == "Switch" { n++; s++; p += $2 + 1 }
		$1 == "Hca" || $1 == "Ca" { n++; p += $2 + 1 }
		END { print n + 0, s + 0, p + 0 }' "$net")
	((n < 2048)) && n=2048
	((s < 256)) && s=256
	((p < 13312)) && p=13312
	SEQ=$((SEQ + 1))
	: >"$WORK/ibsim.log"
	export IBSIM_SOCKNAME="orcsib$$.$SEQ"
	(cd "$WORK" && exec ibsim -s -n -N "$n" -S "$s" -P "$p" "$net") \
		</dev/null >"$WORK/ibsim.log" 2>&1 &
	IBSIM_PID=$!
	for ((i = 0; i < 600; i++)); do
		grep -q 'Network simulator ready\.' "$WORK/ibsim.log" && return 0
		kill -0 "$IBSIM_PID" 2>/dev/null || break
		sleep 0.05
	done
	tail -n 20 "$WORK/ibsim.log" >&2
	die "ibsim did not become ready on $net"
}

stop_ibsim() {
	stop_pid "$IBSIM_PID"
	IBSIM_PID=
	rm -rf "$WORK"/sys-*
}

# clients: the SM and the diagnostics attach to host H-0 of every fabric
CLIENT=(env SIM_HOST=H-0 LD_PRELOAD="$UMAD2SIM")

# --- one routing run ----------------------------------------------------------
# switch_lid DESC DUMP: the LID of the switch described DESC in an
# opensm-lfts.dump.
switch_lid() {
	awk -v tail="('$1'):" '/^Unicast lids / && substr($0, length($0) - length(tail) + 1) == tail {
		for (i = 1; i < NF; i++) if ($i == "Lid") { print $(i + 1); exit } }' "$2"
}

# route FABRIC RUNDIR ENGINE IBROUTE_SWITCH [extra opensm args...]
# IBROUTE_SWITCH is the node description of the switch that ibroute reads,
# or NAME=DESCRIPTION to name its file ibroute-NAME.txt. Extra arguments
# may name files relative to this directory.
declare -a SUMMARY=()
route() {
	local fabric=$1 run=$2 engine=$3 ibsw=${4%%=*} ibdesc=${4#*=}
	shift 4
	local net="$HERE/$fabric/$fabric.net" out="$WORK/out" a
	local -a extra=() shown=()
	for a in "$@"; do
		if [ -e "$HERE/$a" ]; then extra+=("$HERE/$a"); else extra+=("$a"); fi
		shown+=("$a")
	done
	[ -f "$net" ] || die "no net file $fabric/$fabric.net"
	# the rail fabric has no H-0: its SM runs on the service node svc01
	CLIENT=(env SIM_HOST=H-0 LD_PRELOAD="$UMAD2SIM")
	[ "$fabric" = rail ] && CLIENT=(env "SIM_HOST=svc01 mlx5_0" LD_PRELOAD="$UMAD2SIM")
	rm -rf "$WORK/dump" "$WORK/cache" "$out" "$WORK"/*.log
	mkdir -p "$WORK/dump" "$WORK/cache" "$out"

	start_ibsim "$net"
	local t0 t1 rc=0
	t0=$(date +%s%N)
	run_timed 600 "$WORK/opensm.out" "$WORK/opensm.err" \
		"${CLIENT[@]}" OSM_CACHE_DIR="$WORK/cache" opensm -o -e -d 2 -D 0x43 -R "$engine" "${extra[@]}" \
		-f "$WORK/opensm.log" --dump_files_dir "$WORK/dump" || rc=$?
	t1=$(date +%s%N)
	((rc == 0)) || { cat "$WORK/opensm.err" >&2; die "$fabric/$run: opensm failed (exit $rc)"; }

	local log="$WORK/opensm.log" used up=no
	grep -q -- '-> SUBNET UP$' "$log" && up=yes
	used=$(sed -n 's/.* \([^ ]*\) tables configured on all switches$/\1/p' "$log" | tail -n 1)
	if [ "$up" != yes ] || [ -z "$used" ]; then
		tail -n 30 "$log" >&2
		die "$fabric/$run: OpenSM did not bring the subnet up with $engine"
	fi

	# LID of the switch that ibroute reads, from OpenSM's own dump
	local swlid
	swlid=$(switch_lid "$ibdesc" "$WORK/dump/opensm-lfts.dump")
	[ -n "$swlid" ] || die "$fabric/$run: switch $ibdesc not in opensm-lfts.dump"

	run_timed 120 "$out/ibnetdiscover.txt" "$WORK/diag.err" "${CLIENT[@]}" ibnetdiscover ||
		die "$fabric/$run: ibnetdiscover failed: $(cat "$WORK/diag.err")"
	run_timed 120 "$out/ibnetdiscover-s.txt" "$WORK/diag.err" "${CLIENT[@]}" ibnetdiscover -s ||
		die "$fabric/$run: ibnetdiscover -s failed: $(cat "$WORK/diag.err")"
	run_timed 120 "$out/dump_fts.txt" "$WORK/diag.err" "${CLIENT[@]}" dump_fts ||
		die "$fabric/$run: dump_fts failed: $(cat "$WORK/diag.err")"
	run_timed 120 "$out/ibroute-$ibsw.txt" "$WORK/diag.err" "${CLIENT[@]}" ibroute "$swlid" ||
		die "$fabric/$run: ibroute $swlid failed: $(cat "$WORK/diag.err")"
	if [ "$fabric" = cluster ] || [ "$fabric" = rates ]; then
		# the other outputs administrators bring
		local name
		local -a diag
		for name in ibnetdiscover-g ibnetdiscover-p ibnetdiscover-l iblinkinfo iblinkinfo-l dump_fts-a "ibroute-a-$ibsw"; do
			case $name in
			ibnetdiscover-g) diag=(ibnetdiscover -g) ;;
			ibnetdiscover-p) diag=(ibnetdiscover -p) ;;
			ibnetdiscover-l) diag=(ibnetdiscover -l) ;;
			iblinkinfo) diag=(iblinkinfo) ;;
			iblinkinfo-l) diag=(iblinkinfo -l) ;;
			dump_fts-a) diag=(dump_fts -a) ;;
			*) diag=(ibroute -a "$swlid") ;;
			esac
			run_timed 120 "$out/$name.txt" "$WORK/diag.err" "${CLIENT[@]}" "${diag[@]}" ||
				die "$fabric/$run: ${diag[*]} failed: $(cat "$WORK/diag.err")"
		done
	fi
	stop_ibsim

	local f
	for f in opensm-lfts.dump opensm.fdbs opensm-subnet.lst; do
		[ -f "$WORK/dump/$f" ] || die "$fabric/$run: OpenSM wrote no $f"
		cp "$WORK/dump/$f" "$out/$f"
	done

	local fallback=no
	[ "$used" = "$engine" ] || fallback=yes
	{
		echo "requested: $engine"
		echo "used: $used"
		echo "fallback: $fallback"
		echo "subnet_up: $up"
		echo "command: opensm -o -e -d 2 -D 0x43 -R $engine${shown[*]:+ ${shown[*]}} -f opensm.log --dump_files_dir DIR"
		echo "ibroute: ibroute $swlid    # $ibdesc"
		echo "log:"
		# the routing part of the log, without time stamps and thread ids,
		# and without nue's lines that print memory addresses
		sed -n '/Entering MASTER state/,/-> SUBNET UP$/p' "$log" |
			sed '1d; s/^[A-Z][a-z]\{2\}  *[0-9]\{1,2\} [0-9:]\{8\} [0-9]\{6\} \[[0-9A-Fa-f]*\] //' |
			grep -v 'print_network_node'
	} >"$out/engine.txt"

	rm -rf "${HERE:?}/$fabric/$run"
	mkdir -p "$HERE/$fabric"
	cp -r "$out" "$HERE/$fabric/$run"
	# wall time of opensm, and time of its routing sweep as its log tells
	local ms=$(((t1 - t0) / 1000000)) sweep
	sweep=$(awk '
		function t(l, a) { split($3, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] + $4 / 1e6 }
		/Entering MASTER state/ { m = t() }
		/-> SUBNET UP$/ { u = t() }
		END { printf "%d", (u - m) * 1000 }' "$log")
	SUMMARY+=("$(printf '%-9s %-12s %-11s -> %-11s up=%-3s opensm %5d ms, sweep %4d ms' \
		"$fabric" "$run" "$engine" "$used" "$up" "$ms" "$sweep")")
	echo "${SUMMARY[-1]}"
}

# --- a fabric with a node that does not answer --------------------------------
# noisy FABRIC NODE IBROUTE_SWITCH: route FABRIC (minhop) while NODE drops
# every query of its NodeDescription (the ibsim command Error "NODE" 100
# 0x10, added to a copy of the net file), and capture the diagnostics with
# their standard error (2>&1), as a terminal session pasted into a file: a
# UTF-8 byte-order mark and shell prompt lines are added around the output.
noisy() {
	local fabric=$1 node=$2 ibsw=${3%%=*} ibdesc=${3#*=} out="$WORK/out" net="$WORK/noisy.net"
	rm -rf "$WORK/dump" "$WORK/cache" "$out" "$WORK"/*.log
	mkdir -p "$WORK/dump" "$WORK/cache" "$out"
	{ cat "$HERE/$fabric/$fabric.net"; printf '\ndo Error "%s" 100 0x10\n' "$node"; } >"$net"
	start_ibsim "$net"
	run_timed 600 "$WORK/opensm.out" "$WORK/opensm.err" \
		"${CLIENT[@]}" OSM_CACHE_DIR="$WORK/cache" opensm -o -e -d 2 -D 0x43 -R minhop \
		-f "$WORK/opensm.log" --dump_files_dir "$WORK/dump" || die "$fabric/noisy: opensm failed"
	grep -q -- '-> SUBNET UP$' "$WORK/opensm.log" || die "$fabric/noisy: OpenSM did not bring the subnet up"
	run_timed 120 "$WORK/ibnd.txt" + "${CLIENT[@]}" ibnetdiscover || die "$fabric/noisy: ibnetdiscover failed"
	run_timed 120 "$WORK/fts.txt" + "${CLIENT[@]}" dump_fts || die "$fabric/noisy: dump_fts failed"
	run_timed 120 "$WORK/link.txt" + "${CLIENT[@]}" iblinkinfo || die "$fabric/noisy: iblinkinfo failed"
	local swlid
	swlid=$(switch_lid "$ibdesc" "$WORK/dump/opensm-lfts.dump")
	[ -n "$swlid" ] || die "$fabric/noisy: switch $ibdesc not in opensm-lfts.dump"
	run_timed 120 "$WORK/route.txt" + "${CLIENT[@]}" ibroute "$swlid" || die "$fabric/noisy: ibroute failed"
	stop_ibsim
	cp "$WORK/dump/opensm-lfts.dump" "$WORK/dump/opensm-subnet.lst" "$out/"
	{ printf '\357\273\277[root@mgmt01 ~]# ibnetdiscover\n'; cat "$WORK/ibnd.txt"; printf '[root@mgmt01 ~]# \n'; } >"$out/ibnetdiscover.txt"
	{ printf '$ dump_fts\n'; cat "$WORK/fts.txt"; } >"$out/dump_fts.txt"
	{ printf '$ ibroute %s\n' "$swlid"; cat "$WORK/route.txt"; } >"$out/ibroute-$ibsw.txt"
	{ printf 'admin@mgmt01:~$ iblinkinfo\n'; cat "$WORK/link.txt"; printf 'admin@mgmt01:~$ \n'; } >"$out/iblinkinfo.txt"
	rm -rf "${HERE:?}/$fabric/noisy"
	cp -r "$out" "$HERE/$fabric/noisy"
	echo "$fabric    noisy: $node does not answer NodeDescription queries"
}

# --- the fixtures -------------------------------------------------------------
ALL_ENGINES="minhop updn dnup ftree lash dor nue dfsssp sssp torus-2QoS"
# ft64 keeps only four engines to keep the fixtures small (about 1.1 MB each)
FT64_ENGINES=${FT64_ENGINES:-"minhop updn ftree dfsssp"}

fabric() { # fabric NAME
	local e
	case $1 in
	ft16)
		for e in $ALL_ENGINES; do route ft16 "$e" "$e" S-leaf0; done
		route ft16 minhop-lmc1 minhop S-leaf0 -l 1
		;;
	ft64)
		for e in $FT64_ENGINES; do route ft64 "$e" "$e" S-mid0; done
		;;
	dualport)
		for e in minhop updn; do route dualport "$e" "$e" S-1; done
		;;
	torus)
		for e in minhop dor updn; do route torus "$e" "$e" S-0-0; done
		route torus torus-2QoS torus-2QoS S-0-0 -Q --torus_config torus/torus-2QoS.conf
		;;
	lid64)
		route lid64 minhop minhop S-0
		;;
	cluster)
		for e in minhop updn; do route cluster "$e" "$e" "S-leaf01=MF0;leaf01:MQM8700/U1"; done
		noisy cluster H-4 "S-leaf01=MF0;leaf01:MQM8700/U1"
		;;
	sharp)
		for e in minhop updn dfsssp; do route sharp "$e" "$e" S-leaf0; done
		route sharp minhop-lmc1 minhop S-leaf0 -l 1
		;;
	sharp576)
		# only the files compare --topo/--lfts reads, gzipped (orcs reads
		# gzip): the rest would add 3 MB
		route sharp576 minhop minhop S-leaf0
		rm -f "$HERE"/sharp576/minhop/{ibnetdiscover-s.txt,dump_fts.txt,ibroute-*.txt,opensm-subnet.lst,opensm.fdbs}
		gzip -n -9 -f "$HERE"/sharp576/minhop/{ibnetdiscover.txt,opensm-lfts.dump}
		;;
	loopback)
		route loopback minhop minhop S-leaf0
		;;
	port2)
		route port2 minhop minhop S-0
		;;
	sharp-spines)
		route sharp-spines minhop minhop S-leaf0
		;;
	rates)
		route rates minhop minhop S-leaf0
		;;
	ratesopt)
		route ratesopt minhop minhop S-a
		;;
	rail)
		for e in ftree minhop; do route rail "$e" "$e" S0_0; done
		;;
	*) die "unknown fabric '$1' (known: ft16 ft64 dualport torus lid64 cluster sharp sharp576 loopback port2 sharp-spines rates ratesopt rail)" ;;
	esac
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orcs-ib.XXXXXX")
for fab in "${@:-ft16 ft64 dualport torus lid64 cluster sharp sharp576 loopback port2 sharp-spines rates ratesopt rail}"; do
	for f in $fab; do fabric "$f"; done
done
echo "$SELF: ${#SUMMARY[@]} runs done"
