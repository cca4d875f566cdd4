#!/bin/bash
# Renames and exchanges from the attacker's side, inside `golemfs run`:
# after a rename or exchange, the daemon knows the new place of both sides
# at once (no ESTALE, audit rows name the new path).
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p box/ws tools
cp "$FSOP" tools/fsop
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    ws: { path: ./box/ws, mode: rw }
    tools: { path: ./tools, mode: ro }
Y

# inside 'SHELL CODE': run it in the sandbox (F is the fsop helper), print
# its output on one line
inside() {
	"$GOLEMFS" run -- sh -c "F=/tools/fsop; $1" 2>/dev/null |
		tr '\n' ' ' | sed 's/ $//'
}

# the shell stands in a directory that is then exchanged: the kernel acts
# on that node without a lookup, so the daemon must know at once where
# it went (a create there is no ESTALE, lands there, its audit row names
# the new path), and the other side too
rm -rf box/ws/*
check "exchange known at once on both sides" "OK OK OK OK OK OK" \
	"$(inside '
	$F mkdir /ws/p; $F mkdir /ws/p/q; $F mkdir /ws/y
	cd /ws/p/q
	$F exchange /ws/y /ws/p/q
	$F create one; $F create /ws/p/q/two')"
check "creates landed where the names are" "one|two" \
	"$(ls box/ws/y)|$(ls box/ws/p/q)"
rows=$("$GOLEMFS" audit --op create --json 2>/dev/null |
	grep -o '"path":"[^"]*"' | sort | tr '\n' ' ')
check_contains "audit row of the create in y" '"path":"/ws/y/one"' "$rows"
check_contains "audit row of the create in p/q" '"path":"/ws/p/q/two"' \
	"$rows"

# the same for a plain rename of the directory the shell stands in
rm -rf box/ws/*
check "rename known at once" "OK OK OK OK OK" "$(inside '
	$F mkdir /ws/p; $F mkdir /ws/p/q
	cd /ws/p/q
	$F rename /ws/p/q /ws/z
	$F create three; $F stat /ws/z/three')"
check "the create landed in the renamed directory" "three" "$(ls box/ws/z)"

finish
