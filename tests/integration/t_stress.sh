#!/bin/bash
# The daemon under parallel load never hangs and never fails an operation
# that should succeed: parallel fsync writers on fresh mounts (they hung
# the request loop: issue 17), parallel creates and renames in one
# directory beside readers, readers and writers during live trust
# changes, approvals answered while other threads write. The stress
# helper watches every operation: one that takes longer than 10 s is a
# hang, and the test fails (and kills its daemon, found by pid).
. "$(dirname "$0")/lib.sh"

: "${STRESS:?set STRESS to the stress helper}"
need mountpoint yes awk
SECS=${GOLEMFS_STRESS_SECONDS:-5}

cd "$T"
mkdir -p box
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    work:  { path: ./work, mode: rw }
    sess:  { kind: session }
    final: { path: ./final, mode: rw, approval: { write: ask } }
approval: { timeout: 30 }
Y

# fmount MNT [args]: a daemon in the foreground, so its pid is known
# ($DPID); returns once the mount answers
DPID=
fmount() {
	local mnt=$1 i
	shift
	mkdir -p "$mnt"
	MOUNTS+=("$mnt")
	"$GOLEMFS" mount -f "$@" "$mnt" 2>>"$GOLEMFS_LOG_FILE" &
	DPID=$!
	for i in $(seq 500); do
		mountpoint -q "$mnt" && return 0
		kill -0 $DPID 2>/dev/null || break
		sleep 0.02
	done
	fail "mount $mnt $*"
	return 1
}

# funmount MNT: unmount and wait for the daemon; a hung one is killed
funmount() {
	local i
	[ -n "$DPID" ] || return 0 # killed after a hang
	if ! timeout 10 "$GOLEMFS" umount "$1"; then
		fail "umount $1"
		fusermount3 -uz "$1" 2>/dev/null
	fi
	for i in $(seq 500); do
		gone $DPID && break
		sleep 0.02
	done
	if ! gone $DPID; then
		fail "daemon $DPID did not exit within 10 s of its unmount"
		kill -9 $DPID
	fi
	wait $DPID
	check "daemon $DPID exit status" 0 $?
}

# stress NAME SPEC...: run the helper ($OUT: its report); any error or
# hang fails the test
OUT=
stress() {
	local name=$1 rc
	shift
	OUT=$("$STRESS" -s "$SECS" -l 10 "$@" 2>&1)
	rc=$?
	echo "$name:" $OUT
	if [ $rc -ne 0 ]; then
		fail "$name: exit $rc: $OUT"
		if [ $rc -eq 3 ]; then # hung: the daemon never answers again
			kill -9 $DPID 2>/dev/null
			wait $DPID 2>/dev/null
			fusermount3 -uz m 2>/dev/null
			DPID=
		fi
		return 1
	fi
	pass
}

# alive NAME DIR: the mount still answers after the load
alive() {
	timeout 10 ls "$2" >/dev/null || fail "$1: the mount no longer answers"
}

# 1. parallel fsync writers, each round on a fresh mount (8 loops of
#    `dd conv=fsync` hung a fresh mount within seconds)
for round in 1 2; do
	fmount m || exit 1
	stress "fsync round $round" fsync=12:m/work && alive "fsync" m/work
	funmount m
done

# 2. creates and renames in one directory, readers beside them
fmount m || exit 1
echo stable > m/work/stable
stress "one directory" create=4:m/work rename=4:m/work read=3:m/work \
	fsync=3:m/work fsx=2:m/work && alive "one directory" m/work
check "nothing left behind by the renames" 0 \
	"$(ls m/work | grep -c '\.moved$\|\.tmp$')"
funmount m

# 3. readers and writers during live trust changes (a session zone is
#    readable and writable at every level); meanwhile writes to a plain
#    zone, hidden at untrusted, must be decided and audited at one level
fmount m --session s-trust || exit 1
echo stable > m/sess/stable
for i in $(seq 0 19); do echo x > m/work/t$i; done
(
	i=0
	while [ ! -e trust.stop ]; do
		r=$(timeout 10 "$FSOP" write m/work/t$((i % 20)) y)
		case "$r" in
		OK | ENOENT) ;;
		*) echo "write $i: $r" >> trust.err ;;
		esac
		i=$((i + 1))
	done
) &
writer=$!
(
	levels=(untrusted session workspace full)
	i=0
	while [ ! -e trust.stop ]; do
		timeout 10 "$GOLEMFS" trust "${levels[i % 4]}" m >/dev/null ||
			{ echo "trust change failed or hung" > trust.err; break; }
		i=$((i + 1))
	done
	echo $i > trust.count
) &
flipper=$!
stress "trust changes" read=4:m/sess fsync=2:m/sess create=2:m/sess
touch trust.stop
wait $flipper $writer
[ -e trust.err ] && fail "$(cat trust.err)"
n=$(cat trust.count)
[ "$n" -ge 4 ] || fail "only $n trust changes during the load"
echo "trust changes: $n"
alive "trust changes" m/sess
funmount m
q() { sqlite3 box/audit.db "$1"; }
n=$(q "select count(*) from events where session='s-trust' and zone='work' and allowed=1")
[ "$n" -ge 1 ] || fail "no allowed write in /work during the trust changes"
# (a release row reports a handle's bytes at the level of its release)
check "no write in /work allowed and audited at untrusted" 0 \
	"$(q "select count(*) from events where session='s-trust' and zone='work' and trust='untrusted' and allowed=1 and op != 'release'")"

# 4. approvals answered while other threads write
fmount m || exit 1
yes y | "$GOLEMFS" approve m >/dev/null 2>&1 &
approver=$!
# until it is connected, nobody answers and a write is refused at once
for i in $(seq 250); do
	[ "$(timeout 10 "$FSOP" create m/final/probe$i)" = OK ] && break
	sleep 0.02
done
check "approved through golemfs approve" OK "$(timeout 10 "$FSOP" create m/final/second)"
stress "approvals" ask=3:m/final fsync=3:m/work create=2:m/work && alive "approvals" m/work
n=$(echo "$OUT" | sed -n 's/^ask \([0-9]*\) ops.*/\1/p')
[ "${n:-0}" -ge 10 ] || fail "only ${n:-0} operations of approved writers"
kill $approver 2>/dev/null
wait $approver 2>/dev/null
funmount m


finish
