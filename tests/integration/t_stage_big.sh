#!/bin/bash
# Staging is bounded in memory: a 4 GiB sparse file staged through the
# mount streams into the object database, and the daemon's peak RSS
# (VmHWM of the mount's daemon, by its pid) stays under 64 MB; reading it back
# costs no more. The zone's max_file_bytes is raised for it (the default
# 1 GiB makes such a file EFBIG; t_staged checks that).
. "$(dirname "$0")/lib.sh"

cd "$T"
git -c init.defaultBranch=main init -q repo
(cd repo && echo a > a.txt && git add a.txt &&
	git -c user.name=T -c user.email=t@t commit -qm base)
cat > golem.yaml <<'Y'
sandbox:
  zones:
    staged: { kind: staged, repo: ./repo, branch: main, max_file_bytes: 5000000000 }
Y
gmount m -T workspace || { finish; exit; }
daemon=$(daemon_pid m)
[ -n "$daemon" ] || { fail "no daemon pid for m"; finish; exit; }
hwm() { awk '/^VmHWM:/ { print $2 }' /proc/$daemon/status; }
echo "daemon VmHWM at start: $(hwm) kB"

mkdir m/staged/big
truncate -s 4G m/staged/big/huge.bin
check "a 4 GiB sparse file is staged" 0 $?
check "its size" 4294967296 "$(stat -c %s m/staged/big/huge.bin)"
peak=$(hwm)
echo "daemon VmHWM after staging 4 GiB: $peak kB"
[ "$peak" -lt 65536 ] || fail "staging 4 GiB took the daemon to $peak kB"
check "it reads back" 0000000000000000 \
	"$(tail -c 8 m/staged/big/huge.bin | od -An -tx1 | tr -d ' \n')"
peak=$(hwm)
echo "daemon VmHWM after reading it back: $peak kB"
[ "$peak" -lt 65536 ] || fail "reading 4 GiB took the daemon to $peak kB"
# the object is in the staging repository, whole
blob=$(GIT_INDEX_FILE=$T/.sandbox/staging/staged/big/index \
	git --git-dir=.sandbox/staging/staged.git ls-files -s huge.bin | awk '{ print $2 }')
check "the blob's size" 4294967296 \
	"$(git --git-dir=.sandbox/staging/staged.git cat-file -s "$blob")"
"$GOLEMFS" umount m
wait_for 60 gone "$daemon" || fail "the daemon outlived its unmount"
finish
