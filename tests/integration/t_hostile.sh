#!/bin/bash
# Nothing a program chose reaches the user's terminal raw: a program inside
# `golemfs run` makes names with newlines, carriage returns, ESC sequences,
# quotes and bytes that are not UTF-8, writes such content and a commit
# message; the BYTES of every command's output are then checked: no raw
# control byte, no invalid UTF-8, no line forged by a name; --json is JSON.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p project/in project/out
echo "input" > project/in/a.md
git -c init.defaultBranch=main init -q repo
(cd repo && echo base > r.txt && git add -A &&
	git -c user.name=T -c user.email=t@t commit -qm base)
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    input:  { path: ./project/in, mode: ro }
    output: { path: ./project/out, mode: rw }
    staged: { kind: staged, repo: ./repo, branch: main }
Y

# clean NAME TEXT: no ESC, CR, BEL, other C0 control but TAB and newline,
# DEL, and valid UTF-8; no line that a name forged
clean() {
	local bad
	bad=$(printf '%s' "$2" | LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]')
	check "$1: no raw control bytes" 0 "$bad"
	printf '%s' "$2" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 ||
		fail "$1: not valid UTF-8"
	check "$1: no forged line" 0 "$(printf '%s\n' "$2" | grep -c '^FORGED')"
}

# the hostile program: names, contents and a commit message
out=$("$GOLEMFS" run -- bash -c '
	cd /staged && mkdir fix && cd fix
	printf "ok\n" > plain.txt
	printf "x\n" > "$(printf "nl\nFORGED line")"
	printf "x\n" > "$(printf "cr\rFORGED")"
	printf "x\n" > "$(printf "esc\033[31mred\033[0m")"
	printf "x\n" > "$(printf "q\"uo\\\\te")"
	printf "x\n" > "$(printf "bad\377\376")"
	printf "x\n" > "$(printf "rtl\342\200\256txt.exe")"
	printf "clear\033[2J\033]0;title\007\r\nFORGED\177 \302\233 \377end\n" > content.txt
	printf "msg \033[31mred\nFORGED message\n" > COMMIT_EDITMSG
	{ printf "x" > "/input/$(printf "ro\nFORGED \033[1mbold")"; } 2>/dev/null
	{ printf "x" > "/input/$(printf "ro\nFORGED \033[1mbold")"; } 2>/dev/null
	echo done' 2>run.err)
check "the hostile program ran" done "$out"
err=$(cat run.err)
clean "refusal notice" "$err"
check_contains "the notice quotes the name" \
	'golemfs: create "/input/ro\nFORGED \033[1mbold" refused' "$err"

d=$("$GOLEMFS" diff fix)
clean "diff" "$d"
check_contains "diff: content escaped" '+clear^[[2J^[]0;title^G^M' "$d"
check_contains "diff: a DEL, a C1 CSI and a stray byte" '+FORGED^? \xc2\x9b \xffend' "$d"
check_contains "diff: a name with a newline is quoted" 'diff --git "a/nl\nFORGED line"' "$d"
check_contains "diff: a right-to-left override is quoted" '"b/rtl\342\200\256txt.exe"' "$d"
s=$("$GOLEMFS" diff --stat fix)
clean "diff --stat" "$s"
check_contains "--stat: quoted name" ' "esc\033[31mred\033[0m" ' "$s"
check_contains "--stat: summary quoted" 'create mode 100644 "bad\377\376"' "$s"
check_contains "--stat: totals" '8 files changed' "$s"

l=$("$GOLEMFS" staged)
clean "staged" "$l"
check_contains "staged: the message escaped" 'msg ^[[31mred' "$l"
j=$("$GOLEMFS" staged --json)
clean "staged --json" "$j"
check "staged --json: the message" $'msg \e[31mred' \
	"$(jq -j .message <<< "$j")"

"$GOLEMFS" push --yes --allow-binary fix > push.out 2> push.err
p=$(cat push.out push.err)
clean "push summary" "$p"
check_contains "push: the summary quotes names" '"cr\rFORGED"' "$p"
check "push: the names reached the repository as they are" \
	"$(printf 'bad\377\376')" \
	"$(git -C repo ls-tree -z --name-only golem/fix | tr "\\0" "\\n" | LC_ALL=C grep -a "^bad")"

# the audit: a row per refusal, names quoted, JSON for any bytes
a=$("$GOLEMFS" audit --limit 200)
clean "audit" "$a"
check_contains "audit: the path quoted" '"/input/ro\nFORGED \033[1mbold"' "$a"
aj=$("$GOLEMFS" audit --json --limit 200)
clean "audit --json" "$aj"
jq -e . <<< "$aj" > /dev/null || fail "audit --json is not JSON"
check_contains "audit --json: the path" '"/input/ro\nFORGED \u001b[1mbold"' \
	"$(jq -c .path <<< "$aj")"
as=$("$GOLEMFS" audit --summary)
clean "audit --summary" "$as"
check_contains "audit --summary: top paths quoted" '"/input/ro\nFORGED \033[1mbold"' "$as"
ae=$("$GOLEMFS" audit export)
clean "audit export" "$ae"

# status: live, at a mountpoint with an ESC in its name
mp=$'m\e[31mx'
gmount "$mp" || exit 1
st=$("$GOLEMFS" status "$mp")
clean "status" "$st"
check_contains "status: the mountpoint escaped" 'mountpoint: '"$T"'/m^[[31mx' "$st"
gumount "$mp"

# error lines name what the user typed or the program chose: escaped too
for c in diff discard push; do
	err=$("$GOLEMFS" $c "$(printf 'no\033[2J\nFORGED such')" 2>&1 </dev/null)
	clean "$c error line" "$err"
	check_contains "$c error line: the name escaped" 'no^[[2J^JFORGED such' "$err"
done

# the pager: never when stdout is not a terminal; GOLEMFS_PAGER otherwise
check "no pager into a pipe" "$d" "$(GOLEMFS_PAGER=false "$GOLEMFS" diff fix)"
if command -v script > /dev/null; then
	GOLEMFS_PAGER='sed s/^/PAGED:/' script -qec "$GOLEMFS diff fix" /dev/null > paged.out
	check "to a terminal the diff goes through the pager" 1 \
		"$(grep -c '^PAGED:diff --git a/content.txt' paged.out)"
	GOLEMFS_PAGER='sed s/^/PAGED:/' script -qec "$GOLEMFS diff --no-pager fix" /dev/null > paged.out
	check "--no-pager" 0 "$(grep -c '^PAGED:' paged.out)"
fi
finish
