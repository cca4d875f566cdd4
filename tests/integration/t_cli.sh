#!/bin/bash
# The command line: exit codes (0 ok, 1 failed, 2 bad usage or config),
# errors that name file:line:col, nothing half-mounted, stale mounts,
# signals, and `golemfs check`.
. "$(dirname "$0")/lib.sh"

cd "$T"
mounted() { grep -q " $(realpath "$1") fuse.golemfs " /proc/mounts; }

# help and unknown commands
"$GOLEMFS" help >/dev/null; check "help exits 0" 0 $?
for c in mount umount check; do
	out=$("$GOLEMFS" $c --help); check "$c --help exits 0" 0 $?
	check_contains "$c --help usage" "usage: golemfs $c" "$out"
done
out=$("$GOLEMFS" frobnicate 2>&1); check "unknown command exits 2" 2 $?
check_contains "unknown command message" "'frobnicate' is not a command" "$out"

# check: the embedded default and its table
out=$("$GOLEMFS" check); check "check default exits 0" 0 $?
check_contains "check shows default" "(embedded default)" "$out"
check_contains "check marks live level" "session*" "$out"
check_contains "check row" "/workspace" "$out"

# bad config: file:line:col, exit 2, nothing mounted
printf 'sandbox:\n  zones:\n    a: { path: ./a, mode: rx }\n' > bad.yaml
out=$("$GOLEMFS" check -c bad.yaml 2>&1); check "bad config check exits 2" 2 $?
check "bad config message" \
	"golemfs: $T/bad.yaml:3:27: mode must be ro or rw, not 'rx'" "$out"
mkdir m
out=$("$GOLEMFS" mount -c bad.yaml m 2>&1); check "bad config mount exits 2" 2 $?
check_contains "bad config mount message" "bad.yaml:3:27" "$out"
mounted m && fail "bad config left a mount"
check "nothing created at the mountpoint" "" "$(ls -A m)"

# a missing or empty config file: exit 2, named
out=$("$GOLEMFS" check -c nope.yaml 2>&1); check "missing config exits 2" 2 $?
check_contains "missing config message" "nope.yaml: No such file or directory" "$out"
: > empty.yaml
out=$("$GOLEMFS" check -c empty.yaml 2>&1); check "empty config exits 2" 2 $?
check_contains "empty config message" "empty.yaml:1:1: empty file" "$out"

# a zone whose directory is missing (direct mode): exit 2, nothing mounted
printf 'sandbox:\n  mode: direct\n  zones:\n    a: { path: ./nope }\n' > miss.yaml
out=$("$GOLEMFS" mount -c miss.yaml m 2>&1); check "missing zone dir exits 2" 2 $?
check_contains "missing zone dir message" "zone 'a': $T/nope" "$out"
mounted m && fail "missing zone left a mount"

# a worker asking more than its parent: the exact words, exit 2
printf 'sandbox:\n  zones:\n    data: { path: ./d, mode: ro }\n' > ro.yaml
printf -- '---\nname: b\nsandbox:\n  zones:\n    - { name: data, mode: rw }\n---\n' > b.worker
out=$("$GOLEMFS" check -c ro.yaml -W b.worker 2>&1); check "worker over ceiling exits 2" 2 $?
check_contains "worker over ceiling message" \
	"worker 'b': requests 'rw' on 'data' but parent only has 'ro'" "$out"

# mountpoints: missing, not a directory, not empty
out=$("$GOLEMFS" mount nowhere 2>&1); check "missing mountpoint exits 2" 2 $?
check_contains "missing mountpoint message" "mountpoint 'nowhere'" "$out"
touch afile
out=$("$GOLEMFS" mount afile 2>&1); check "file mountpoint exits 2" 2 $?
mkdir full && touch full/x
out=$("$GOLEMFS" mount full 2>&1); check "non-empty mountpoint exits 2" 2 $?
check_contains "non-empty message" "not empty" "$out"
out=$("$GOLEMFS" mount -T high m 2>&1); check "bad trust exits 2" 2 $?
out=$("$GOLEMFS" mount --cache-timeout soon m 2>&1)
check "bad --cache-timeout exits 2" 2 $?
check_contains "bad --cache-timeout named" "--cache-timeout: 'soon'" "$out"
out=$("$GOLEMFS" mount -o bogus_fuse_option m 2>&1)
check "bad FUSE option exits 2" 2 $?
mounted m && fail "bad FUSE option left a mount"

# a good mount returns only when ready
M=$T/cli-mnt
gmount "$M" || exit 1
check "ready at once" "cache workspace" "$(ls "$M" | tr '\n' ' ' | sed 's/ $//')"
opts=$(grep " $M fuse.golemfs " /proc/mounts | cut -d' ' -f4)
check_contains "mounted nosuid" nosuid "$opts"
check_contains "mounted nodev" nodev "$opts"
pid=$(daemon_pid "$M")
[ -n "$pid" ] || fail "no daemon found"

# SIGTERM unmounts cleanly
kill -TERM "$pid"
wait_for 5 eval '! mounted "$M"' || fail "SIGTERM did not unmount"
# the daemon exits too
wait_for 5 gone "$pid" || fail "the daemon did not exit after SIGTERM"

# kill -9 leaves a stale mount; golemfs umount removes it
gmount "$M" || exit 1
pid=$(daemon_pid "$M")
[ -n "$pid" ] || fail "no daemon found"
kill -9 "$pid"
wait_for 5 gone "$pid" || fail "the daemon outlived kill -9"
out=$(ls "$M" 2>&1)
check_contains "stale mount" "Transport endpoint is not connected" "$out"
"$GOLEMFS" umount "$M"; check "umount stale exits 0" 0 $?
mounted "$M" && fail "stale mount still there"
out=$("$GOLEMFS" umount "$M" 2>&1); check "umount of nothing exits 1" 1 $?
check_contains "umount of nothing message" "not mounted" "$out"
# the option parser (cli/cli.c), the same for every command: -h and --help
# print the usage to stdout and exit 0; an unknown option, a missing
# argument or a bad value exits 2 with getopt's or the command's message
for c in mount umount run check audit staged diff push discard status \
	trust approve; do
	for h in -h --help; do
		out=$("$GOLEMFS" $c $h 2>"$T/err"); check "$c $h exits 0" 0 $?
		check_contains "$c $h usage" "usage: golemfs $c" "$out"
		check "$c $h: nothing on stderr" "" "$(cat "$T/err")"
	done
	out=$("$GOLEMFS" $c --frobnicate 2>"$T/err" </dev/null)
	check "$c unknown option exits 2" 2 $?
	check "$c unknown option: nothing on stdout" "" "$out"
	check_contains "$c unknown option named" \
		"$c: unrecognized option '--frobnicate'" "$(cat "$T/err")"
done
# what else a bad option says is each command's own
for c in check status trust approve; do
	out=$("$GOLEMFS" $c -x 2>&1); check "$c -x exits 2" 2 $?
	check_contains "$c -x shows the usage" "usage: golemfs $c" "$out"
done
out=$("$GOLEMFS" mount -x 2>&1); check "mount -x exits 2" 2 $?
check_contains "mount -x hint" "golemfs: mount: see 'golemfs mount --help'" "$out"
out=$("$GOLEMFS" run -x 2>&1); check "run -x exits 2" 2 $?
check_contains "run -x hint" "golemfs: run: see 'golemfs run --help'" "$out"
out=$("$GOLEMFS" check -c 2>&1); check "check -c without FILE exits 2" 2 $?
check_contains "check -c missing argument" \
	"check: option requires an argument -- 'c'" "$out"
out=$("$GOLEMFS" audit --since yesterday-ish 2>&1)
check "audit bad --since exits 2" 2 $?
check_contains "audit bad --since message" \
	"golemfs: audit: --since 'yesterday-ish': not a time" "$out"
out=$("$GOLEMFS" mount --max-fds 0 "$T" 2>&1)
check "mount --max-fds 0 exits 2" 2 $?
check_contains "mount --max-fds message" \
	"--max-fds: '0' is not a number from 1 to 1000000" "$out"
out=$("$GOLEMFS" run -e =x -- true 2>&1); check "run -e =x exits 2" 2 $?
check_contains "run -e message" "run: -e '=x': give NAME or NAME=VALUE" "$out"
# options end at the first operand, except for audit's filters
out=$("$GOLEMFS" check extra --trust full 2>&1)
check "check: options after an operand exit 2" 2 $?
check_contains "check operand named" "unexpected argument 'extra'" "$out"
out=$("$GOLEMFS" audit export --db "$T/no.db" 2>&1)
check "audit: a filter after export is taken" 1 $?
check_contains "audit --db after export" "no audit log at $T/no.db" "$out"
# --json: long only, except approve's -j
"$GOLEMFS" audit -j 2>/dev/null; check "audit -j is not an option" 2 $?
out=$("$GOLEMFS" approve -j "$T/nothing" 2>&1)
check "approve -j is --json (fails only for the mountpoint)" 1 $?
check_contains "approve -j mountpoint" "'$T/nothing'" "$out"
finish
