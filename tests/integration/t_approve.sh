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
sleep 0.2
check "every question and answer audited" "6 6" \
	"$(q "select count(*) from events where op='approval-ask'") $(q "select count(*) from events where op='approval-answer'")"
# blocked is never bypassed, and asks nobody
echo x > m/locked/f
expect EACCES unlink m/locked/f
check "blocked asks nobody" 6 "$(q "select count(*) from events where op='approval-ask'")"

# while one write waits (slow hook), other zones keep working
"$FSOP" create m/final/slow2.txt > slow.out &
waiter=$!
sleep 0.3
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
sleep 0.3
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
mkfifo answers
"$GOLEMFS" approve --json m2 < answers > asked.jsonl 2>&1 &
approver=$!
exec 4> answers
sleep 0.3
( sleep 0.3; echo y >&4 ) & expect OK create m2/final/y.txt
( sleep 0.3; echo n >&4 ) & expect EACCES create m2/final/n.txt
( sleep 0.3; echo a >&4 ) & expect OK create m2/final/a.txt
expect OK write m2/final/a.txt again
check "a: the same path does not ask again" 3 "$(wc -l < asked.jsonl)"
jq -e . asked.jsonl >/dev/null || fail "approve --json is not JSON lines"
check "what the approver saw" "write /final/y.txt" \
	"$(head -1 asked.jsonl | jq -r '"\(.op) \(.path)"')"
check_contains "status counts no pending" "approvals: 0 pending" \
	"$("$GOLEMFS" status m2)"
out=$(echo | "$GOLEMFS" approve m2 2>&1)
check "a second approve session is refused" 1 $?
check_contains "says why" "another approve session" "$out"
exec 4>&-
wait $approver
# with the approver gone and no hook: refused at once
expect EACCES create m2/final/after.txt
check_contains "no approver, no hook" "no approver is connected" \
	"$(q "select reason from events where path='/final/after.txt' and op='create'")"
gumount m2
finish
