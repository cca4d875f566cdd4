#!/bin/bash
# fs/ asks, policy/ words the refusal (docs/architecture.md, Where each
# errno is decided). Fails, naming the file and the call, when a file of
# fs/ sets a reason with gfs_err_set() for an errno that refuses access
# (EACCES, EPERM, EXDEV, EFBIG, EROFS): such a rule belongs in policy/,
# as a pure function with a unit test, and fs/ only asks it.
#   tests/check_reasons.sh [SOURCE_ROOT]
set -uo pipefail
root=${1:-$(dirname "$0")/..}
# Refusals that are not rules of the policy, each with why:
allowed=(
	'needs approval' # fs/approve.c: the approver's answer, passed on
	'not a private directory' # a command's own setup, not a request
	'/dev/fuse is' # golemfs run's setup, not a request
	'STAGE_MESSAGE_MAX' # staging/'s own limit on a commit message
)
bad=0
for f in "$root"/fs/*.c; do
	# one call per line: gfs_err_set( up to the end of its statement
	while read -r call; do
		[ -n "$call" ] || continue
		ok=0
		for a in "${allowed[@]}"; do
			case $call in *"$a"*) ok=1 ;; esac
		done
		if [ "$ok" = 0 ]; then
			echo "${f#"$root"/}: a refusal worded in fs/: $call"
			bad=1
		fi
	done < <(tr '\n\t' '  ' <"$f" | grep -o 'gfs_err_set([^;]*' |
		grep -E -- '-E(ACCES|PERM|XDEV|FBIG|ROFS)\b' | tr -s ' ')
done
[ "$bad" = 0 ] || echo "check_reasons: move each rule into policy/ and ask it" >&2
exit "$bad"
