#!/bin/bash
# golemfs's own files and other zones' directories, attacked from inside
# `golemfs run` at trust full through a repo zone that holds them all:
# the config file, a worker file, the approval hook, a nested sandbox root
# with the audit database, the names config discovery reads; a path that
# is also another zone's (stricter of both). Each attack is checked by its
# effect on the host: bytes identical, names absent, the next `golemfs
# audit` reading the real database.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p proj/input proj/final proj/data proj/other proj/sub
P=$T/proj
echo "input data" > proj/input/a.md
echo "free" > proj/a.txt
cat > proj/golem.yaml <<'Y'
sandbox:
  mode: direct
  root: ./data/sb
  zones:
    repo:  { kind: repo, path: . }
    input: { path: ./input, mode: ro }
    final: { path: ./final, mode: rw, approval: { write: ask } }
trust: full
approval: { hook: ./scripts/approve.sh, timeout: 5 }
Y
cat > proj/agent.worker <<'W'
---
name: agent
sandbox:
  zones:
    - { name: repo, mode: rw }
    - { name: input, mode: ro }
    - { name: final, mode: rw }
---
W
cp proj/golem.yaml golem.yaml.orig
cp proj/agent.worker agent.worker.orig
cp "$FSOP" proj/fsop
cat > proj/attack.sh <<'A'
F=/repo/fsop
t() { printf '%s %s\n' "$1" "$(shift; $F "$@")"; }
# the config file and the worker file
t cfg-append append /repo/golem.yaml
t cfg-write write /repo/golem.yaml
t cfg-chmod chmod /repo/golem.yaml
t cfg-rename rename /repo/golem.yaml /repo/g2
t cfg-unlink unlink /repo/golem.yaml
t cfg-link link /repo/golem.yaml /repo/g3
t cfg-over rename /repo/a.txt /repo/golem.yaml
t cfg-discover create /repo/golem-forge.config.yaml
t worker-append append /repo/agent.worker
# the approval hook, which does not exist yet
t hook-link symlink /repo/scripts2 other
t hook-swap rename /repo/scripts2 /repo/scripts
t hook-mkdir mkdir /repo/scripts
t hook-create create /repo/scripts/approve.sh
t hook-rmdir rmdir /repo/scripts
# a directory above the sandbox root
t root-rename rename /repo/data /repo/data2
t root-exchange exchange /repo/data /repo/other
t root-exchange2 exchange /repo/other /repo/data
t root-rmdir rmdir /repo/data
t root-hidden stat /repo/data/sb
# a path that is also another zone's
t nest-read read /repo/input/a.md
t nest-write write /repo/input/a.md
t nest-create create /repo/input/new
t nest-ask create /repo/final/x
t nest-rename rename /repo/input /repo/in2
t nest-exchange exchange /repo/final /repo/other
t nest-move rename /repo/a.txt /repo/input/a.txt
t nest-link link /repo/input/a.md /repo/l
# what stays allowed
t free-create create /repo/free.txt
t free-rename rename /repo/free.txt /repo/free2.txt
t free-mkdir mkdir /repo/data/sub
# a config planted below the project: discovery would read it when golemfs
# next starts there, with its hook run on the host
t plant-create create /repo/sub/golem.yaml
t plant-forge create /repo/sub/golem-forge.config.yaml
t plant-rename rename /repo/free2.txt /repo/sub/golem.yaml
t plant-link link /repo/a.txt /repo/sub/golem.yaml
t plant-symlink symlink /repo/sub/golem.yaml ../golem.yaml
t plant-mkdir mkdir /repo/sub/golem.yaml
t plant-final create /final/golem.yaml
A
out=$(cd proj && "$GOLEMFS" run -W ./agent.worker -- sh /repo/attack.sh 2>/dev/null)
r() { sed -n "s/^$1 //p" <<<"$out"; }
for a in cfg-append cfg-write cfg-chmod cfg-rename cfg-unlink cfg-link \
	cfg-over cfg-discover worker-append hook-create hook-rmdir hook-swap \
	root-rename root-exchange root-exchange2 root-rmdir nest-ask nest-rename \
	nest-exchange plant-create plant-forge plant-rename plant-link \
	plant-symlink plant-mkdir plant-final; do
	check "$a is refused" EACCES "$(r $a)"
done
for a in hook-mkdir hook-link nest-read free-create free-rename free-mkdir; do
	check "$a is allowed" OK "$(r $a)"
done
check "the sandbox root stays hidden" ENOENT "$(r root-hidden)"
check "nest-write is refused as in /input" EROFS "$(r nest-write)"
check "nest-create is refused as in /input" EROFS "$(r nest-create)"
check "nest-move is refused as in /input" EROFS "$(r nest-move)"
check "nest-link crosses zones" EXDEV "$(r nest-link)"

# the effect on the host
cmp -s golem.yaml.orig proj/golem.yaml && pass || fail "golem.yaml changed"
cmp -s agent.worker.orig proj/agent.worker && pass ||
	fail "agent.worker changed"
check "no second config" "no" \
	"$([ -e proj/golem-forge.config.yaml ] && echo yes || echo no)"
check "no hook planted" "no" \
	"$([ -e proj/scripts/approve.sh ] && echo yes || echo no)"
check "the hook's directory is no symlink" "dir" \
	"$([ -L proj/scripts ] && echo link || echo dir)"
check "the sandbox root stayed" "yes no" \
	"$([ -e proj/data/sb/audit.db ] && echo yes || echo no) $([ -e proj/data2 ] && echo yes || echo no)"
check "input unchanged" "input data" "$(cat proj/input/a.md)"
check "no config planted below the project" "" "$(ls -A proj/sub; ls -A proj/final)"
check "nothing new in input or final" "" \
	"$(ls proj/input proj/final | grep -v -e '^a.md$' -e '^proj/' -e '^$')"
check "the allowed write landed" "yes" \
	"$([ -e proj/free2.txt ] && echo yes || echo no)"
# the next golemfs audit reads the real database, with this session in it
check "audit has the refused rename" "rename /repo/data" \
	"$(cd proj && "$GOLEMFS" audit --denied --path /repo/data --op rename \
		--json | jq -r '"\(.op) \(.path)"' | head -1)"

check "/repo/final/x was asked about, as /final asks" \
	"approval-ask /repo/final/x" \
	"$(cd proj && "$GOLEMFS" audit --op approval-ask --path /repo/final/x \
		--json | jq -r '"\(.op) \(.path)"' | head -1)"

# check names what it protects
out=$(cd proj && "$GOLEMFS" check 2>&1)
check_contains "check lists the config" \
	"/repo/golem.yaml  the config file ($P/golem.yaml)" "$out"
check_contains "check lists the hook" \
	"/repo/scripts/approve.sh  the approval hook" "$out"
check_contains "check lists the nested zone" "/repo/input  is also /input" \
	"$out"

# ---- strict config input: exit 2, FILE:LINE:COL ----
mkdir -p strict/real strict/w/src && cd strict
ck() { "$GOLEMFS" check "$@" 2>&1 >/dev/null; echo "exit $?"; }
printf 'trust: full\nsandbox:\n  zones:\n    w: { path: ./w }\ntrust: session\n' > dup.yaml
check "a duplicate key" \
	"golemfs: $T/strict/dup.yaml:5:1: duplicate key 'trust' (first at line 1) exit 2" \
	"$(ck -c dup.yaml | tr '\n' ' ' | sed 's/ $//')"
printf 'trust: full\n# caf\xe9\n' > latin1.yaml
check "a non-UTF-8 file" \
	"golemfs: $T/strict/latin1.yaml:2:6: not UTF-8 text (byte 0xe9); save the file as UTF-8 exit 2" \
	"$(ck -c latin1.yaml | tr '\n' ' ' | sed 's/ $//')"
head -c 64 "$FSOP" > bin.yaml
check_contains "a binary file" "bin.yaml:1:" "$(ck -c bin.yaml)"
check_contains "a binary file: exit 2" "exit 2" "$(ck -c bin.yaml)"
ln -s real link
printf 'sandbox:\n  mode: direct\n  zones:\n    all: { path: ., mode: rw }\n    in: { path: ./link, mode: ro }\n' > sym.yaml
out=$(ck -c sym.yaml)
check_contains "a zone through a symlink in a writable zone" \
	"sym.yaml:5:5: zone 'in': path $T/strict/link runs through symlink $T/strict/link inside writable zone 'all'" "$out"
check_contains "is exit 2" "exit 2" "$out"
printf 'sandbox:\n  mode: direct\n  zones:\n    all: { path: ., mode: ro }\n    in: { path: ./link, mode: ro }\n' > symro.yaml
check_contains "check prints the resolved backing path" \
	"$T/strict/link -> $T/strict/real" "$("$GOLEMFS" check -c symro.yaml)"
printf 'sandbox:\n  mode: direct\n  zones:\n    w: { path: ./w, mode: rw }\n' > w.yaml
printf -- '---\nname: a\nsandbox:\n  restrict: /w/nope\n---\n' > a.worker
out=$(ck -c w.yaml -W a.worker)
check_contains "a restrict that does not exist" \
	"a.worker:4:13: worker 'a': restrict '/w/nope' does not exist" "$out"
check_contains "is exit 2" "exit 2" "$out"
printf -- '---\nname: a\nsandbox:\n  restrict: /w/../../etc\n---\n' > b.worker
check_contains "a restrict that leaves the root" \
	"b.worker:4:13: restrict '/w/../../etc' leaves the root" \
	"$(ck -c w.yaml -W b.worker)"
printf -- '---\nname: a\nsandbox:\n  restrict: /w/src\n---\n' > c.worker
check "a restrict that exists" "exit 0" "$(ck -c w.yaml -W c.worker)"
cd "$T"

# a rename's whiteout (a device node at the source) and fallocate's blocks
# kept past the size, from inside run, after the parent was renamed, and
# onto a config name: nothing of them reaches the host
mkdir -p wo/z/d && echo canary > wo/z/d/f && : > wo/z/small
printf 'sandbox:\n  mode: direct\n  zones:\n    z: { path: ./z, mode: rw, max_file_bytes: 10 }\n' > wo/golem.yaml
cp "$FSOP" wo/z/fsop
out=$(cd wo && "$GOLEMFS" run -- sh -c '
	F=/z/fsop
	echo "mv $($F rename /z/d /z/d2)"
	echo "wo-config $($F whiteout /z/d2/f /z/d2/golem.yaml)"
	echo "wo-moved $($F whiteout /z/d2/f /z/d2/g)"
	echo "keep $($F fallocate-keep /z/small 1048576)"' 2>/dev/null)
check "whiteout and kept blocks refused inside run" \
	"mv OK wo-config EPERM wo-moved EPERM keep EFBIG" "$(tr '\n' ' ' <<<"$out" | sed 's/ $//')"
check "no device node on the host; the file unmoved; no blocks kept" \
	"0 regular file canary 0" \
	"$(find wo -type c -o -type b | wc -l) $(stat -c %F wo/z/d2/f) $(cat wo/z/d2/f) $(stat -c %b wo/z/small)"
check "no config and no second name made" "" "$(ls -A wo/z/d2 | grep -v '^f$')"
finish
