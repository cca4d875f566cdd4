#!/bin/bash
# The audit log through real mounts: a row per decision with the right
# fields and the caller's pid and command; denials with errno and reason;
# kill -9 under load loses at most the last batch and never corrupts the
# file; two mounts share one database; filters, JSON, export and prune.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p box/ro
echo data > box/ro/r.md
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    work: { path: ./work, mode: rw }
    ro:   { path: ./ro, mode: ro }
Y
DB=$T/box/audit.db
q() { sqlite3 "$DB" "$1"; }
# after an unmount the daemon writes its last row as it exits: wait for it
settle() {
	local i
	for i in $(seq 100); do
		[ "$(q "select count(*) from events where session='$1' and op='unmount'")" = 1 ] && return
		sleep 0.1
	done
	fail "no unmount row for session $1"
}
A() { # subcommands (export, prune) come first, as in git
	local sub=
	case "$1" in export | prune) sub=$1; shift ;; esac
	"$GOLEMFS" audit $sub --db "$DB" "$@"
}

gmount m --session s1 || exit 1
W=m/work
expect OK create $W/a.txt
expect OK write $W/a.txt hello
expect OK read $W/a.txt
expect OK mkdir $W/d
expect OK rename $W/a.txt $W/d/b.txt
expect OK link $W/d/b.txt $W/c.txt
expect OK symlink $W/l c.txt
expect OK chmod $W/c.txt 600
expect OK setxattr $W/c.txt
expect OK readdir $W/d
expect OK unlink $W/c.txt
expect OK unlink $W/d/b.txt
expect OK rmdir $W/d
expect EROFS write m/ro/r.md x
for i in $(seq 20); do echo x > $W/many$i; done
# a handle held open past the writer's batch: its bytes come in a release row
exec 3>>$W/held
sleep 0.5
printf abc >&3
exec 3>&-
"$FSOP" create $W/by-fsop >/dev/null &
fsop_pid=$!
wait $fsop_pid
gumount m
settle s1

for op in mount create open release mkdir rename link symlink setattr \
	setxattr readdir unlink rmdir unmount; do
	n=$(q "select count(*) from events where session='s1' and op='$op' and allowed=1")
	[ "$n" -ge 1 ] || fail "no allowed '$op' event"
done
pass
check "create row" "work|/work/a.txt|session|fsop" \
	"$(q "select zone, path, trust, comm from events where op='create' and path='/work/a.txt'")"
# a handle closed within the batch: its bytes are on its open/create row
check "bytes written, on the rows of a.txt (create, write)" "9" \
	"$(q "select sum(wbytes) from events where path='/work/a.txt'")"
check "bytes read, on the rows of a.txt" "5" \
	"$(q "select sum(rbytes) from events where path='/work/a.txt'")"
check "bytes of 20 short writes" "40" \
	"$(q "select sum(wbytes) from events where path glob '/work/many*'")"
n=$(q "select count(*) from events where path glob '/work/many*' and op='release'")
[ "$n" -le 10 ] || fail "$n of 20 short writes took a release row of their own"
check "a long-held handle: the bytes in its release row" "0|3" \
	"$(q "select group_concat(wbytes, '|') from (select wbytes from events where path='/work/held' order by id)")"
check "denial row" "0|30|/ro is read-only; writable: /work" \
	"$(q "select allowed, errno, reason from events where path='/ro/r.md' and op='open'")"
check "pid and comm of the caller" "fsop" \
	"$(q "select comm from events where op='create' and path='/work/by-fsop' and pid=$fsop_pid")"
check "uid of the caller" "$(id -u)" \
	"$(q "select uid from events where path='/work/by-fsop' and op='create'")"

# the CLI: table, filters, JSON, summary
out=$(A --denied)
check_contains "audit --denied shows the reason" "/ro is read-only" "$out"
check "audit --denied shows only denials" 1 "$(echo "$out" | wc -l)"
check "--op filter" "$(q "select count(*) from events where op='unlink'")" \
	"$(A --op unlink --json | wc -l)"
check "--path glob" "$(q "select count(*) from events where path glob '/work/d*'")" \
	"$(A --path '/work/d*' --json | wc -l)"
n=$(q "select count(*) from events where pid=$fsop_pid")
[ "$n" -ge 1 ] || fail "no rows of the fsop pid"
check "--pid filter" "$n" "$(A --pid $fsop_pid --json | wc -l)"
A --json --limit 0 | jq -e . >/dev/null || fail "--json is not JSON lines"
check "--json fields" "false EROFS" \
	"$(A --json --denied | jq -r '"\(.allowed) \(.error)"')"
check "--limit keeps the newest" "unmount" "$(A --limit 1 --json | jq -r .op)"
check_contains "--summary" "by op:" "$(A --summary)"
A --summary >/dev/null
check "--summary exits 0" 0 "$?"
check "export has a header and every row" \
	"$(($(q 'select count(*) from events') + 1))" "$(A export | wc -l)"
check "export --json" "$(q 'select count(*) from events')" \
	"$(A export --json | jq -c . | wc -l)"
out=$(A --since nonsense 2>&1); check "bad --since exits 2" 2 $?
check_contains "bad --since message" "--since 'nonsense'" "$out"
check "found through the config" "$(A --json --limit 0 | wc -l)" \
	"$("$GOLEMFS" audit --json --limit 0 | wc -l)"

# golemfs audit reads its own writes: what returned is in the log at once,
# without waiting for the writer's batch
gmount m --session s-ryw || exit 1
for i in 1 2 3 4 5; do
	: > $W/ryw$i
	check "audit sees the create that returned ($i)" 1 \
		"$(A --session s-ryw --op create --json | grep -c "/work/ryw$i\"")"
done
gumount m
settle s-ryw

# --follow prints new rows as they come
gmount m --session s-follow || exit 1
timeout 30 "$GOLEMFS" audit --db "$DB" --follow --session s-follow \
	--op create > follow.out &
fpid=$!
# creates until one is printed: --follow shows what comes after it started
for i in $(seq 300); do
	touch $W/followed$i
	grep -q /work/followed follow.out && break
	sleep 0.1
done
kill $fpid; wait $fpid 2>/dev/null
check_contains "--follow saw the new create" "/work/followed" "$(cat follow.out)"
gumount m
settle s-follow

# prune removes exactly the older rows
old=$(q "select count(*) from events")
q "update events set time_us = time_us - 86400000000*10 where session='s1'"
n1=$(q "select count(*) from events where session='s1'")
check "prune says how many" "pruned $n1 events" "$(A prune --before 7d)"
check "prune left the rest" "$((old - n1))" "$(q 'select count(*) from events')"
check "prune took only old rows" 0 "$(q "select count(*) from events where session='s1'")"

# kill -9 under a write load: integrity holds, and every row older than a
# batch (and some margin) is there
gmount m --session s-kill || exit 1
pid=$(daemon_pid m)
[ -n "$pid" ] || fail "no daemon pid for m"
( for i in $(seq 1 100000); do
	: > $W/k$i 2>/dev/null || break
	echo "$i ${EPOCHREALTIME/./}" >> done.txt # µs, no fork
done ) &
load=$!
sleep 2
kill -9 "$pid"
killed=${EPOCHREALTIME/./}
wait $load 2>/dev/null
"$GOLEMFS" umount m
check "integrity after kill -9" ok "$(q 'pragma integrity_check')"
# creates that finished 300 ms before the kill must all be logged
want=$(awk -v k="$killed" '$2 < k - 300000 { n = $1 } END { print n + 0 }' done.txt)
got=$(q "select count(*) from events where session='s-kill' and op='create'")
[ "$want" -gt 20 ] || fail "the load made only $want files"
[ "$got" -ge "$want" ] || fail "kill -9 lost events: $got logged, $want expected"
echo "kill -9: $want creates before the margin, $got logged"

# two mounts writing one database at once: all rows, no lock errors
rm -f box/work/k* 2>/dev/null
mkdir m1 m2
MOUNTS+=("$T/m1" "$T/m2")
"$GOLEMFS" mount -f --session p1 m1 2> p1.log &
"$GOLEMFS" mount -f --session p2 m2 2> p2.log &
for i in $(seq 50); do
	[ "$(grep -c ' fuse.golemfs ' /proc/mounts)" -ge 2 ] && ls m1/work m2/work >/dev/null 2>&1 && break
	sleep 0.1
done
( for i in $(seq 300); do : > m1/work/p1-$i; done ) &
w1=$!
( for i in $(seq 300); do : > m2/work/p2-$i; done ) &
w2=$!
wait $w1 $w2
"$GOLEMFS" umount m1; "$GOLEMFS" umount m2
settle p1
settle p2
check "mount 1 rows" 300 "$(q "select count(*) from events where session='p1' and op='create'")"
check "mount 2 rows" 300 "$(q "select count(*) from events where session='p2' and op='create'")"
check "no lock errors" "" "$(grep -i 'locked\|busy' p1.log p2.log)"

# on_full: fail with a tiny queue: a rename takes one slot and gives it
# back (it took two and returned one: the third rename failed with EIO
# while the queue was empty); renames, links, symlinks, reads of links and
# xattrs - everything that reserves - go on for far more than 4 requests
gmount m --session s-slots -o audit.on_full=fail,audit.queue=4 || exit 1
# fsop OP...: a queue of 4 may really be full for a moment (the writer is
# busy): a refused operation did nothing, so it waits for room and tries
# again; a slot that is never given back makes the refusals last
try() {
	local r i
	for i in $(seq 100); do
		r=$("$FSOP" "$@")
		[ "$r" = "Input/output error" ] || break
		sleep 0.05
	done
	echo "$r"
}
rl() {
	local t i
	for i in $(seq 100); do
		t=$(readlink "$1") && break
		sleep 0.05
	done
	echo "$t"
}
echo x > $W/r0
bad=0
for i in $(seq 1 60); do
	r=$(try rename $W/r$((i - 1)) $W/r$i)
	[ "$r" = OK ] || { bad=$((bad + 1)); echo "rename $i: $r"; break; }
done
check "on_full=fail, queue 4: 60 renames in a row" 0 "$bad"
for i in $(seq 1 20); do
	r="$(try symlink $W/l$i r60) $(rl $W/l$i)"
	r="$r $(try link $W/r60 $W/h$i) $(try setxattr $W/r60)"
	r="$r $(try rename $W/l$i $W/m$i) $(try readdir $W)"
	[ "$r" = "OK r60 OK OK OK OK" ] ||
		{ fail "on_full=fail, queue 4: round $i: $r"; break; }
done
gumount m
settle s-slots
check "a row per rename" 80 \
	"$(q "select count(*) from events where session='s-slots' and op='rename' and allowed=1")"

# on_full: fail - with the writer held up by another connection's lock and
# a tiny queue, operations fail with EIO instead of happening unaudited
gmount m --session s-fail -o audit.on_full=fail,audit.queue=4 || exit 1
( printf '.timeout 10000\nBEGIN EXCLUSIVE;\nSELECT 42;\n'; sleep 3
	echo "COMMIT;" ) | sqlite3 "$DB" > holder.out &
holder=$!
for i in $(seq 100); do grep -q 42 holder.out 2>/dev/null && break; sleep 0.05; done
grep -q 42 holder.out || fail "could not take the database lock"
eio=0
for i in $(seq 1 40); do
	r=$("$FSOP" create $W/f$i)
	[ "$r" = "Input/output error" ] && eio=$((eio + 1))
done
wait $holder
[ "$eio" -gt 0 ] || fail "on_full=fail: no operation was refused"
gumount m
settle s-fail
made=$(ls box/work | grep -c '^f[0-9]')
check "on_full=fail: every file made was logged" "$made" \
	"$(q "select count(*) from events where session='s-fail' and op='create' and allowed=1")"
echo "on_full=fail: $eio of 40 creates refused with EIO"

# a bad audit path: exit non-zero, nothing mounted
out=$("$GOLEMFS" mount -o audit.path=/nonexistent/a.db m 2>&1)
[ $? -ne 0 ] || fail "bad audit.path mounted"
check_contains "bad audit.path message" "/nonexistent" "$out"
grep -q " $T/m fuse" /proc/mounts && fail "bad audit.path left a mount"
finish
