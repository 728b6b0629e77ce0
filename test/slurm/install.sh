#!/usr/bin/env bash
# Install the Debian packages needed for the single-node Slurm test cluster.
# Idempotent: does nothing (and prints nothing) when everything is present.
# Must run as root (as CI does).
set -euo pipefail

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
[[ ${#missing[@]} -eq 0 ]] && exit 0

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
echo "install.sh: done"
