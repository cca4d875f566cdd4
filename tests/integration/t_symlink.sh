#!/bin/bash
# symlinks: inside, from the attacker's side. A program inside `golemfs run`
# makes links, renames and exchanges directories holding them and hard-links
# them; after each attack the host resolves every link of the zone's backing
# directory (fsop resolve: as the host's kernel would, ".." from where a
# link led) and none may lead outside it; the canary beside the zone is
# unchanged. Also: after a rename or exchange, the daemon knows the new
# place of both sides at once (no ESTALE, audit rows name the new path).
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

# inside 'SHELL CODE': run it in the sandbox (F is the fsop helper), print
# its output on one line
inside() {
	"$GOLEMFS" run ${CFG:+-c "$CFG"} -- sh -c "F=/tools/fsop; $1" \
		2>/dev/null |
		tr '\n' ' ' | sed 's/ $//'
}

# links_stay_inside WHAT: every symlink under the zone's directory resolves,
# on the host, inside it; the canary is untouched
links_stay_inside() {
	local l r bad=""
	while IFS= read -r -d '' l; do
		r=$("$FSOP" resolve "$l")
		case "$r" in
		"$TOP" | "$TOP"/* | ELOOP) ;; # a loop leads nowhere
		*) bad="$bad ${l#box/ws/}->$r" ;;
		esac
	done < <(find box/ws -type l -print0)
	check "$1: links stay inside on the host" "" "$bad"
	check "$1: canary unchanged" CANARY "$(cat box/OUTSIDE/canary)"
}

# ---- issue 19.1: exchange a deep directory with a shallow one ----
check "exchange, then a link as deep as the old place" \
	"OK OK OK OK OK EACCES OK OK" "$(inside '
	$F mkdir /ws/a; $F mkdir /ws/a/b; $F mkdir /ws/a/b/c; $F mkdir /ws/x
	echo f > /ws/a/b/c/f
	$F exchange /ws/x /ws/a/b/c
	$F symlink /ws/x/s ../../OUTSIDE/canary
	$F create /ws/x/new
	$F create /ws/a/b/c/new2')"
check "the exchanged directories hold what they should" "f new|new2" \
	"$(ls box/ws/x | tr '\n' ' ' | sed 's/ $//')|$(ls box/ws/a/b/c)"
links_stay_inside "exchange"

# the shell stands in a directory that is then exchanged: the kernel acts
# on that node without a lookup, so the daemon must know at once where
# it went (a create there is no ESTALE, lands there, its audit row names
# the new path), and the other side too
rm -rf box/ws/*
check "exchange known at once on both sides" "OK OK OK OK OK OK EACCES" \
	"$(inside '
	$F mkdir /ws/p; $F mkdir /ws/p/q; $F mkdir /ws/y
	cd /ws/p/q
	$F exchange /ws/y /ws/p/q
	$F create one; $F create /ws/p/q/two
	$F symlink s ../../OUTSIDE/canary')"
check "creates landed where the names are" "one|two" \
	"$(ls box/ws/y)|$(ls box/ws/p/q)"
rows=$("$GOLEMFS" audit --op create --json 2>/dev/null |
	grep -o '"path":"[^"]*"' | sort | tr '\n' ' ')
check_contains "audit row of the create in y" '"path":"/ws/y/one"' "$rows"
check_contains "audit row of the create in p/q" '"path":"/ws/p/q/two"' \
	"$rows"
links_stay_inside "exchange known"

# the same for a plain rename of the directory the shell stands in
rm -rf box/ws/*
check "rename known at once" "OK OK OK OK OK" "$(inside '
	$F mkdir /ws/p; $F mkdir /ws/p/q
	cd /ws/p/q
	$F rename /ws/p/q /ws/z
	$F create three; $F stat /ws/z/three')"
check "the create landed in the renamed directory" "three" "$(ls box/ws/z)"

# ---- issue 15.5: links judged physically, not lexically ----
rm -rf box/ws/*
check "a link to . then up through it" "OK EACCES EACCES OK" "$(inside '
	$F symlink /ws/s .
	$F symlink /ws/t s/s/../../OUTSIDE/canary
	$F symlink /ws/t2 s/../OUTSIDE/canary
	$F symlink /ws/t3 s/s/f')"
links_stay_inside "link to ."

# ---- issue 19.3: links to ancestors ----
check "a link to .. then up through it" "OK OK EACCES EACCES" "$(inside '
	$F mkdir /ws/d
	$F symlink /ws/d/up ..
	$F symlink /ws/d/t up/../OUTSIDE/canary
	$F symlink /ws/d/t2 up/up/../../OUTSIDE/canary')"
links_stay_inside "link to .."

# ---- issue 19.2: a hard link moves a link to another depth ----
rm -rf box/ws/*
check "ln -P of a relative link, higher up" "OK OK EACCES OK OK" "$(inside '
	$F mkdir /ws/d
	$F symlink /ws/d/s ../x
	$F link /ws/d/s /ws/s2
	$F mkdir /ws/d/e
	$F link /ws/d/s /ws/d/e/s3')"
check "the refused hard link is absent" "no" \
	"$([ -e box/ws/s2 ] || [ -L box/ws/s2 ] && echo yes || echo no)"
links_stay_inside "hard link"

# ---- rename of a link, or of a directory holding links, higher up ----
rm -rf box/ws/*
check "renames that move links higher up" \
	"OK OK OK OK EACCES EACCES OK OK OK" "$(inside '
	$F mkdir /ws/d; $F mkdir /ws/d/e; $F mkdir /ws/g
	$F symlink /ws/d/e/l ../../OUTSIDE/canary
	$F rename /ws/d/e/l /ws/l
	$F rename /ws/d/e /ws/e
	$F rename /ws/d /ws/d2
	$F rename /ws/d2/e /ws/g/e
	$F rename /ws/g/e /ws/d2/e')"
check "the link stayed below" "l" "$(ls box/ws/d2/e)"
links_stay_inside "rename"

# ---- exchange moving links higher up, on either side ----
rm -rf box/ws/*
check "exchanges that move links higher up" \
	"OK OK OK OK OK OK OK OK EACCES EACCES OK" "$(inside '
	$F mkdir /ws/p; $F mkdir /ws/p/q; $F mkdir /ws/p/q/r; $F mkdir /ws/y
	$F mkdir /ws/m; $F mkdir /ws/m/n; $F mkdir /ws/m/n/o
	$F symlink /ws/p/q/r/l ../../../OUTSIDE
	$F exchange /ws/y /ws/p/q/r
	$F exchange /ws/p/q/r /ws/y
	$F exchange /ws/m/n/o /ws/p/q/r')"
check "the link moved at its depth" "l" "$(ls box/ws/m/n/o)"
links_stay_inside "exchange of links"

# ---- links the user left are the user's, until moved higher up ----
rm -rf box/ws/*
mkdir -p box/ws/u/v box/ws/deep/er
ln -s ../../../OUTSIDE/canary box/ws/u/v/l
check "a user's link is moved level or deeper, not higher" \
	"OK EACCES EACCES OK" "$(inside '
	$F rename /ws/u /ws/deep/u
	$F rename /ws/deep/u/v /ws/v
	$F rename /ws/deep/u/v/l /ws/deep/l
	$F rename /ws/deep/u/v /ws/deep/er/v')"
check "it is where the allowed moves put it" "l" "$(ls box/ws/deep/er/v)"
links_stay_inside "user's link"

# ---- absolute targets are host paths on the host ----
rm -rf box/ws/*
check "absolute targets" "EACCES EACCES OK EACCES" "$(inside "
	\$F symlink /ws/a1 /etc/passwd
	\$F symlink /ws/a2 /ws/x
	\$F symlink /ws/a3 $TOP/x
	\$F symlink /ws/a4 $TOP/../OUTSIDE/canary")"
links_stay_inside "absolute"

# ---- a zone inside another: a link made through the outer zone in the
# inner zone's directory must stay inside the inner one too ----
rm -rf box/ws/*
cat > nested.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    outer: { path: ./box, mode: rw }
    ws: { path: ./box/ws, mode: rw }
    tools: { path: ./tools, mode: ro }
Y
check "links through an outer zone" "OK EACCES OK OK EACCES" \
	"$(CFG=nested.yaml inside '
	$F mkdir /outer/ws/d
	$F symlink /outer/ws/d/l ../../OUTSIDE/canary
	$F symlink /outer/ws/d/l2 ../x
	$F symlink /outer/OUTSIDE/l3 ../ws/x
	$F symlink /outer/ws/l4 ../OUTSIDE/canary')"
links_stay_inside "nested zones"

# ---- ordinary links keep working ----
rm -rf box/ws/*
check "ordinary relative links" "OK OK OK OK same same OK" "$(inside '
	$F mkdir /ws/lib; $F mkdir /ws/bin
	echo same > /ws/lib/x
	$F symlink /ws/bin/x ../lib/x
	$F symlink /ws/lib/x.1 x
	cat /ws/bin/x; cat /ws/lib/x.1
	$F rename /ws/bin /ws/lib/bin')"
links_stay_inside "ordinary"

finish
