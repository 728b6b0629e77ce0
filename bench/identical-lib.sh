# Shared by the bench/*-identical.sh scripts, which compare the outputs of
# two orcs binaries command line by command line; sourced, not run. A
# script sets usage, sources this file (which reads OLD_BINARY and
# NEW_BINARY from its arguments into old and new, moves to the top of the
# repository and makes the temporary directory tmp), runs each command i
# into $tmp/i/old and $tmp/i/new and calls compare for it; it exits with
# $fail.

old=${1:?usage: $usage}
new=${2:?usage: $usage}
old=$(realpath "$old")
new=$(realpath "$new")
cd "$(dirname "$0")/.." || exit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# compare I SUMMARY LINE: prints "same" with SUMMARY and LINE when the
# outputs in $tmp/I/old and $tmp/I/new are the same, else "DIFFER", LINE
# and the start of the difference, and sets fail.
compare() {
	if diff -r "$tmp/$1/old" "$tmp/$1/new" >"$tmp/$1.diff"; then
		printf 'same   %2d (%s): %s\n' "$1" "$2" "$3"
	else
		printf 'DIFFER %2d: %s\n' "$1" "$3"
		head -20 "$tmp/$1.diff"
		fail=1
	fi
}
