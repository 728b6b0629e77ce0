#!/usr/bin/env bash
# Memory and wall time of the largest generated fabrics, command by command:
# load + route check + 1000 runs of bisect_fb_sym, the route check alone,
# --hot, deadlock, map and regions. Each line gives the wall time, the CPU
# time and the peak RSS (/usr/bin/time), and the load average before it
# (the machine is shared: write it down beside every time).
#
#   bench/scale.sh                 # 32 768 and 65 536 hosts
#   bench/scale.sh 32k 64k 128k    # any of 32k, 45k, 64k, 128k
#   ONLY=sim bench/scale.sh 128k   # only the commands whose label starts so
#
# The fabrics: 32k is the k-ary 3-tree of radix-64 switches (k=32); 64k the
# three-level folded Clos of radix-64 switches (64 pods of 32 leaves with 32
# hosts; 1024 spines of 64 ports), the largest three-level tree of radix 64;
# 128k the same with 128 pods (spines of 128 ports, as director switches);
# 45k the same with 44 pods (45 056 hosts, 3 840 switches: 48 896 LIDs), the
# largest such tree that one subnet addresses (unicast LIDs end at 0xBFFF),
# the size that bench/ib-readers.sh reads from dumps:
#   bash bench/ib-readers.sh fattree3:pods=44,leaves=32,hosts=32,up=32,mup=32 DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
go build -o bin/orcs ./orcs
orcs=$PWD/bin/orcs

spec() {
  case $1 in
  32k) echo kary:k=32,n=3 ;;
  45k) echo fattree3:pods=44,leaves=32,hosts=32,up=32,mup=32 ;;
  64k) echo fattree3:pods=64,leaves=32,hosts=32,up=32,mup=32 ;;
  128k) echo fattree3:pods=128,leaves=32,hosts=32,up=32,mup=32 ;;
  *) echo "unknown size $1 (32k, 45k, 64k, 128k)" >&2; exit 2 ;;
  esac
}

# measure LABEL CMD...: runs CMD (stdout to $out/scale-SIZE-LABEL.out) and
# prints one line.
measure() {
  local label=$1; shift
  case $label in "${ONLY:-}"*) ;; *) return 0 ;; esac
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" "$@" > "$out/scale-$size-$label.out" 2> "$out/scale-$size-$label.err" ||
    { echo "$size $label: failed (see $out/scale-$size-$label.err)"; return 0; }
  read -r wall user sys rss < "$out/time.txt"
  printf '%-5s %-10s %7.1f s wall %7.1f s CPU  peak RSS %5d MB  (load average %s)\n' \
    "$size" "$label" "$wall" "$(echo "$user + $sys" | bc)" $((rss / 1024)) "$load"
}

echo "== $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version)"
for size in "${@:-32k 64k}"; do
  for size in $size; do
    s=gen:$(spec "$size")
    measure sim "$orcs" -i "$s" -p bisect_fb_sym -n 1000 --seed 1
    measure check "$orcs" -i "$s" --checkinputfile
    measure hot "$orcs" -i "$s" -p bisect_fb_sym -n 100 --seed 1 --hot 10
    measure deadlock "$orcs" deadlock -i "$s"
    measure map "$orcs" map -i "$s" -p bisect_fb_sym --strategy bisect
    measure loads "$orcs" -i "$s" -p bisect_fb_sym -n 100 --seed 1 --metric get_cable_cong --format csv
    measure regions "$orcs" regions -i "$s" --analyzer "$out/scale-$size-loads.out"
  done
done
