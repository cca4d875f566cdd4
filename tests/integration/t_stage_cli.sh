#!/bin/bash
# The clearance commands end to end on real repositories: staged, diff,
# push (with its question, --yes, --to, --remote), discard, and the audit
# rows they leave. The staged edits are made with the staging library's
# own tool here; the mount serving /staged comes with the staged backend.
. "$(dirname "$0")/lib.sh"
STAGETOOL=${STAGETOOL:?}

cd "$T"
git -c init.defaultBranch=main init -q repo
(cd repo && echo one > a.txt && git add a.txt &&
	git -c user.name=T -c user.email=t@t commit -qm base)
git init -q --bare remote.git
git -C repo remote add origin "file://$T/remote.git"
cat > golem.yaml <<'Y'
sandbox:
  zones:
    staged: { kind: staged, repo: ./repo, branch: main }
Y
st() { "$STAGETOOL" "$T/.sandbox" staged "$T/repo" main "$@"; }

check "no staged commits yet" "" "$("$GOLEMFS" staged)"
st create s1
st put s1 b.txt "two"
st put s1 a.txt "ONE"
st message s1 "add b, shout a"
out=$("$GOLEMFS" staged)
check_contains "staged lists it" "s1" "$out"
check_contains "staged counts" "pending        1      1      0" "$out"
check "staged --json" "pending 1 1" \
	"$("$GOLEMFS" staged --json | jq -r '"\(.status) \(.created) \(.updated)"')"
out=$("$GOLEMFS" diff s1)
check_contains "diff shows the change" "+ONE" "$out"
check_contains "diff shows the new file" "new file mode 100644" "$out"
check_contains "diff --stat" "2 files changed" "$("$GOLEMFS" diff --stat s1)"
out=$("$GOLEMFS" diff nope 2>&1); check "diff of nothing exits 2" 2 $?

# push asks first; 'n' (or no answer) pushes nothing
out=$(echo n | "$GOLEMFS" push s1 2>&1); check "push answered no exits 1" 1 $?
check_contains "push says so" "not pushed" "$out"
check "no branch after no" "" "$(git -C repo branch --list 'golem/*')"
out=$(echo y | "$GOLEMFS" push s1 2>/dev/null); check "push answered yes" 0 $?
check_contains "push prints branch and commit" "golem/s1 " "$out"
check "pushed content" "ONE" "$(git -C repo show golem/s1:a.txt)"
check "pushed message" "add b, shout a" "$(git -C repo log -1 --format=%s golem/s1)"
check "status committed" "committed" "$("$GOLEMFS" staged --json | jq -r .status)"

# --to an existing branch: fast-forward only
st create s2
st create s3
st put s2 c.txt "three"
st put s3 d.txt "four"
"$GOLEMFS" push --yes --to main s2 >/dev/null 2>&1; check "ff push exits 0" 0 $?
check "main moved" "three" "$(git -C repo show main:c.txt)"
out=$("$GOLEMFS" push --yes --to main s3 2>&1); check "non-ff push exits 1" 1 $?
check_contains "non-ff names both heads" "not a fast-forward" "$out"
"$GOLEMFS" push --yes --to other --remote origin s3 >/dev/null 2>&1
check "push to remote" "four" "$(git -C remote.git show other:d.txt)"

# discard
st create s4
"$GOLEMFS" discard s4; check "discard exits 0" 0 $?
check "discarded" "discarded" \
	"$("$GOLEMFS" staged --json | jq -r 'select(.id == "s4") | .status')"
out=$("$GOLEMFS" push --yes s4 2>&1); check "push of discarded exits 1" 1 $?

# a binary file is refused unless --allow-binary
st create s5
st putbin s5 blob.bin
out=$("$GOLEMFS" push --yes s5 2>&1); check "binary refused" 1 $?
check_contains "binary finding" "binary file: blob.bin" "$out"
"$GOLEMFS" push --yes --allow-binary s5 >/dev/null 2>&1
check "binary allowed" 0 $?

# the zone can allow binary files, and set the size limit
cat > allow.yaml <<'Y'
sandbox:
  zones:
    staged:
      kind: staged
      repo: ./repo
      branch: main
      clearance: { binary: allow, max_file_bytes: 10 }
Y
st create s6
st putbin s6 other.bin
"$GOLEMFS" push -c allow.yaml --yes s6 >/dev/null 2>&1
check "binary allowed by the zone" 0 $?
st create s7
st put s7 big.txt "more than ten bytes"
out=$("$GOLEMFS" push -c allow.yaml --yes s7 2>&1)
check "size limit from the zone" 1 $?
check_contains "size finding" "over 10 bytes: big.txt" "$out"

# push commits exactly the reviewed tree: diff names it, --expect binds it
st create e1
st put e1 e.txt "reviewed"
tree=$("$GOLEMFS" diff e1 | sed -n '1s/^staged tree //p')
check "diff names the staged tree" 40 "${#tree}"
check "--stat names the same tree" "staged tree $tree" \
	"$("$GOLEMFS" diff --stat e1 | head -1)"
check "staged --json names it" "$tree" \
	"$("$GOLEMFS" staged --json | jq -r 'select(.id == "e1") | .tree')"
st put e1 e.txt "changed after the review"
out=$("$GOLEMFS" push --yes --expect "$tree" e1 2>&1)
check "push of a changed tree exits 1" 1 $?
check_contains "push says it changed" "changed since it was reviewed" "$out"
check "nothing pushed" "" "$(git -C repo branch --list golem/e1)"
out=$("$GOLEMFS" push --yes --expect "${tree:0:12}" e1 2>&1)
check "an abbreviated --expect is bad usage" 2 $?
check_contains "--expect wants the whole id" "not a tree id" "$out"
tree=$("$GOLEMFS" diff --stat e1 | sed -n '1s/^staged tree //p')
"$GOLEMFS" push --yes --expect "$tree" e1 >/dev/null 2>&1
check "push of the reviewed tree" 0 $?
check "the reviewed tree is the commit's" "$tree" \
	"$(git -C repo rev-parse 'golem/e1^{tree}')"

# changed while the user reads the summary: the "y" pushes nothing.
# ask ID CMD...: start push ID, wait for its question, run CMD, answer y;
# the summary in $summary, the rest of push's stderr in $rest
ask() {
	local id=$1 pusher
	shift
	rm -f ask.in ask.err
	mkfifo ask.in ask.err
	"$GOLEMFS" push "$id" < ask.in 2> ask.err > ask.out &
	pusher=$!
	exec 3> ask.in 4< ask.err
	summary=
	while IFS= read -r -d ']' -u 4 chunk; do
		summary+="$chunk]"
		case "$chunk" in *"[y/N") break ;; esac
	done
	"$@"
	echo y >&3
	rest=$(cat <&4)
	exec 3>&- 4<&-
	wait $pusher
}
st create e2
st put e2 f.txt "what the user reads"
ask e2 st put e2 f.txt "what the program wrote meanwhile"
check "push of a tree changed during the question exits 1" 1 $?
check_contains "the summary names the tree" "staged tree " "$summary"
check_contains "it says so" "changed since it was reviewed" "$rest"
check "nothing pushed meanwhile" "" "$(git -C repo branch --list golem/e2)"
# the message is shown (escaped) and bound the same way
st message e2 $'what the user reads\n\e[2Jbody'
ask e2 st message e2 "what the program wrote meanwhile"
check "push of a message changed during the question exits 1" 1 $?
check_contains "the summary shows the message, escaped" \
	'message what the user reads^J^[[2Jbody' "$summary"
check "no raw escape reaches the terminal" "" "$(printf '%s' "$summary" | tr -d -c '\033')"
check_contains "it says the message changed" "message of staged commit" "$rest"
check "still nothing pushed" "" "$(git -C repo branch --list golem/e2)"

# a sandbox root near PATH_MAX and an ordinary id: diff and push see the
# staged tree, never an empty one (a cut index path once read as empty)
long=$T/$(printf 'r%.0s' $(seq 200))
while [ ${#long} -lt 3900 ]; do long=$long/$(printf 'r%.0s' $(seq 200)); done
long=${long:0:4010}
mkdir -p "$long"
cat > long.yaml <<Y
sandbox:
  root: $long
  zones:
    staged: { kind: staged, repo: $T/repo, branch: main }
Y
"$STAGETOOL" "$long" staged "$T/repo" main create feature-42
"$STAGETOOL" "$long" staged "$T/repo" main put feature-42 deep.txt "deep root"
check_contains "diff under a long root" "+deep root" "$("$GOLEMFS" diff -c long.yaml feature-42)"
"$GOLEMFS" push -c long.yaml --yes feature-42 >/dev/null 2>&1
check "push under a long root" 0 $?
check "the whole tree is pushed" \
	"$( (git -C repo ls-tree --name-only main; echo deep.txt) | sort)" \
	"$(git -C repo ls-tree --name-only golem/feature-42)"
out=$("$STAGETOOL" "$long" staged "$T/repo" main create \
	"$(printf 'x%.0s' $(seq 64))" 2>&1)
check_contains "an id that no longer fits is refused by name" \
	"path too long" "$out"

# the user's actions are audited
check "audit of pushes" 6 \
	"$("$GOLEMFS" audit --op stage-push --json | jq -r 'select(.allowed) | .op' | wc -l)"
check "audit of discard" 1 "$("$GOLEMFS" audit --op stage-discard --json | wc -l)"
git -C repo fsck --no-progress --strict >/dev/null 2>&1 || fail "git fsck repo"
finish
