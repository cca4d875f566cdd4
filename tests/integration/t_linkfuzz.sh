#!/bin/bash
# Randomized: seeded random sequences of mkdir, create, rename, exchange,
# link, symlink, unlink and rmdir run inside `golemfs run` over a zone;
# after each sequence the host resolves every link of the zone's directory
# (fsop resolve, as the host's kernel would) and none may lead outside it;
# the canary beside the zone is unchanged. A failing seed is printed with
# its sequence.
#   GOLEMFS_FUZZ_SECONDS  how long to go on (default 15; hours for a soak)
#   GOLEMFS_FUZZ_SEED     run this one seed only (to reproduce a failure)
#   GOLEMFS_FUZZ_OPS      operations per sequence (default 60)
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p box/ws box/OUTSIDE tools
echo CANARY > box/OUTSIDE/canary
cp "$FSOP" tools/fsop
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    ws: { path: ./box/ws, mode: rw }
    tools: { path: ./tools, mode: ro }
Y
TOP=$(realpath box/ws)
SECONDS_MAX=${GOLEMFS_FUZZ_SECONDS:-15}
OPS=${GOLEMFS_FUZZ_OPS:-60}
NAMES=(a b s) # few: operations meet each other's names

# The generator never runs in a subshell: bash reseeds RANDOM there, and
# a seed must always give the same sequence. Each helper sets a variable.

pick() { # pick WORD...: one of them, in PK
	shift $((RANDOM % $#))
	PK=$1
}

# a path in the zone in P: half the time one used before (so operations
# meet each other's names), else 1 to 3 names deep, mostly short
USED=()
rpath() {
	local n=$((RANDOM % 4))
	if [ ${#USED[@]} -gt 0 ] && [ $((RANDOM % 2)) -eq 0 ]; then
		P=${USED[RANDOM % ${#USED[@]}]}
		return
	fi
	[ "$n" -gt 0 ] || n=1
	P=/ws
	while [ "$n" -gt 0 ]; do
		pick "${NAMES[@]}"
		P=$P/$PK
		n=$((n - 1))
	done
	USED+=("$P")
}

# a symlink target in TG for a link at $1: ups (often as many as the
# link's depth allows, so that any move higher up would lead out), names,
# now and then a ".." among the names, an absolute host or virtual path,
# or the canary
rtarget() {
	local i ups slashes=${1//[^\/]/}
	pick "${NAMES[@]}"
	case $((RANDOM % 10)) in
	0) TG=$TOP/$PK; return ;;
	1) TG=$TOP/../OUTSIDE/canary; return ;;
	2) TG=/ws/$PK; return ;;
	3 | 4 | 5) ups=$((${#slashes} - 2)) ;;
	*) ups=$((RANDOM % 4)) ;;
	esac
	TG=
	for ((i = ups; i > 0; i--)); do TG=$TG../; done
	for ((i = RANDOM % 3; i > 0; i--)); do
		pick "${NAMES[@]}" "${NAMES[@]}" .. .
		TG=$TG$PK/
	done
	[ $((RANDOM % 3)) -eq 0 ] && TG=${TG}OUTSIDE/canary
	[ -n "$TG" ] || TG=.
	TG=${TG%/}
}

# mkdir of each directory on the way to $1, as mkdir -p
mkdirs() {
	local p=/ws rest=${1#/ws/} n
	while [ -n "$rest" ]; do
		n=${rest%%/*}
		p=$p/$n
		echo "\$F mkdir $p"
		[ "$rest" = "$n" ] && break
		rest=${rest#*/}
	done
}

# two paths in P1 and P2
rpaths() {
	rpath
	P1=$P
	rpath
	P2=$P
}

# the sequence of seed $1, as shell lines for inside the sandbox, in seq.sh
sequence() {
	local i
	RANDOM=$1
	USED=()
	for ((i = 0; i < OPS; i++)); do
		rpaths
		case $((RANDOM % 10)) in
		0 | 1) mkdirs "$P1" ;;
		2) echo "\$F create $P1" ;;
		3) echo "\$F rename $P1 $P2" ;;
		4) echo "\$F exchange $P1 $P2" ;;
		5) echo "\$F link $P1 $P2" ;;
		6 | 7)
			rtarget "$P1"
			echo "\$F symlink $P1 '$TG'"
			;;
		8) echo "\$F unlink $P1" ;;
		9) echo "\$F rmdir $P1" ;;
		esac
	done > seq.sh
}

# the links of the zone's directory that lead outside it on the host
escapes() {
	local l r
	while IFS= read -r -d '' l; do
		r=$("$FSOP" resolve "$l")
		case "$r" in
		"$TOP" | "$TOP"/* | ELOOP) ;; # a loop leads nowhere
		*) printf ' %s -> %s (%s)' "${l#box/ws/}" "$r" \
			"$(readlink "$l")" ;;
		esac
	done < <(find box/ws -type l -print0)
}

run_seed() {
	local seed=$1 bad
	rm -rf box/ws/*
	sequence "$seed"
	"$GOLEMFS" run -- sh -c "F=/tools/fsop; $(cat seq.sh)" >/dev/null 2>&1
	bad=$(escapes)
	if [ -n "$bad" ] || [ "$(cat box/OUTSIDE/canary)" != CANARY ]; then
		fail "seed $seed: links lead out:$bad"
		echo "--- sequence of seed $seed (GOLEMFS_FUZZ_SEED=$seed):"
		cat seq.sh
		return 1
	fi
	pass
}

if [ -n "${GOLEMFS_FUZZ_SEED:-}" ]; then
	run_seed "$GOLEMFS_FUZZ_SEED"
else
	base=$(( $(date +%s) % 100000 ))
	n=0
	start=$SECONDS
	while [ $((SECONDS - start)) -lt "$SECONDS_MAX" ]; do
		run_seed $((base + n)) || break
		n=$((n + 1))
	done
	echo "linkfuzz: $n sequences of $OPS operations, seeds from $base"
	[ "$n" -gt 0 ] || [ "$FAILED" -gt 0 ] || fail "no sequence ran"
fi
finish
