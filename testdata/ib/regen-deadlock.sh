#!/usr/bin/env bash
# Regenerate the credit-loop fixtures of this directory with the real tools:
# OpenSM routings that keep what a deadlock check needs besides the
# forwarding tables, namely the service level (SL) of every path and the
# SL-to-VL tables of the switches. See README.md, "Credit-loop fixtures".
#
# Usage: ./regen-deadlock.sh [RUN...]   (default: all runs; a run is FABRIC/NAME,
#                                        e.g. torus/lash-sl)
#
# Unlike regen.sh, OpenSM is not run with -o: path SLs are answered by its
# subnet administrator (SA) only while it runs. Per run:
#   - ibsim emulates FABRIC.net, OpenSM routes it and stays up; once its log
#     says SUBNET UP, its dumps (opensm-lfts.dump, opensm.fdbs,
#     opensm-subnet.lst, opensm-sl2vl.dump when it writes one) are complete;
#   - saquery-pr.txt: `saquery PR --slid S --dlid D` for every ordered pair of
#     CA LIDs (one query per pair: under libumad2sim the SA's multi-packet
#     (RMPP) answers do not come through whole: a plain `saquery PR` lists 3);
#   - smpquery-sl2vl.txt: `smpquery sl2vl LID PORT` for every connected switch
#     port (all input ports of that output port) and `smpquery sl2vl LID` for
#     every CA port: the tables as the emulated switches hold them;
#   - ibnetdiscover.txt, ibnetdiscover-s.txt, dump_fts.txt and
#     ibroute-S-0-0.txt as regen.sh writes them;
#   - then OpenSM and ibsim are stopped by their PID.
# Every process this script starts is stopped by its PID, also on failure or
# Ctrl-C; each run has a private work directory and ibsim socket name, and a
# run directory is replaced only when its run succeeded.
set -euo pipefail

case $0 in */*) HERE=${0%/*} ;; *) HERE=. ;; esac
HERE=$(cd "$HERE" && pwd)
SELF=${0##*/}

die() { echo "$SELF: $*" >&2; exit 1; }

# --- tools ------------------------------------------------------------------
PATH=$PATH:/usr/sbin:/sbin
need() { # need TOOL DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 ||
		die "missing tool '$1': install the Debian package(s): apt-get install $2"
}
need ibsim ibsim-utils
need opensm opensm
need saquery infiniband-diags
need smpquery infiniband-diags
need ibnetdiscover infiniband-diags
need dump_fts infiniband-diags
need ibroute infiniband-diags
need timeout coreutils
UMAD2SIM=${UMAD2SIM:-}
if [ -z "$UMAD2SIM" ]; then
	for f in /usr/lib/*/umad2sim/libumad2sim.so /usr/lib/umad2sim/libumad2sim.so; do
		[ -e "$f" ] && { UMAD2SIM=$f; break; }
	done
fi
[ -n "$UMAD2SIM" ] && [ -e "$UMAD2SIM" ] ||
	die "missing libumad2sim.so: install the Debian packages: apt-get install ibsim-utils libumad2sim0"

# --- process bookkeeping ----------------------------------------------------
IBSIM_PID= # the running ibsim, if any
OSM_PID=   # the running OpenSM, if any
WORK=      # the work directory

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

# stop_all stops OpenSM before ibsim: an OpenSM whose ibsim is gone may
# ignore TERM for good.
stop_all() {
	[ -n "$OSM_PID" ] && stop_pid "$OSM_PID"
	OSM_PID=
	[ -n "$IBSIM_PID" ] && stop_pid "$IBSIM_PID"
	IBSIM_PID=
	[ -n "$WORK" ] && rm -rf "$WORK"/sys-*
	return 0
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	stop_all
	[ -n "$WORK" ] && rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "$SELF: interrupted" >&2; exit 130' INT
trap 'echo "$SELF: terminated" >&2; exit 143' TERM HUP

# client TOOL ARGS...: run a diagnostic against ibsim from host H-0, with a
# time limit, in the work directory (libumad2sim writes sys-<pid>/ there).
# Its MADs time out after 3 s instead of 1 s, and a failed query is tried
# twice more (ibsim may answer slowly on a busy machine); the output of the
# successful try is printed.
client() {
	local try tool=$1
	shift
	for try in 1 2 3; do
		if (cd "$WORK" && exec timeout 60 env SIM_HOST=H-0 LD_PRELOAD="$UMAD2SIM" \
			"$tool" -t 3000 "$@") </dev/null >"$WORK/client.out" 2>"$WORK/client.err"; then
			cat "$WORK/client.out"
			return 0
		fi
	done
	cat "$WORK/client.err" >&2
	return 1
}

# --- one run ------------------------------------------------------------------
SEQ=0
# run FABRIC NAME ENGINE IBROUTE_SWITCH [extra opensm args...]; extra
# arguments may name files relative to this directory.
run() {
	local fabric=$1 name=$2 engine=$3 ibsw=$4
	shift 4
	local net="$HERE/$fabric/$fabric.net" out="$WORK/out" a i
	local -a extra=() shown=()
	for a in "$@"; do
		if [ -e "$HERE/$a" ]; then extra+=("$HERE/$a"); else extra+=("$a"); fi
		shown+=("$a")
	done
	[ -f "$net" ] || die "no net file $fabric/$fabric.net"
	rm -rf "$WORK/dump" "$WORK/cache" "$out" "$WORK"/*.log
	mkdir -p "$WORK/dump" "$WORK/cache" "$out"

	SEQ=$((SEQ + 1))
	export IBSIM_SOCKNAME="orcsdl$$.$SEQ"
	: >"$WORK/ibsim.log"
	(cd "$WORK" && exec ibsim -s -n "$net") </dev/null >"$WORK/ibsim.log" 2>&1 &
	IBSIM_PID=$!
	for ((i = 0; i < 600; i++)); do
		grep -q 'Network simulator ready\.' "$WORK/ibsim.log" && break
		kill -0 "$IBSIM_PID" 2>/dev/null || die "ibsim exited on $net: $(tail -n 5 "$WORK/ibsim.log")"
		sleep 0.05
	done
	grep -q 'Network simulator ready\.' "$WORK/ibsim.log" || die "ibsim did not become ready on $net"

	local log="$WORK/opensm.log"
	# dfsssp logs the layer (SL) of every pair of LIDs at the debug level of
	# its source file: raise that file alone (per-module logging).
	local -a logconf=()
	if [ "$engine" = dfsssp ]; then
		printf 'osm_ucast_dfsssp.c 0x0f\n' >"$WORK/per-module-logging.conf"
		printf 'per_module_logging_file %s\n' "$WORK/per-module-logging.conf" >"$WORK/opensm.conf"
		logconf=(-F "$WORK/opensm.conf")
	fi
	(cd "$WORK" && exec env SIM_HOST=H-0 LD_PRELOAD="$UMAD2SIM" OSM_CACHE_DIR="$WORK/cache" \
		opensm -e -d 2 -D 0x43 -R "$engine" "${logconf[@]}" "${extra[@]}" -f "$log" --dump_files_dir "$WORK/dump") \
		</dev/null >"$WORK/opensm.out" 2>&1 &
	OSM_PID=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q -- '-> SUBNET UP$' "$log" 2>/dev/null && break
		kill -0 "$OSM_PID" 2>/dev/null || die "$fabric/$name: opensm exited: $(tail -n 5 "$log")"
		sleep 0.1
	done
	grep -q -- '-> SUBNET UP$' "$log" || die "$fabric/$name: no SUBNET UP after 120 s: $(tail -n 5 "$log")"
	local used
	used=$(sed -n 's/.* \([^ ]*\) tables configured on all switches$/\1/p' "$log" | tail -n 1)
	[ "$used" = "$engine" ] || die "$fabric/$name: OpenSM used '$used' instead of $engine"

	# Path SLs: one PathRecord query per ordered pair of CA LIDs.
	local cas s d n=0
	cas=$(for s in $(sed -n 's/^0x\([0-9a-fA-F]*\) .*# Channel Adapter portguid.*/\1/p' \
		"$WORK/dump/opensm-lfts.dump"); do echo $((16#$s)); done | sort -n -u)
	: >"$out/saquery-pr.txt"
	for s in $cas; do
		for d in $cas; do
			[ "$s" = "$d" ] && continue
			client saquery PR --slid "$s" --dlid "$d" >>"$out/saquery-pr.txt" ||
				die "$fabric/$name: saquery PR --slid $s --dlid $d failed"
			n=$((n + 1))
		done
	done
	[ "$(grep -c '^PathRecord dump:' "$out/saquery-pr.txt")" = "$n" ] ||
		die "$fabric/$name: saquery answered fewer than $n PathRecords"

	# SL2VL tables: every connected switch port as output port, every CA port.
	: >"$out/smpquery-sl2vl.txt"
	local lid port
	while read -r lid port; do
		client smpquery sl2vl "$lid" $port >>"$out/smpquery-sl2vl.txt" ||
			die "$fabric/$name: smpquery sl2vl $lid $port failed"
	done < <(
		# the first { } of a line is the local port: type, LID, port number
		sed -n 's/^{ \([A-Z-]*\) .* LID:\([0-9A-Fa-f]*\) PN:\([0-9A-Fa-f]*\) } {.*/\1 \2 \3/p' \
			"$WORK/dump/opensm-subnet.lst" |
			while read -r t l p; do
				if [ "$t" = SW ]; then echo "$((16#$l)) $((16#$p))"; else echo "$((16#$l))"; fi
			done | sort -n -k1,1 -k2,2 -u)

	# The diagnostics of every fixture run, as regen.sh keeps them.
	local swlid
	swlid=$(sed -n "s/^Unicast lids .* of switch Lid \([0-9]*\) guid .* ('$ibsw'):\$/\1/p" \
		"$WORK/dump/opensm-lfts.dump")
	[ -n "$swlid" ] || die "$fabric/$name: switch $ibsw not in opensm-lfts.dump"
	client ibnetdiscover >"$out/ibnetdiscover.txt" || die "$fabric/$name: ibnetdiscover failed"
	client ibnetdiscover -s >"$out/ibnetdiscover-s.txt" || die "$fabric/$name: ibnetdiscover -s failed"
	client dump_fts >"$out/dump_fts.txt" || die "$fabric/$name: dump_fts failed"
	client ibroute "$swlid" >"$out/ibroute-$ibsw.txt" || die "$fabric/$name: ibroute $swlid failed"
	stop_all

	local f
	for f in opensm-lfts.dump opensm.fdbs opensm-subnet.lst; do
		[ -f "$WORK/dump/$f" ] || die "$fabric/$name: OpenSM wrote no $f"
		cp "$WORK/dump/$f" "$out/$f"
	done
	[ -f "$WORK/dump/opensm-sl2vl.dump" ] && cp "$WORK/dump/opensm-sl2vl.dump" "$out/"
	if [ "$engine" = dfsssp ]; then
		# the lines with the path layers, as OpenSM logged them
		grep 'route from src_lid=' "$log" >"$out/dfsssp-sl.txt" || die "$fabric/$name: no path layers in the log"
	fi
	{
		echo "requested: $engine"
		echo "used: $used"
		echo "fallback: no"
		echo "subnet_up: yes"
		echo "command: opensm -e -d 2 -D 0x43 -R $engine${logconf[*]:+ -F opensm.conf}${shown[*]:+ ${shown[*]}} -f opensm.log --dump_files_dir DIR"
		echo "ibroute: ibroute $swlid    # $ibsw"
		echo "path_sl: saquery PR --slid S --dlid D, $n ordered pairs of CA LIDs"
		[ "$engine" = dfsssp ] &&
			echo "path_layers: dfsssp-sl.txt, the log's \"route from src_lid=S to dest_lid=D on vl=V\" lines (per_module_logging_file: osm_ucast_dfsssp.c 0x0f)"
		echo "sl2vl: smpquery sl2vl LID PORT (switch output ports), smpquery sl2vl LID (CA ports)"
		echo "log:"
		sed -n '/Entering MASTER state/,/-> SUBNET UP$/p' "$log" |
			sed '1d; s/^[A-Z][a-z]\{2\}  *[0-9]\{1,2\} [0-9:]\{8\} [0-9]\{6\} \[[0-9A-Fa-f]*\] //' |
			grep -v 'print_network_node' | grep -v '^0x08 -> \|^0x10 -> '
	} >"$out/engine.txt"

	rm -rf "${HERE:?}/$fabric/$name"
	cp -r "$out" "$HERE/$fabric/$name"
	printf '%-22s %-11s SLs %s, %d paths\n' "$fabric/$name" "$used" \
		"$(sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p' "$out/saquery-pr.txt" | sort -u | tr '\n' ' ')" "$n"
}

# --- the runs -------------------------------------------------------------------
ALL="mesh/dor torus/updn-roots torus/lash-sl torus/dfsssp-sl torus/nue-sl torus/torus-2QoS-sl"

one() { # one FABRIC/NAME
	case $1 in
	mesh/dor) run mesh dor dor S-0-0 ;;
	torus/updn-roots) run torus updn-roots updn S-0-0 -a torus/updn-roots.guids ;;
	torus/lash-sl) run torus lash-sl lash S-0-0 -Q ;;
	torus/dfsssp-sl) run torus dfsssp-sl dfsssp S-0-0 -Q ;;
	torus/nue-sl) run torus nue-sl nue S-0-0 -Q --nue_max_num_vls 2 ;;
	torus/torus-2QoS-sl) run torus torus-2QoS-sl torus-2QoS S-0-0 -Q --torus_config torus/torus-2QoS.conf ;;
	*) die "unknown run '$1' (known: $ALL)" ;;
	esac
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/orcs-dl.XXXXXX")
for r in ${@:-$ALL}; do one "$r"; done
echo "$SELF: done"
