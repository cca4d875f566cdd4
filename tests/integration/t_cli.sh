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
finish
