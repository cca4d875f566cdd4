#!/bin/bash
# Approvals through a real mount: the hook approves, refuses, times out,
# crashes, prints garbage; golemfs approve answers y, n, a from its stdin;
# a waiting write does not hold up other requests; blocked is never
# bypassed; every question and answer is audited.
. "$(dirname "$0")/lib.sh"

cd "$T"
cat > hook.sh <<'Y'
#!/bin/sh
case "$GOLEMFS_PATH" in
*/ok*) echo "fine: $GOLEMFS_OP $GOLEMFS_PATH in $GOLEMFS_ZONE by $GOLEMFS_COMM"; exit 0 ;;
*/slow*) sleep 30; exit 0 ;;
*/crash*) kill -SEGV $$ ;;
*/junk*) printf '\001\002\377junk\n'; exit 3 ;;
*) echo "no: $GOLEMFS_PATH"; exit 1 ;;
esac
Y
chmod +x hook.sh
cat > golem.yaml <<'Y'
sandbox:
  zones:
    final: { path: ./final, mode: rw, approval: { write: ask, delete: ask } }
    locked: { path: ./locked, mode: rw, approval: { delete: blocked } }
    other: { path: ./other, mode: rw }
approval: { hook: ./hook.sh, timeout: 2 }
Y
gmount m --session hook || exit 1
# the audit commits in batches: wait for a row to land (up to 2 s)
q() {
	local r i
	for i in $(seq 40); do
		r=$(sqlite3 .sandbox/audit.db "$1")
		[ -n "$r" ] && [ "$r" != 0 ] && break
		sleep 0.05
	done
	echo "$r"
}

expect OK create m/final/ok.txt
check "hook env and reason in the audit" \
	"approved" "$(q "select reason from events where op='approval-answer' and path='/final/ok.txt'")"
expect EACCES create m/final/no.txt
check "hook refusal reason" "write /final/no.txt needs approval: no: /final/no.txt" \
	"$(q "select reason from events where op='create' and path='/final/no.txt'")"
start=$SECONDS
expect EACCES create m/final/slow.txt
[ $((SECONDS - start)) -le 5 ] || fail "the timeout did not end the wait"
check_contains "timeout reason" "no answer within 2 s" \
	"$(q "select reason from events where op='create' and path='/final/slow.txt'")"
expect EACCES create m/final/crash.txt
check_contains "crash reason" "died (signal 11)" \
	"$(q "select reason from events where op='create' and path='/final/crash.txt'")"
expect EACCES create m/final/junk.txt
check_contains "garbage is cleaned, exit decides" "???junk" \
	"$(q "select reason from events where op='create' and path='/final/junk.txt'")"
echo keep > .sandbox/final/keep.txt
expect EACCES unlink m/final/keep.txt
"$GOLEMFS" audit --limit 1 >/dev/null # commits what the mount queued
check "every question and answer audited" "6 6" \
	"$(q "select count(*) from events where op='approval-ask'") $(q "select count(*) from events where op='approval-answer'")"
# blocked is never bypassed, and asks nobody
echo x > m/locked/f
expect EACCES unlink m/locked/f
check "blocked asks nobody" 6 "$(q "select count(*) from events where op='approval-ask'")"

# while one write waits (slow hook), other zones keep working
"$FSOP" create m/final/slow2.txt > slow.out &
waiter=$!
asked() { "$GOLEMFS" audit --op approval-ask --path "$1" | grep -q .; }
wait_for 10 asked /final/slow2.txt || fail "the slow write was never asked"
start=$EPOCHREALTIME
for i in 1 2 3 4 5; do echo $i > m/other/f$i; cat m/other/f$i >/dev/null; done
ls m/other >/dev/null
took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
[ "$took" -lt 1500 ] || fail "other requests waited ${took} ms behind an approval"
wait $waiter
check "the waiting write was refused at its timeout" EACCES "$(cat slow.out)"

# six writes wait at once: six more readers; when the waits end, the
# spares park or end - and the mount goes on serving, whichever thread
# (the first one too) turned out spare
# (one directory each: the kernel serialises creates in one directory)
for i in 1 2 3 4 5 6; do
	mkdir -p .sandbox/final/d$i
	"$FSOP" create m/final/d$i/slow.txt > /dev/null &
done
wait
for i in $(seq 200); do stat m/other/f1 >/dev/null || break; done
sleep 0.3 # not a wait for an event: time for the spare readers to retire
for i in $(seq 200); do cat m/other/f1 >/dev/null || break; done
check "the mount serves after many waits ended" "1" "$(cat m/other/f1)"
gumount m

# golemfs approve, driven by a program through stdin: y, n, a
cat > ask.yaml <<'Y'
sandbox:
  zones:
    final: { path: ./final2, mode: rw, approval: { write: ask } }
approval: { timeout: 10 }
Y
gmount m2 -c ask.yaml --session interactive || exit 1
# a scripted approver: reads what `golemfs approve --json` shows and
# answers each request by its ID (the coprocess's input and output)
coproc AP { exec "$GOLEMFS" approve --json m2 2> approve.err; }
approver=$AP_PID
# next_event TYPE: the next JSON line of that type into $EV, and kept in
# asked.jsonl (no $(...): a subshell cannot read the coprocess)
next_event() {
	while IFS= read -r -t 15 -u "${AP[0]}" EV; do
		printf '%s\n' "$EV" >> asked.jsonl
		[ "$(jq -r .type <<< "$EV")" = "$1" ] && return 0
	done
	fail "no $1 event from the approver: $(cat approve.err)"
	return 1
}
next_event ready

# ask_and_answer ANSWER EXPECTED OP PATH: start OP, answer what is shown
ask_and_answer() {
	local id
	"$FSOP" "$3" "$4" > op.out &
	local op=$!
	next_event ask || { wait $op; return 1; }
	printf '%s\n' "$EV" > last.json
	id=$(jq -r .id <<< "$EV")
	echo "$1 $id" >&"${AP[1]}"
	next_event done
	wait $op
	check "$1 for $4" "$2" "$(cat op.out)"
}
ask_and_answer y OK create m2/final/y.txt
check "what the approver saw" "write /final/y.txt" \
	"$(jq -r '"\(.op) \(.path)"' last.json)"
ask_and_answer n EACCES create m2/final/n.txt
ask_and_answer a OK create m2/final/a.txt
expect OK write m2/final/a.txt again
check "a: the same path does not ask again" 3 \
	"$(jq -r 'select(.type == "ask") | .id' asked.jsonl | wc -l)"
jq -e . asked.jsonl >/dev/null || fail "approve --json is not JSON lines"

# a name that forges a request line: shown escaped, one request only; the
# approver refuses exactly that one, and the forged one never exists
forged=$'x\nask 99 write evil 1 sh 0'
ask_and_answer n EACCES create "m2/final/$forged"
check "the forged name is the path shown" "/final/$forged" \
	"$(jq -r .path last.json)"
check "its request line is one line" 1 "$(jq -r .request last.json | wc -l)"
[ ! -e ".sandbox/final2/$forged" ] && [ ! -e .sandbox/final2/evil ] &&
	[ -d .sandbox/final2 ] ||
	fail "the forged request created a file"
# spaces, quotes, ESC, a backslash and bytes that are not UTF-8: shown
# and answerable; the host gets exactly that name
odd=$'a b "q" \e[31m\\ \xff\xfe.txt'
ask_and_answer y OK create "m2/final/$odd"
[ -e ".sandbox/final2/$odd" ] || fail "the odd name was not created as approved"
check_contains "invalid UTF-8 as surrogate escapes" \
	'"path":"/final/a b \"q\" \u001b[31m\\ \udcff\udcfe.txt"' "$(cat last.json)"
python3 -c 'import json,os,sys; p=json.load(open("last.json"))["path"]; sys.stdout.buffer.write(os.fsencode(p))' > py.path 2>/dev/null &&
	printf '/final/%s' "$odd" | cmp -s - py.path ||
	fail "os.fsencode of the JSON path is not the name's bytes"

# an answer that names another request is ignored; the shown one waits
"$FSOP" create m2/final/bound.txt > op.out &
op=$!
next_event ask
id=$(jq -r .id <<< "$EV")
echo "y $((id + 1000))" >&"${AP[1]}"
echo "y ask $id write \"/final/other.txt\" 1 \"fsop\" 0" >&"${AP[1]}"
echo "n $id" >&"${AP[1]}"
next_event done
wait $op
check "only the answer for the shown request counts" EACCES "$(cat op.out)"
check_contains "the stray answers were said to be ignored" "names another request" \
	"$(cat approve.err)"
check_contains "status counts no pending" "approvals: 0 pending" \
	"$("$GOLEMFS" status m2)"
out=$(echo | "$GOLEMFS" approve m2 2>&1)
check "a second approve session is refused" 1 $?
check_contains "says why" "another approve session" "$out"
exec {AP[1]}>&-
wait $approver
check "the approver ends at end of input" 0 $?

# text mode: the prompt is one line with the path quoted; input typed
# before a request is shown is not an answer; an answer followed at once
# by the end of input still counts
mkfifo answers
"$GOLEMFS" approve m2 < answers 2> prompt.err &
approver=$!
exec 4> answers
for i in $(seq 100); do grep -q "waiting for requests" prompt.err && break; sleep 0.05; done
echo y >&4
for i in $(seq 100); do grep -q "input ignored" prompt.err && break; sleep 0.05; done
check_contains "typed-ahead input is not an answer" "no request is shown" "$(cat prompt.err)"
"$FSOP" create "m2/final/$forged" > op.out &
op=$!
for i in $(seq 200); do grep -q "by pid" prompt.err && break; sleep 0.05; done
check_contains "the prompt quotes the name" \
	': write "/final/x\nask 99 write evil 1 sh 0" by pid' \
	"$(cat prompt.err)"
check "no forged line" 0 "$(grep -c '^ask' prompt.err)"
echo y >&4
exec 4>&-
wait $op
check "an answer followed by end of input counts" OK "$(cat op.out)"
wait $approver
check "approve confirmed and ended" 0 $?
[ -e ".sandbox/final2/$forged" ] || fail "the approved file is missing"
[ ! -e .sandbox/final2/evil ] || fail "the forged file exists"

# the daemon binds an answer to its request line (the socket protocol)
sock=$("$GOLEMFS" status m2 | sed -n 's/^control: //p')
python3 - "$sock" "$FSOP" m2/final/raw.txt > raw.out <<'PY'
import socket, subprocess, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rwb", buffering=0)
f.write(b"approve\n")
print(f.readline().decode().strip())
op = subprocess.Popen([sys.argv[2], "create", sys.argv[3]], stdout=subprocess.PIPE)
ask = f.readline().rstrip(b"\n")
i = ask.split()[1].decode()
f.write(b"answer 999 y " + ask + b"\n")
print(f.readline().decode().strip())
f.write(b"answer " + i.encode() + b" y " + ask.replace(b"raw", b"wow") + b"\n")
print(f.readline().decode().strip().replace(i, "ID"))
f.write(b"answer " + i.encode() + b" n " + ask + b"\n")
print(f.readline().decode().strip().replace(i, "ID"))
print(op.communicate()[0].decode().strip())
PY
check "the socket protocol binds answers" "ok 2|refused 999 no such request is waiting|refused ID the answer does not match the request|done ID n|EACCES" \
	"$(paste -sd'|' raw.out)"
# with the approver gone and no hook: refused at once
expect EACCES create m2/final/after.txt
check_contains "no approver, no hook" "no approver is connected" \
	"$(q "select reason from events where path='/final/after.txt' and op='create'")"
gumount m2
finish
