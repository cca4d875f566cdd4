#!/bin/bash
# golemfs run's system-call filter and keyring, from the attacker's side:
# every refused call fails with EPERM inside (clone3 with ENOSYS), through
# every ABI; the host's keyring is unchanged after attacks from inside;
# bwrap's init can be neither attached to nor written through /proc; and
# ordinary work (sh, git, make, cc, python3 with threads) still runs.
. "$(dirname "$0")/lib.sh"
SYSPROBE=${SYSPROBE:?}

cd "$T"
mkdir -p out
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    out: { path: ./out, mode: rw }
Y
cp "$SYSPROBE" out/sysprobe
run() { "$GOLEMFS" run "$@"; }
# sysprobe, when built with a sanitizer, must not look for leaks inside:
# LeakSanitizer needs ptrace, which the filter refuses
PROBE="env ASAN_OPTIONS=detect_leaks=0 /out/sysprobe"

# ---- the filter is on, and refuses ----
check "a filter is installed" "2" \
	"$(run -- sh -c 'grep "^Seccomp:" /proc/self/status | cut -f2')"
out=$(run -- $PROBE deny)
# one name per line: what must be refused with EPERM
for name in ptrace-attach-init ptrace-seize-init process_vm_readv \
	process_vm_writev pidfd_getfd personality-addr-no-randomize \
	personality-read-implies-exec personality-bit31 unshare-user \
	unshare-net setns clone-newuser mount umount2 pivot_root chroot \
	fsopen fsconfig fsmount fspick move_mount open_tree mount_setattr \
	swapon swapoff reboot settimeofday clock_settime acct quotactl \
	quotactl_fd lookup_dcookie syslog iopl ioperm uselib bpf \
	perf_event_open userfaultfd io_uring_setup io_uring_enter \
	io_uring_register kexec_load kexec_file_load init_module \
	finit_module delete_module open_by_handle_at name_to_handle_at \
	ioctl-tiocsti ioctl-tiocsti-high-bits ioctl-tioclinux \
	keyctl-i386-abi keyctl-x32-abi keyctl-get-session keyctl-join \
	add_key-session add_key-user request_key; do
	check "refused: $name" "$name EPERM" "$(grep "^$name " <<<"$out")"
done
check "clone3: ENOSYS, so libc falls back to clone" "clone3 ENOSYS" \
	"$(grep '^clone3 ' <<<"$out")"
check "nothing probed is left unchecked" 60 "$(wc -l <<<"$out")"
check "allowed: personality query and PER_LINUX32" "ok" \
	"$(run -- python3 -c '
import ctypes
l = ctypes.CDLL(None)
old = l.personality(0xffffffff)
print("ok" if l.personality(8) == old and l.personality(old) == 8 else "no")')"

# ---- bwrap's init runs unfiltered: it cannot be reached ----
check "init's memory cannot be opened for writing" "refused" \
	"$(run -- sh -c '(exec 3<>/proc/1/mem) 2>/dev/null && echo opened || echo refused')"
check "nor through its task" "refused" \
	"$(run -- sh -c '(exec 3<>/proc/1/task/1/mem) 2>/dev/null && echo opened || echo refused')"

# ---- keyrings: the host's are unchanged after attacks from inside ----
if ! command -v keyctl >/dev/null; then
	fail "keyctl (Debian keyutils) is not installed: scripts/bootstrap"
else
	out=$(keyctl session - bash -c '
		k=$(keyctl add user golemfs-canary hostsecret @s) || exit 1
		before=$(keyctl rdescribe @s; keyctl list @s; keyctl list @u)
		"$0" run -- $1 keys "$k" > keys.out
		"$0" run -- sh -c "cat /proc/keys /proc/key-users" \
			> prockeys.out 2>&1
		after=$(keyctl rdescribe @s; keyctl list @s; keyctl list @u)
		[ "$before" = "$after" ] && echo unchanged || echo changed
		keyctl print "$k"' "$GOLEMFS" "$PROBE")
	check "the host's keyrings unchanged; the key's payload too" \
		"unchanged hostsecret" "$(tr '\n' ' ' <<<"$out" | sed 's/ $//')"
	for name in keyctl-read-host-key keyctl-update-host-key \
		keyctl-unlink-host-key add_key-session add_key-user; do
		check "keyring attack refused: $name" "$name EPERM" \
			"$(grep "^$name " keys.out)"
	done
	check "the key's name is not listed inside" "" \
		"$(grep golemfs-canary prockeys.out)"
fi

# ---- ordinary work still runs ----
cat > out/hello.c <<'C'
#include <pthread.h>
#include <stdio.h>
static void *say(void *arg) { puts(arg); return NULL; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, say, "hello from a thread");
	return pthread_join(t, NULL);
}
C
printf 'hello: hello.c\n\tcc -pthread -o hello hello.c\n' > out/Makefile
check "make and cc build; the program runs" "hello from a thread" \
	"$(run -- sh -c 'cd /out && make -s hello && ./hello')"
check "git init and commit" "1" \
	"$(run -- sh -c 'cd /out && git init -q r && cd r && echo a > a &&
		git add a && git -c user.name=t -c user.email=t@t commit -qm m &&
		git rev-list --count HEAD')"
check "python3 with threads and a subprocess" "4 ok" \
	"$(run -- python3 -c '
import subprocess, threading
r = []
ts = [threading.Thread(target=lambda: r.append(1)) for _ in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(len(r), subprocess.run(["echo", "ok"], capture_output=True,
      text=True).stdout.strip())')"
check "a shell pipeline" "3" "$(run -- sh -c 'seq 3 | sort -r | head -1')"

# ---- the same filter for an ordinary user (not under ThreadSanitizer:
# a process with threads cannot make the user namespace it needs) ----
if [ "${GOLEMFS_SANITIZE:-}" != thread ]; then
	U=golemfs-test
	id -u $U >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh $U
	[ "$(stat -c %a /dev/fuse)" = 666 ] || chmod 0666 /dev/fuse
	UT=$(mktemp -d /tmp/golemfs-user.XXXXXX)
	mkdir "$UT/out" "$UT/run" && cp golem.yaml "$UT"/ &&
		cp "$SYSPROBE" "$UT/out/sysprobe" && chown -R $U "$UT" &&
		chmod 755 "$UT" && chmod 0700 "$UT/run"
	out=$(cd "$UT" && setpriv --reuid="$U" --regid="$(id -g $U)" \
		--clear-groups env GOLEMFS_RUNTIME_DIR="$UT/run" \
		"$GOLEMFS" run -c "$UT/golem.yaml" -- $PROBE deny)
	check "user: every probed call refused" \
		"1 ENOSYS 59 EPERM" \
		"$(cut -d' ' -f2 <<<"$out" | sort | uniq -c | sort -k2 |
			awk '{printf "%s%s %s", (NR > 1 ? " " : ""), $1, $2}')"
	rm -rf "$UT"
fi

finish
