#!/usr/bin/env bash
# Install the Debian packages needed for the single-node Slurm test cluster,
# and the newer Slurms of topology_test.sh: Debian trixie's (Slurm 24.11,
# topology/block) and forky's (Slurm 25.05 or later, topology.yaml), each
# unpacked into its own directory by debian-slurm.sh (the machine's packages
# and libc stay as they are). Idempotent: does nothing (and prints nothing)
# when everything is present. Must run as root (as CI does).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)

# newer_slurms: trixie's must install (a stable release); forky (Debian
# testing) may be uninstallable for a while, so its failure is a warning
# and topology_test.sh says that it skipped topology.yaml.
newer_slurms() {
  if [[ $(id -u) -ne 0 ]]; then
    [[ -e /var/lib/orcs-test/slurm-trixie/orcs-slurm.stamp ]] ||
      echo "install.sh: not root: Debian trixie's and forky's Slurm not installed; topology_test.sh (root) needs them" >&2
    return 0
  fi
  # Both at once: the time goes into downloads.
  bash "$HERE/debian-slurm.sh" forky >/dev/null &
  local forky=$!
  bash "$HERE/debian-slurm.sh" trixie >/dev/null || { wait "$forky" || true; return 1; }
  wait "$forky" ||
    echo "install.sh: warning: Debian forky's Slurm did not install (above); topology_test.sh will skip topology.yaml" >&2
}

PACKAGES=(munge slurmctld slurmd slurm-client)
# Wait for a concurrent apt/dpkg run instead of failing on its lock.
APT_OPTS=(-y -qq --no-install-recommends -o DPkg::Lock::Timeout=300)

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

missing=()
for p in "${PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  newer_slurms
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install.sh: must run as root to install: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install.sh: installing ${missing[*]}"

# Refresh the package lists once: up front when there are none, otherwise only
# if installing from the existing lists fails (e.g. stale lists).
have_lists() { compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; }
updated=0
if ! have_lists; then
  apt-get update -qq -o DPkg::Lock::Timeout=300
  updated=1
fi
if ! apt-get install "${APT_OPTS[@]}" "${missing[@]}" >/dev/null; then
  if [[ $updated -eq 1 ]]; then
    echo "install.sh: apt-get install failed" >&2
    exit 1
  fi
  echo "install.sh: retrying after apt-get update"
  apt-get update -qq -o DPkg::Lock::Timeout=300
  apt-get install "${APT_OPTS[@]}" "${missing[@]}" >/dev/null
fi

for p in "${PACKAGES[@]}"; do
  if ! is_installed "$p"; then
    echo "install.sh: package $p is still not installed" >&2
    exit 1
  fi
done
newer_slurms
echo "install.sh: done"
