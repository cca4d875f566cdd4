#!/bin/bash
# Fault injection: what a program sees when the disk under a zone fills
# up or fails, and what the audit does when its own disk is full.
#  - a zone on a full tmpfs: writes fail with ENOSPC (not EIO, not
#    success), the host file holds exactly what the writes said they
#    wrote, and so does the audit row;
#  - EIO from the backing filesystem (an LD_PRELOAD seam, faultinject.c,
#    since this machine has no device-mapper 'error' target) reaches the
#    caller as EIO, for reads, writes and fsync;
#  - the audit database on a full tmpfs, for each audit.on_full: fail
#    refuses operations with EIO, drop lets them happen and counts what
#    was lost, block makes them wait and loses nothing; once space is
#    freed the writer goes on, the daemon is alive and
#    PRAGMA integrity_check says ok;
#  - the audit database locked by another process, with on_full: block:
#    writes wait, other requests are still answered, and the writes and
#    their rows are there once the lock is free.
# tmpfs mounts need root: skipped otherwise (failed under CI=true).
. "$(dirname "$0")/lib.sh"
: "${FAULTINJECT:?set FAULTINJECT to the faultinject.so seam}"
need dd mount umount

if [ "$(id -u)" -ne 0 ]; then
	[ "${CI:-}" = true ] && { echo "FAIL: CI must run as root"; exit 1; }
	echo "SKIP: tmpfs mounts need root"
	exit 77
fi
TMPFS=()
fault_cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do
		fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	for m in "${TMPFS[@]}"; do
		umount -l "$m" 2>/dev/null
	done
	cleanup
}
trap fault_cleanup EXIT
# small_fs DIR SIZE: a tmpfs of SIZE at DIR, unmounted at the end
small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" || {
		fail "mount tmpfs $1"
		exit 1
	}
	TMPFS+=("$1")
}
# fill DIR: write a file until its filesystem has no room left
fill() {
	dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null
	[ "$(stat -f -c %a "$1")" = 0 ] || fail "fill $1: room is left"
}

cd "$T"
mkdir -p box
small_fs box/full 256k
mkdir -p box/ok box/eiozone
echo "old contents" > box/eiozone/r.txt
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    full:    { path: ./full, mode: rw }
    eiozone: { path: ./eiozone, mode: rw }
    ok:      { path: ./ok, mode: rw }
Y
DB=$T/box/audit.db

# ---- a full zone: ENOSPC, and nothing claimed that was not written ----
gmount m --session s-full || exit 1
out=$(dd if=/dev/zero of=m/full/big bs=4k count=256 2>&1)
rc=$?
check "dd into a full zone fails" 1 "$rc"
check_contains "dd into a full zone: ENOSPC" "No space left on device" "$out"
said=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) bytes.*copied.*/\1/p')
host=$(stat -c %s box/full/big)
check "what dd says it wrote is on the host" "$said" "$host"
check "the mount shows the host's size" "$host" "$(stat -c %s m/full/big)"
[ "$host" -gt 0 ] || fail "nothing was written before the disk filled"
expect "No space left on device" create m/full/more
# the zone next to it is not affected
expect OK create m/ok/a
gumount m
wait_for 10 test "$(sqlite3 "$DB" "select count(*) from events where session='s-full' and op='unmount'")" = 1
check "the open row counts the bytes that reached the disk" "$host" \
	"$(sqlite3 "$DB" "select sum(wbytes) from events where session='s-full' and path='/full/big' and op in ('open','create','release') and allowed=1")"
rm -f box/full/big box/full/more

# ---- EIO from the backing filesystem reaches the caller as EIO ----
ASAN_OPTIONS="${ASAN_OPTIONS}:verify_asan_link_order=0" \
	LD_PRELOAD=$FAULTINJECT GOLEMFS_FAULT_EIO=/eiozone/ \
	gmount m --session s-eio || exit 1
expect "Input/output error" read m/eiozone/r.txt
expect "Input/output error" write m/eiozone/r.txt "new"
out=$(dd if=/dev/zero of=m/eiozone/w bs=4k count=1 conv=fsync 2>&1)
check "dd into a failing disk fails" 1 "$?"
check_contains "dd into a failing disk: EIO" "Input/output error" "$out"
check "the host file is unchanged" "old contents" "$(cat box/eiozone/r.txt)"
expect OK create m/ok/b
check "the daemon is alive" OK "$("$FSOP" read m/ok/b)"
gumount m

# ---- the audit's disk fills up ----
small_fs adb 512k
# ops N DIR: N creates through the mount; prints how many failed with what
ops() {
	local i r
	for i in $(seq "$1"); do
		r=$("$FSOP" create "$2/f$i-with-a-long-name-to-fill-pages")
		[ "$r" = OK ] || echo "$r"
	done | sort | uniq -c
}
# audited SESSION: rows of that session in the database
audited() {
	sqlite3 "$DB2" "select count(*) from events where session='$1' and op='create'"
}
DB2=$T/adb/audit.db
for mode in fail drop block; do
	gmount m --session "s-$mode" -o "audit.path=$DB2,audit.on_full=$mode,audit.queue=8" ||
		exit 1
	pid=$(daemon_pid m)
	expect OK create m/ok/before-$mode
	"$GOLEMFS" audit --db "$DB2" --session "s-$mode" >/dev/null
	fill adb
	case $mode in
	fail)
		r=$(ops 60 m/ok)
		check_contains "on_full=fail: refused with EIO" "Input/output error" "$r"
		;;
	drop)
		r=$(ops 60 m/ok)
		check "on_full=drop: every operation happens" "" "$r"
		;;
	block)
		# the operations wait for room; they end once there is some
		ops 30 m/ok >"$T/block.out" &
		opsp=$!
		wait_for 10 test "$(ls m/ok | grep -c -- '-with-a-long-name')" -ge 8
		;;
	esac
	kill -0 "$pid" 2>/dev/null || fail "on_full=$mode: the daemon died"
	rm -f adb/filler
	# golemfs audit asks the mount to commit its queue first: the
	# writer's next try finds room and the queue drains
	"$GOLEMFS" audit --db "$DB2" --session "s-$mode" >/dev/null ||
		fail "on_full=$mode: golemfs audit after space is freed"
	if [ "$mode" = block ]; then
		wait "$opsp"
		check "on_full=block: every operation happened" "" "$(cat "$T/block.out")"
	fi
	expect OK create m/ok/after-$mode
	# the writer works again: the row of an operation after the fault
	"$GOLEMFS" audit --db "$DB2" --session "s-$mode" --path '/ok/after-*' \
		>"$T/after.out" 2>&1
	check_contains "on_full=$mode: audited again after space is freed" \
		"after-$mode" "$(cat "$T/after.out")"
	case $mode in
	drop)
		check_contains "on_full=drop: the loss is recorded" "dropped" \
			"$(sqlite3 "$DB2" "select reason from events where session='s-drop' and op='audit-drop'")"
		;;
	block)
		check "on_full=block: every row is there" 32 "$(audited s-block)"
		;;
	esac
	kill -0 "$pid" 2>/dev/null || fail "on_full=$mode: the daemon died"
	gumount m
	wait_for 10 gone "$pid" || fail "on_full=$mode: daemon $pid did not exit"
	check "on_full=$mode: the database is intact" ok \
		"$(sqlite3 "$DB2" 'PRAGMA integrity_check')"
	rm -f m/ok/* box/ok/* 2>/dev/null
done

# ---- another process holds the audit database's write lock ----
# With on_full: block the queue fills and writes wait for room as long as
# the lock is held. A request that waits hands its reading of requests
# over (gfs_wait_begin), so other requests are answered meanwhile: a
# lookup, a read through a file opened before.
DB3=$T/lock/audit.db
mkdir -p lock
echo "read me" >box/ok/other
# in another directory: the waiting create holds its directory's lock
echo "look me up" >box/eiozone/unseen
# the log is shared: only what this mount writes counts
logpos=$(stat -c %s "$GOLEMFS_LOG_FILE" 2>/dev/null || echo 0)
gmount m --session s-lock -o "audit.path=$DB3,audit.on_full=block,audit.queue=4" ||
	exit 1
pid=$(daemon_pid m)
exec 7<m/ok/other
# its open row is written: nothing of it is left in the queue
"$GOLEMFS" audit --db "$DB3" --session s-lock >/dev/null
mkfifo "$T/lockin"
command sqlite3 "$DB3" <"$T/lockin" >"$T/lock.log" 2>&1 &
lockp=$!
exec 8>"$T/lockin"
echo "BEGIN EXCLUSIVE;" >&8
locked() {
	! command sqlite3 "$DB3" 'BEGIN IMMEDIATE; ROLLBACK;' >/dev/null 2>&1
}
wait_for 10 locked || fail "sqlite3 $lockp does not hold the lock"
ops 20 m/ok >"$T/lock.out" 8>&- &
opsp=$!
waits() {
	tail -c +$((logpos + 1)) "$GOLEMFS_LOG_FILE" |
		grep -q "audit: the queue is full"
}
wait_for 30 waits ||
	fail "no write waits for room in the audit queue"
check "a lookup is answered while a write waits" 11 \
	"$(timeout -s KILL 10 stat -c %s m/eiozone/unseen)"
check "a read is answered while a write waits" "read me" \
	"$(timeout -s KILL 10 cat <&7)"
kill -0 "$opsp" 2>/dev/null || fail "the writes did not wait for the lock"
exec 8>&- # sqlite3 ends, its transaction rolled back: the lock is free
wait_for 10 gone "$lockp" || fail "sqlite3 $lockp did not end"
wait_for 60 gone "$opsp" || fail "the writes did not end after the lock"
wait "$opsp"
check "every write happened once the lock was free" "" "$(cat "$T/lock.out")"
"$GOLEMFS" audit --db "$DB3" --session s-lock >/dev/null ||
	fail "golemfs audit after the lock"
check "every write has its row" 20 \
	"$(sqlite3 "$DB3" "select count(*) from events where session='s-lock' and op='create' and allowed=1")"
check "the last write has its row" 1 \
	"$(sqlite3 "$DB3" "select count(*) from events where session='s-lock' and op='create' and path like '/ok/f20-%'")"
exec 7<&-
kill -0 "$pid" 2>/dev/null || fail "the daemon died with the lock"
gumount m
wait_for 10 gone "$pid" || fail "daemon $pid did not exit"

finish
