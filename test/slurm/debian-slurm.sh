#!/usr/bin/env bash
# Install a newer Debian release's slurmctld and scontrol into a directory,
# to run under chroot beside the machine's own Slurm, without touching the
# machine's packages or libc.
#
#   debian-slurm.sh SUITE [DIR]
#
# SUITE is a Debian suite (trixie: Slurm 24.11 with topology/block; forky:
# Slurm 25.05 or later, which reads topology.yaml). DIR defaults to
# /var/lib/orcs-test/slurm-SUITE. Prints DIR on stdout when done; progress
# and errors go to stderr. Must run as root.
#
# How: a private apt (its own lists, cache and empty dpkg status, the
# machine's Debian mirror and archive keyring) downloads slurmctld,
# slurm-client, coreutils and base-passwd with their whole dependency closure from SUITE
# (libc6 included); dpkg-deb -x unpacks every package into DIR (no
# maintainer scripts run); then the few things the scripts would have done
# are done by hand: the /bin, /lib… links of a merged /usr, /etc/passwd and
# /etc/group from base-passwd, and /usr/sbin/slurmctld (Slurm checks its
# program name). The directory is built beside DIR and renamed into place,
# under a lock, so a concurrent run waits and an interrupted one leaves
# nothing half made. A DIR whose stamp names SUITE and whose slurmctld runs
# and prints the version of the stamp is reused as it is.
set -euo pipefail

SUITE=${1:?usage: debian-slurm.sh SUITE [DIR]}
DIR=${2:-/var/lib/orcs-test/slurm-$SUITE}
STAMP=$DIR/orcs-slurm.stamp
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PACKAGES=(slurmctld slurm-client coreutils base-passwd)

say() { echo "debian-slurm.sh: $*" >&2; }
[[ $(id -u) -eq 0 ]] || { say "must run as root (chroot)"; exit 2; }

# usable DIR: the stamp is ours and the slurmctld under chroot runs and is
# the version the stamp names.
usable() {
  local v
  [[ -f $STAMP ]] && grep -qx "suite=$SUITE" "$STAMP" &&
    v=$(chroot "$1" /usr/sbin/slurmctld -V 2>/dev/null) &&
    grep -qxF "slurmctld=$v" "$STAMP"
}
if usable "$DIR"; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$(dirname "$DIR")"
exec 9>"$DIR.lock"
flock 9
if usable "$DIR"; then # built by a concurrent run while we waited
  echo "$DIR"
  exit 0
fi

# The machine's Debian mirror: the URI of its Debian "Packages" index.
mirror=$(apt-get indextargets --format '$(ORIGIN)|$(LABEL)|$(IDENTIFIER)|$(REPO_URI)' 2>/dev/null |
  awk -F'|' '$1 == "Debian" && $2 == "Debian" && $3 == "Packages" { print $4; exit }')
if [[ -z $mirror ]]; then
  say "no Debian mirror in this machine's apt sources (apt-get indextargets names none)"
  exit 1
fi
[[ -r $KEYRING ]] || { say "no Debian archive keyring at $KEYRING (package debian-archive-keyring)"; exit 1; }

start=$(date +%s)
NEW=$(mktemp -d "$DIR.new.XXXXXX")
trap 'rm -rf "$NEW"' EXIT
APT=$NEW.apt
trap 'rm -rf "$NEW" "$APT"' EXIT
mkdir -p "$APT/etc/apt/apt.conf.d" "$APT/etc/apt/preferences.d" "$APT/etc/apt/sources.list.d" \
  "$APT/lists/partial" "$APT/cache/archives/partial"
touch "$APT/status"
# Packages indexes only (the machine's appstream configuration would add
# DEP-11 metadata, a third of the download).
echo "deb [signed-by=$KEYRING target-=DEP-11,DEP-11-icons-small,DEP-11-icons,DEP-11-icons-hidpi] $mirror $SUITE main" >"$APT/etc/apt/sources.list"
opts=(-o "Dir::Etc=$APT/etc/apt" -o "Dir::State::Lists=$APT/lists" -o "Dir::State::status=$APT/status"
  -o "Dir::Cache=$APT/cache" -o "Dir::Cache::archives=$APT/cache/archives"
  -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Debug::NoLocking=1)
say "downloading ${PACKAGES[*]} of Debian $SUITE and their dependencies into $DIR"
if ! apt-get "${opts[@]}" -qq update >"$APT/update.log" 2>&1; then
  cat "$APT/update.log" >&2
  say "apt-get update of Debian $SUITE failed"
  exit 1
fi
if ! apt-get "${opts[@]}" -y -qq --download-only --no-install-recommends install "${PACKAGES[@]}" >"$APT/install.log" 2>&1; then
  cat "$APT/install.log" >&2
  say "downloading Debian $SUITE's ${PACKAGES[*]} failed"
  exit 1
fi
debs=("$APT"/cache/archives/*.deb)
for deb in "${debs[@]}"; do
  dpkg-deb -x "$deb" "$NEW"
done
for d in bin sbin lib lib64; do
  [[ -e $NEW/$d ]] || ln -s "usr/$d" "$NEW/$d"
done
cp "$NEW/usr/share/base-passwd/passwd.master" "$NEW/etc/passwd"
cp "$NEW/usr/share/base-passwd/group.master" "$NEW/etc/group"
[[ -e $NEW/usr/sbin/slurmctld ]] || ln -s slurmctld-wlm "$NEW/usr/sbin/slurmctld"
mkdir -p "$NEW/proc" "$NEW/dev" "$NEW/tmp"
chmod 1777 "$NEW/tmp"
chmod 755 "$NEW"
if ! version=$(chroot "$NEW" /usr/sbin/slurmctld -V 2>&1); then
  say "the unpacked slurmctld does not run: $version"
  exit 1
fi
{
  echo "suite=$SUITE"
  echo "slurmctld=$version"
  echo "packages=${#debs[@]}"
} >"$NEW.stamp"
mv "$NEW.stamp" "$NEW/orcs-slurm.stamp"
rm -rf "$DIR"
mv "$NEW" "$DIR"
say "$version from Debian $SUITE in $DIR (${#debs[@]} packages, $(($(date +%s) - start)) s)"
echo "$DIR"
