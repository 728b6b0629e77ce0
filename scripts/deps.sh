#!/usr/bin/env bash
# Installs what the tests need: Go modules, the Debian packages of the
# integration tests (a real single-node Slurm) and the real InfiniBand tools
# of the end-to-end tests of orcs route, compare and dot2osm (ibsim emulates
# a fabric, OpenSM routes it, infiniband-diags reads it back). Idempotent;
# quiet when all is there already.
set -euo pipefail
cd "$(dirname "$0")/.."

go mod download
bash test/slurm/install.sh

# ibutils: ibdmchk, checked against orcs deadlock; chromium: the HTML report is
# opened in a real headless browser (orcs report's tests)
IB_PACKAGES=(opensm ibsim-utils infiniband-diags ibutils chromium)
ib_missing=()
for p in "${IB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || ib_missing+=("$p")
done
if [[ ${#ib_missing[@]} -gt 0 ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps.sh: not root: the InfiniBand end-to-end tests will skip; install with: apt-get install ${IB_PACKAGES[*]}" >&2
  else
    echo "deps.sh: installing ${ib_missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt_install() { apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${ib_missing[@]}" >/dev/null; }
    if ! apt_install; then
      apt-get update -qq -o DPkg::Lock::Timeout=300
      apt_install
    fi
  fi
fi
