# Shared by the integration tests: a private temp dir, real mounts that are
# always unmounted, and assertions that count. Source it first.
#   GOLEMFS  the golemfs binary     FSOP  the fsop helper
#
# Isolation: each test has its own temp dir, mountpoints and runtime
# directory (GOLEMFS_RUNTIME_DIR: its control sockets), so golemfs mounts
# and sandboxes elsewhere on the machine, another suite's among them, never
# change a result. Processes are found by pid (daemon_pid, descendants),
# never by matching command lines, and waits are for events (wait_for).
set -u
: "${GOLEMFS:?set GOLEMFS to the golemfs binary}"
: "${FSOP:?set FSOP to the fsop helper}"

if [ ! -c /dev/fuse ]; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: /dev/fuse is missing, and CI must run mount tests"
		exit 1
	fi
	echo "SKIP: /dev/fuse is missing"
	exit 77
fi

T=$(mktemp -d /tmp/golemfs-test.XXXXXX)
MOUNTS=()
export GOLEMFS_RUNTIME_DIR=$T/run
mkdir -m 0700 "$GOLEMFS_RUNTIME_DIR"
# the daemons' own stderr (libfuse and golemfs messages), shown on failure
export GOLEMFS_LOG_FILE=$T/daemons.log

# A sanitizer build: the daemon's reports go to files (its stderr is gone
# once it daemonizes), and finish() fails the test if any appeared.
SAN=$(mktemp -d /tmp/golemfs-san.XXXXXX)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$SAN/asan"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}print_suppressions=0:suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lsan.supp"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1:log_path=$SAN/ubsan"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$SAN/tsan:suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tsan.supp"
PASSED=0
FAILED=0

cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do
		fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	rm -rf "$T" "$SAN"
}
trap cleanup EXIT

# need CMD...: a command this test relies on; missing, the test fails (a
# check that could pass without running anything proves nothing)
need() {
	local c
	for c; do
		command -v "$c" >/dev/null 2>&1 && continue
		echo "FAIL: this test needs '$c', which is not installed"
		exit 1
	done
}
need fusermount3 git sqlite3 timeout

# the tests read the audit database while a daemon writes it: wait for
# its lock (as golemfs audit does) instead of printing "database is
# locked" and answering nothing. `command sqlite3` where a test wants to
# see the lock.
sqlite3() {
	command sqlite3 -cmd '.timeout 10000' "$@"
}

# wait_for SECONDS CMD...: until CMD succeeds; then CMD's status, once more
wait_for() {
	local n=$(($1 * 50))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.02
		n=$((n - 1))
	done
	"$@"
}

# gone PID...: none of them runs any more. A zombie whose last thread
# ended counts as gone (this container's init may not reap); a process
# whose first thread ended while others still work does not.
gone() {
	local p
	for p; do
		[ -e /proc/$p ] || continue
		awk '/^State:/ { z = $2 == "Z" } /^Threads:/ { n = $2 }
			END { exit !(z && n <= 1) }' /proc/$p/status \
			2>/dev/null || return 1
	done
	return 0
}

# daemon_pid MNT: the pid of the daemon serving the mount at MNT
daemon_pid() {
	"$GOLEMFS" status "$1" 2>/dev/null | sed -n 's/^pid: //p'
}

# descendants PID: PID and every process below it, one a line
descendants() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
	{ s = $0; sub(/^.*\) /, "", s); split(s, a, " "); pp[$1] = a[2] }
	END {
		want[root] = 1
		for (more = 1; more;) {
			more = 0
			for (p in pp)
				if (!(p in want) && (pp[p] in want)) {
					want[p] = 1
					more = 1
				}
		}
		for (p in want) print p
	}'
}

pass() { PASSED=$((PASSED + 1)); }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*"; }

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then pass; else fail "$1: expected '$2', got '$3'"; fi
}

# check_contains NAME NEEDLE HAYSTACK
check_contains() {
	case "$3" in
	*"$2"*) pass ;;
	*) fail "$1: '$2' not in: $3" ;;
	esac
}

# expect EXPECTED OP PATH [ARG]: one syscall through fsop
expect() {
	local want=$1 got
	shift
	got=$("$FSOP" "$@")
	check "$* " "$want" "$got"
}

# gmount MNT [golemfs mount args...]: mount, remember for cleanup, and
# remember its daemon (finish() waits for the unmounted ones to end)
DAEMONS=()
gmount() {
	local mnt=$1
	shift
	mkdir -p "$mnt"
	MOUNTS+=("$mnt")
	if ! "$GOLEMFS" mount "$@" "$mnt"; then
		fail "mount $mnt $*"
		return 1
	fi
	DAEMONS+=("$(daemon_pid "$mnt")")
}

# ended_or_mounted: every remembered daemon has ended, or still serves a
# mount (cleanup unmounts those)
ended_or_mounted() {
	local p
	for p in "${DAEMONS[@]}"; do
		[ -n "$p" ] || continue
		gone "$p" && continue
		grep -q "^$p$" <(for m in "${MOUNTS[@]}"; do
			grep -q " $(realpath -m "$m") fuse.golemfs " /proc/mounts &&
				daemon_pid "$m"
		done) || return 1
	done
}

gumount() {
	"$GOLEMFS" umount "$1" || fail "umount $1"
}

finish() {
	local r
	if [ -n "${GOLEMFS_SANITIZE:-}" ]; then
		# unmounted daemons write their reports as they exit
		wait_for 60 ended_or_mounted ||
			fail "a daemon did not end after its unmount"
		for r in "$SAN"/*; do
			[ -e "$r" ] || continue
			fail "sanitizer report $r"
			cat "$r"
		done
	fi
	# the daemons assert their invariants (builds without NDEBUG)
	# and their lock order (common/lockorder.h, sanitizer builds)
	if grep -q "Assertion .* failed\|lock order violated" \
		"$GOLEMFS_LOG_FILE" 2>/dev/null; then
		fail "a daemon's assertion failed:"
		grep "Assertion .* failed\|lock order violated" "$GOLEMFS_LOG_FILE"
	fi
	if [ "$FAILED" -ne 0 ] && [ -s "$GOLEMFS_LOG_FILE" ]; then
		echo "--- daemon log:"
		tail -n 40 "$GOLEMFS_LOG_FILE"
	fi
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
