#!/bin/bash
# The control socket: golemfs status, and live trust changes that take
# effect at once (ls / follows; open handles keep their access); the
# socket refuses other users and is not reachable through the mount.
. "$(dirname "$0")/lib.sh"

cd "$T"
git init -q proj
cd proj
echo secret > hello.txt
cat > golem.yaml <<'Y'
sandbox:
  zones:
    repo: { kind: repo, path: . }
    work: { path: ./w, mode: rw }
Y
M=$T/mnt
gmount "$M" --session ctl || exit 1
lsroot() { ls "$M" | tr '\n' ' ' | sed 's/ $//'; }

out=$("$GOLEMFS" status "$M")
check_contains "status session" "session: ctl" "$out"
check_contains "status trust" "trust: session" "$out"
check_contains "status zones" "zone: /work rwld plain" "$out"
check "status hides what is not visible" "" "$(echo "$out" | grep '/repo')"

check "before" "work" "$(lsroot)"
out=$("$GOLEMFS" trust workspace "$M"); check "trust exits 0" 0 $?
check "trust says what changed" "trust: session workspace" "$out"
check "a raised level shows the zone at once" "repo work" "$(lsroot)"
check "and its files" "secret" "$(cat "$M/repo/hello.txt")"
check_contains "status follows" "trust: workspace" "$("$GOLEMFS" status "$M")"

# a handle opened before the change keeps the access it was opened with
exec 3< "$M/repo/hello.txt"
"$GOLEMFS" trust session "$M" >/dev/null
check "a lowered level hides the zone at once" "work" "$(lsroot)"
check "the open handle still reads" "secret" "$(cat <&3)"
exec 3<&-
expect ENOENT read "$M/repo/hello.txt"
expect ENOENT stat "$M/repo"

# every change is audited
check "trust changes audited" "session -> workspace|workspace -> session" \
	"$("$GOLEMFS" audit --op trust --json | jq -r .reason | paste -sd'|')"

# bad input
out=$("$GOLEMFS" trust high "$M" 2>&1); check "bad level exits 2" 2 $?
out=$("$GOLEMFS" status "$T" 2>&1); check "not a mount exits 1" 1 $?
check_contains "not a mount says so" "no control socket" "$out"

# the socket: 0600 in a 0700 directory, refused to other users
sock=$("$GOLEMFS" status "$M" | sed -n 's/^control: //p')
[ -S "$sock" ] || fail "no control socket at '$sock'"
check "socket mode" "600" "$(stat -c %a "$sock")"
check "socket dir mode" "700" "$(stat -c %a "$(dirname "$sock")")"
expect OK connect "$sock"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	check "the socket refuses another user" EACCES \
		"$(nobody "$FSOP" connect "$sock")"
	out=$(nobody "$GOLEMFS" trust full "$M" 2>&1)
	check "another user cannot change trust" 1 $?
	check_contains "still session" "trust: session" "$("$GOLEMFS" status "$M")"
fi
# nothing of it inside the mount
check "no socket reachable through the mount" "" \
	"$(find "$M" -type s 2>/dev/null)"
gumount "$M"
for i in $(seq 30); do [ -e "$sock" ] || break; sleep 0.1; done
[ -e "$sock" ] && fail "the socket outlived the mount"
finish
