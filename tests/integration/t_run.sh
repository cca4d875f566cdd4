#!/bin/bash
# golemfs run: a program's whole world is the sandbox. What `ls /` shows at
# each trust level and under a worker; what is out of reach (host files,
# the audit db, the staging repo, the control socket, the network);
# refusals explained on stderr; exit codes and signals passed through;
# nothing left mounted after CMD ends or `golemfs run` is killed; an
# agent-like session that stages a change the user then sees; the same as
# an ordinary user.
. "$(dirname "$0")/lib.sh"
TCPLISTEN=${TCPLISTEN:?}
SYSPROBE=${SYSPROBE:?}

# the sandbox's own top-level names on this host (merged-usr links vary)
SYS="dev etc proc tmp usr"
for d in bin sbin lib lib32 lib64 libx32; do
	[ -e /$d ] || [ -L /$d ] && SYS="$SYS $d"
done
# sorted, space-separated top-level names for a list of zones
names() { printf '%s\n' $SYS "$@" | sort | tr '\n' ' ' | sed 's/ $//'; }
run() { "$GOLEMFS" run "$@"; }
# one line of what CMD prints, for: run [OPTIONS] -- CMD
line() { "$GOLEMFS" run "$@" | tr '\n' ' ' | sed 's/ $//'; }
need bwrap runuser setpriv unshare
# where runs mount: root privately, an ordinary user briefly on the host,
# in this test's runtime directory (other tests' are elsewhere)
RUNDIR=$GOLEMFS_RUNTIME_DIR
no_golemfs_mount() { ! grep -q " $RUNDIR/" /proc/mounts; }
# the children of PID, by pid
kids() { cat /proc/$1/task/*/children 2>/dev/null | tr -s ' ' '\n' | grep .; }
# the sandbox's init below the run PID: pid 1 of a pid namespace of its own
sandbox_init() {
	local p
	for p in $(descendants $1); do
		awk '/^NSpid:/ { exit !(NF > 2 && $NF == 1) }' \
			/proc/$p/status 2>/dev/null && echo $p
	done
}
# does a descendant of PID run the command COMM?
has_comm() {
	local p
	for p in $(descendants $1); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}
# wait for the run PID to end: its status into RC, or "hangs" (then killed)
reap() {
	if wait_for 20 gone $1; then
		wait $1; RC=$?
	else
		kill -9 $1; wait $1; RC=hangs
	fi
}

cd "$T"
mkdir -p project/in project/out project/secret
echo "input data" > project/in/a.md
echo "host secret" > project/canary
git -c init.defaultBranch=main init -q repo
(cd repo && echo base > r.txt && git add -A &&
	git -c user.name=T -c user.email=t@t commit -qm base)
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    input:  { path: ./project/in, mode: ro }
    output: { path: ./project/out, mode: rw }
    secret: { path: ./project/secret, mode: rw, trust: { untrusted: "", session: "", workspace: r, full: rw } }
    staged: { kind: staged, repo: ./repo, branch: main }
Y

# ---- what ls / shows ----
check "ls / at session" "$(names input output staged)" \
	"$(line -- ls /)"
check "ls / at untrusted" "$(names staged)" \
	"$(line -T untrusted -- ls /)"
check "ls / at workspace" "$(names input output secret staged)" \
	"$(line -T workspace -- ls /)"
check "ls / at full" "$(names input output secret staged)" \
	"$(line -T full -- ls /)"
cat > reader.worker <<'W'
---
name: reader
sandbox:
  zones:
    - { name: input, mode: ro }
---
Reads the input.
W
check "ls / under a worker" "$(names input)" \
	"$(line -W reader.worker -- ls /)"
check "--at: starts at PATH" "/work" "$(run --at /work -- pwd)"
check "--at: ls /" "$(names work)" "$(line --at /work -- ls /)"
check "--at: the root at PATH" "input output staged" \
	"$(line --at /work -- ls)"
check "/ itself is read-only" "1" \
	"$(run -- sh -c 'mkdir /new 2>/dev/null; echo $?')"

# ---- reading and writing; refusals explained ----
check "a ro zone reads" "input data" "$(run -- cat /input/a.md)"
out=$(run -- sh -c 'echo x > /input/a.md' 2>&1); rc=$?
check "write to a ro zone fails" 2 "$rc"
check_contains "the shell says EROFS" "Read-only file system" "$out"
check_contains "golemfs explains on stderr" \
	"golemfs: open /input/a.md refused: /input is read-only; writable: /output" "$out"
out=$(run -- sh -c 'for i in 1 2 3; do echo x > /input/a.md; done 2>/dev/null' 2>&1)
check "each refusal explained once" 1 "$(grep -c 'refused' <<<"$out")"
out=$(run -- sh -c 'for i in $(seq 30); do echo > /input/f$i; done 2>/dev/null' 2>&1)
check "refusal lines are rate-limited" 20 "$(grep -c 'refused:' <<<"$out")"
check_contains "and the rest counted" "10 more refusals not shown" "$out"
check "host file unchanged" "input data" "$(cat project/in/a.md)"
run -- sh -c 'echo made > /output/new.txt'
check "a rw zone writes through" "made" "$(cat project/out/new.txt)"
check "the audit has the refusal" "create /input/f1" \
	"$("$GOLEMFS" audit -c golem.yaml --denied --path '/input/f1' --json |
		jq -r '"\(.op) \(.path)"' | head -1)"
check "starts in the zone of the host cwd" "/output" \
	"$(cd project/out && "$GOLEMFS" run -c ../../golem.yaml -- pwd)"
check "starts at / elsewhere" "/" "$(run -- pwd)"

# ---- out of reach ----
check "host project file unreachable" "no" \
	"$(run -- sh -c "cat $T/project/canary 2>/dev/null || echo no")"
check "/root unreachable" "no" "$(run -- sh -c 'ls /root 2>/dev/null || echo no')"
check "/home unreachable" "no" "$(run -- sh -c 'ls /home 2>/dev/null || echo no')"
check "/etc/shadow unreachable" "no" \
	"$(run -- sh -c 'cat /etc/shadow 2>/dev/null || echo no')"
check "audit db unreachable" "no" \
	"$(run -- sh -c "test -e $T/.sandbox/audit.db && echo yes || echo no")"
check "staging repo unreachable" "no" \
	"$(run -- sh -c "test -e $T/.sandbox/staging && echo yes || echo no")"
check "control sockets unreachable" "no" \
	"$(run -- sh -c 'ls /run/golemfs /tmp/golemfs-* 2>/dev/null | grep -q . && echo yes || echo no')"
check "no daemon descriptor leaks in" "0 1 2 3" \
	"$(line -- ls /proc/self/fd)"
check "no capabilities" "0000000000000000" \
	"$(run -- sh -c "grep CapEff /proc/self/status | cut -f2")"
check "host environment stays out" "unset" \
	"$(GIT_TOKEN=s3cret run -- sh -c 'echo ${GIT_TOKEN:-unset}')"
check "-e passes a variable" "s3cret v" \
	"$(GIT_TOKEN=s3cret run -e GIT_TOKEN -e MINE=v -- sh -c 'echo $GIT_TOKEN $MINE')"
check "host processes invisible" "hidden" \
	"$(run -- sh -c "test -e /proc/$$ && echo visible || echo hidden")"

# ---- network ----
"$TCPLISTEN" > port & LPID=$!
for i in $(seq 50); do [ -s port ] && break; sleep 0.1; done
PORT=$(cat port)
check "no network by default" "refused" \
	"$(run -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && cat <&3 || echo refused" 2>/dev/null)"
check "--net reaches the host's loopback" "ok" \
	"$(run --net -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && cat <&3" 2>&1)"
check "network: true reaches it too" "ok" \
	"$(run -o network=true -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && cat <&3" 2>&1)"
kill $LPID

# ---- exit codes, signals, cleanup ----
run -- true; check "exit 0" 0 $?
run -- sh -c 'exit 3'; check "exit 3" 3 $?
run -- sh -c 'kill -9 $$'; check "killed CMD: 137" 137 $?
run -- /no/such/program 2>/dev/null; check "CMD not found fails" 1 $?
no_golemfs_mount; check "nothing mounted after runs" 0 $?
"$GOLEMFS" run -- sh -c 'trap "echo TERM-seen; exit 7" TERM
	: > /output/trapped; sleep 20 & wait' > sig.out &
RPID=$!
wait_for 10 test -e project/out/trapped || fail "CMD did not start"
no_golemfs_mount; check "a running sandbox is not mounted on the host" 0 $?
kill -TERM $RPID; wait $RPID; rc=$?
check "SIGTERM is passed on; CMD's status" "7 TERM-seen" "$rc $(cat sig.out)"
"$GOLEMFS" run -- sh -c ': > /output/up; exec sleep 30' >/dev/null 2>&1 & RPID=$!
wait_for 10 test -e project/out/up || fail "CMD did not start"
# without a name it finds the only one: seen from a mount namespace of
# our own, without the mounts other tests make meanwhile
out=$(unshare -m --propagation private sh -c '
	grep " - fuse.golemfs " /proc/self/mountinfo | cut -d" " -f5 |
		xargs -r -n1 umount -l
	"$0" status' "$GOLEMFS" 2>&1)
check_contains "golemfs status finds the sandbox" "trust: session" "$out"
out=$("$GOLEMFS" status "run:$RPID" 2>&1)
check_contains "golemfs status run:PID" "session:" "$out"
procs=$(descendants $RPID)
kill -9 $RPID; wait $RPID 2>/dev/null
wait_for 10 gone $procs
check "kill -9: no process left" "" "$(for p in $procs; do gone $p || echo $p; done)"
wait_for 5 no_golemfs_mount; check "kill -9: no mount left" 0 $?
check "kill -9: no mountpoint left" "" "$(ls "$RUNDIR" | grep '^mnt-')"

# ---- CMD's end is the sandbox's end, whatever CMD did ----
# CMD waits for 'go' so that the test can act on the running sandbox
WAITGO='echo > /output/up; while [ ! -e /output/go ]; do sleep 0.05; done'
go() { rm -f project/out/up project/out/go; }
go; "$GOLEMFS" run -- sh -c "$WAITGO; exit 5" & RPID=$!
wait_for 20 test -e project/out/up || fail "CMD did not start"
INIT=$(sandbox_init $RPID)
kill -STOP $INIT
state() { awk '/^State:/ {print $2}' /proc/$1/status; }
wait_for 20 eval '[ "$(state $INIT)" = T ]'
check "the sandbox's init is stopped" "T" "$(state $INIT)"
touch project/out/go
reap $RPID; check "init stopped: golemfs run ends with CMD, CMD's status" 5 "$RC"
wait_for 20 gone $INIT; check "init stopped: it is gone too" 0 $?
go; "$GOLEMFS" run -- sh -c "$WAITGO; exit 6" & RPID=$!
wait_for 20 test -e project/out/up || fail "CMD did not start"
INIT=$(sandbox_init $RPID)
"$SYSPROBE" hold $INIT > held.out & HOLDER=$!
wait_for 20 grep -q . held.out
check "init held with ptrace" "held" "$(cat held.out)"
touch project/out/go
reap $RPID; check "init held with ptrace: golemfs run ends, CMD's status" 6 "$RC"
kill $HOLDER; wait $HOLDER 2>/dev/null
go; "$GOLEMFS" run -- sh -c "setsid sh -c 'trap \"\" TERM HUP; exec sleep 300' \
	</dev/null >/dev/null 2>&1 & $WAITGO; exit 4" & RPID=$!
wait_for 20 has_comm $RPID sleep
check "a daemonised grandchild runs" 0 $?
PIDS=$(descendants $RPID)
touch project/out/go
reap $RPID; check "CMD left a daemon: golemfs run ends, CMD's status" 4 "$RC"
wait_for 20 gone $PIDS
check "and the daemon is gone" "" "$(for p in $PIDS; do gone $p || echo $p; done)"
go; "$GOLEMFS" run -- sh -c "trap '' TERM; setsid sh -c 'trap \"\" TERM HUP; exec sleep 300' \
	</dev/null >/dev/null 2>&1 & $WAITGO" & RPID=$!
wait_for 20 test -e project/out/up && wait_for 20 has_comm $RPID sleep ||
	fail "CMD did not start"
PIDS=$(descendants $RPID)
kill -TERM $RPID
reap $RPID; check "SIGTERM ends a sandbox whose CMD ignores it: 128+15" 143 "$RC"
wait_for 20 gone $PIDS
check "SIGTERM: no process of the sandbox left" "" \
	"$(for p in $PIDS; do gone $p || echo $p; done)"

# ---- control sockets: a killed run's is removed, a live one's kept ----
# (their output goes nowhere: a process they leave must not hold the
# test's output open, which would hang the suite)
"$GOLEMFS" run -- sleep 300 >/dev/null 2>&1 & LIVE=$!
"$GOLEMFS" run -- sleep 300 >/dev/null 2>&1 & DEAD=$!
wait_for 20 test -S "$RUNDIR/run-$LIVE.sock" -a -S "$RUNDIR/run-$DEAD.sock"
dead_procs=$(descendants $DEAD)
kill -9 $DEAD; wait $DEAD 2>/dev/null
run -- true
check "kill -9: the control socket is gone by the next start" "" \
	"$(ls "$RUNDIR" | grep -e "^run-$DEAD\.sock")"
check_contains "a live sandbox's socket is kept and served" "session:" \
	"$("$GOLEMFS" status "run:$LIVE" 2>&1)"
kill -TERM $LIVE; reap $LIVE
check "a run that ends removes its socket" "" \
	"$(ls "$RUNDIR" | grep -e "^run-$LIVE\.sock")"
wait_for 10 gone $dead_procs
check "kill -9: every process of the run is gone" "" \
	"$(for p in $dead_procs; do gone $p || echo $p; done)"

# ---- kill -9 while bwrap sets the sandbox up ----
# bwrap's pid 1 asks for its parent-death signal only at the end of its
# setup: killed before that, `golemfs run` left it waiting on an eventfd
# for ever, or running CMD unwatched (about 1 kill in 8 at these points).
# The keeper (cli/run.c) kills it. sysprobe runs each as a subreaper,
# so whatever is left becomes its child and is counted.
bad=
for ms in $(seq 0 5 150); do
	r=$("$SYSPROBE" orphans $((ms * 1000)) "$GOLEMFS" run -- sleep 300 \
		</dev/null 2>/dev/null)
	[ "$r" = "left 0" ] || bad="$bad ${ms}ms:'$r'"
done
check "kill -9 during setup: nothing of the sandbox is left" "" "$bad"

# ---- bad input ----
out=$(run 2>&1); check "no command: exit 2" 2 $?
check_contains "no command: says so" "no command" "$out"
out=$(run --at /usr/x -- true 2>&1); check "--at over /usr: exit 2" 2 $?
cat > clash.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    tmp: { path: ./project/out, mode: rw }
Y
out=$("$GOLEMFS" run -c clash.yaml -- true 2>&1); check "zone named tmp: exit 2" 2 $?
check_contains "zone named tmp: says why" "would hide the sandbox's own /tmp" "$out"
check "zone named tmp works with --at" "tmp" \
	"$("$GOLEMFS" run -c clash.yaml --at /w -- ls /w)"
cat > rootmount.yaml <<'Y'
sandbox:
  mounts:
    - { source: ./project/in, target: / }
Y
out=$("$GOLEMFS" run -c rootmount.yaml -- true 2>&1); check "mount at /: exit 2" 2 $?
check_contains "mount at /: use --at" "use --at PATH" "$out"
check "mount at / works with --at" "a.md" "$("$GOLEMFS" run -c rootmount.yaml --at /app -- ls)"
mkdir -p emptybin
out=$(PATH=$T/emptybin "$GOLEMFS" run -- true 2>&1); rc=$?
check "no bwrap: exit 125" 125 "$rc"
check_contains "no bwrap: how to install" "apt-get install bubblewrap" "$out"
out=$(run -c nonexistent.yaml -- true 2>&1); check "bad config: exit 2" 2 $?

# ---- an agent-like session; the user then reviews ----
cp "$GOLEMFS" project/out/golemfs-copy
out=$(run -- bash -c '
	ls / >/dev/null && cat /input/a.md >/dev/null &&
	echo "result" > /output/result.txt &&
	mkdir /staged/fix && cp /output/result.txt /staged/fix/result.txt &&
	echo "add the result" > /staged/fix/COMMIT_EDITMSG &&
	/output/golemfs-copy push --yes fix >/dev/null 2>&1 && echo pushed-from-inside
	echo done' 2>&1)
check "agent session runs" "done" "$out"
check_contains "the user sees the staged commit" "fix" "$("$GOLEMFS" staged)"
check_contains "and its diff" "+result" "$("$GOLEMFS" diff fix)"
check "push from inside was impossible" "" "$(git -C repo branch --list 'golem/*')"
"$GOLEMFS" push --yes fix >/dev/null 2>&1
check "the user pushes it" "result" "$(git -C repo show golem/fix:result.txt)"

# ---- the same as an ordinary user ----
if [ "${GOLEMFS_SANITIZE:-}" = thread ]; then
	# ThreadSanitizer's runtime starts a thread before main(), and a
	# process with threads cannot unshare(CLONE_NEWUSER): an ordinary
	# user's golemfs run cannot work in a TSan build at all.
	echo "NOTE: the ordinary-user part does not run under ThreadSanitizer"
	finish
	exit
fi
U=golemfs-test
id -u $U >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh $U
# Debian's udev makes /dev/fuse 0666; some containers make it 0600
[ "$(stat -c %a /dev/fuse)" = 666 ] || chmod 0666 /dev/fuse
UT=$(mktemp -d /tmp/golemfs-user.XXXXXX)
cp -r project golem.yaml "$UT"/ && rm -rf "$UT"/project/out/* && chown -R $U "$UT"
chmod 755 "$UT"
UR=$UT/run # the user's own runtime directory
mkdir -m 0700 "$UR" && chown $U "$UR"
# ustart ARGS: exec golemfs run as the user (in a subshell or background,
# so that $! is golemfs run's own pid); urun ARGS: the same, waited for
ustart() {
	cd "$UT" && exec setpriv --reuid="$U" --regid="$(id -g $U)" \
		--clear-groups env GOLEMFS_RUNTIME_DIR="$UR" \
		"$GOLEMFS" run -c "$UT/golem.yaml" "$@"
}
urun() { (ustart "$@"); }
sed -i '/staged:/d' "$UT/golem.yaml"
check "user: ls /" "$(names input output)" "$(urun -- ls / | tr '\n' ' ' | sed 's/ $//')"
check "user: runs as the user" "$(id -u $U)" "$(urun -- id -u)"
out=$(urun -- sh -c 'echo x > /input/a.md; echo ok > /output/o.txt' 2>&1)
check_contains "user: refusal explained" "/input is read-only" "$out"
check "user: rw zone writes" "ok" "$(cat "$UT/project/out/o.txt")"
urun -- sh -c 'exit 3'; check "user: exit 3" 3 $?
check "user: host file unreachable" "no" \
	"$(urun -- sh -c "cat $T/project/canary 2>/dev/null || echo no")"
# CMD waits for "go" until the test saw the mount leave the host
ustart -- sh -c ': > /output/up
	while [ ! -e /output/go ]; do sleep 0.05; done; cat /input/a.md' \
	> keep.out & RPID=$!
wait_for 10 test -e "$UT/project/out/up" || fail "user: CMD did not start"
wait_for 10 eval '! grep -q " $UR/" /proc/mounts'
check "user: the mount has left the host while CMD runs" "" \
	"$(grep " $UR/" /proc/mounts)"
: > "$UT/project/out/go"
wait $RPID
check "user: the sandbox keeps its mount after it left the host" \
	"input data" "$(cat keep.out)"
ustart -- sh -c ': > /output/up2; exec sleep 30' >/dev/null 2>&1 & RPID=$!
wait_for 10 test -e "$UT/project/out/up2" || fail "user: CMD did not start"
procs=$(descendants $RPID)
kill -9 $RPID; wait $RPID 2>/dev/null
wait_for 10 gone $procs
check "user: kill -9 leaves no process" "" \
	"$(for p in $procs; do gone $p || echo $p; done)"
wait_for 5 eval '! grep -q " $UR/" /proc/mounts'
check "user: kill -9 leaves no mount" "" "$(grep " $UR/" /proc/mounts)"
check "user: no mountpoint left" "" "$(ls "$UR" | grep mnt)"
check "user: the killed run's control socket is left" "run-$RPID.sock" \
	"$(ls "$UR" | grep -x "run-$RPID.sock")"
urun -- true
check "user: and gone by the next start, with its lock" "" \
	"$(ls "$UR" | grep -e "^run-$RPID\.sock")"
rm -rf "$UT"

finish
