#!/bin/bash
# POSIX behaviour a program relies on, compared with the backing ext4
# directory itself: new files get exactly the mode the caller's umask
# gives; an open file that was unlinked still works through its handle;
# a root daemon with allow_other gives new objects to the calling user
# (and the setgid directory's group).
. "$(dirname "$0")/lib.sh"
need setpriv stat mkfifo

cd "$T"
mkdir -p box/w
chmod 0755 "$T" # the test user must reach the mount
chmod 0777 box/w
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    w: { path: ./w, mode: rw }
Y
gmount m -o allow_other || exit 1
N=$T/native
mkdir -m 0777 "$N"

# ---- modes: exactly what the umask gives, as on ext4 ----
for u in 0 002 022 027 077; do
	for d in m/w "$N"; do
		(umask $u && touch $d/f$u && mkdir $d/d$u && mkfifo $d/p$u &&
			ln -s f$u $d/l$u)
	done
	check "umask $u: file, dir, fifo" \
		"$(stat -c %a "$N/f$u" "$N/d$u" "$N/p$u" | tr '\n' ' ')" \
		"$(stat -c %a m/w/f$u m/w/d$u m/w/p$u | tr '\n' ' ')"
	check "umask $u: the backing files too" \
		"$(stat -c %a "$N/f$u" "$N/d$u" | tr '\n' ' ')" \
		"$(stat -c %a box/w/f$u box/w/d$u | tr '\n' ' ')"
done
check "umask 0: 0666 and 0777" "666 777" "$(stat -c %a m/w/f0 m/w/d0 | tr '\n' ' ' | sed 's/ $//')"
# an explicit mode through open(2) and mkdir(2), umask 0
(umask 0 && mkdir -m 1770 m/w/sticky && "$FSOP" create m/w/x640 >/dev/null &&
	chmod 640 m/w/x640)
check "mkdir -m 1770" 1770 "$(stat -c %a m/w/sticky)"
check "setuid and setgid are still dropped" 755 \
	"$(umask 0; touch m/w/su; chmod 6755 m/w/su 2>/dev/null; stat -c %a m/w/su)"

# ---- an unlinked file lives while it is open, whatever the cache ----
check "unlinked open file" OK "$("$FSOP" unlinked-open m/w/gone)"
check "and it is gone" ENOENT "$("$FSOP" stat m/w/gone)"
gmount m0 --cache-timeout 0 -o allow_other || exit 1
check "unlinked open file, no cache" OK "$("$FSOP" unlinked-open m0/w/gone)"
gumount m0

# ---- ownership: a root daemon with allow_other ----
U=golemfs-test
id -u $U >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh $U
uid=$(id -u $U) gid=$(id -g $U)
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups "$@"; }
as_user sh -c 'umask 022; touch m/w/uf; mkdir m/w/ud; mkfifo m/w/up; ln -s uf m/w/ul' ||
	fail "the user cannot create in a 0777 rw zone"
for f in uf ud up ul; do
	check "$f belongs to the caller" "$uid:$gid" "$(stat -c %u:%g box/w/$f)"
done
check "and the mount says so" "$uid:$gid" "$(stat -c %u:%g m/w/uf)"
check "a root caller's files stay root's" "0:0" "$(stat -c %u:%g box/w/f022)"
# a setgid directory: its group, and a subdirectory stays setgid
mkdir -m 2777 box/w/sg && chgrp 12345 box/w/sg
as_user sh -c 'touch m/w/sg/f; mkdir m/w/sg/d'
check "in a setgid directory: the directory's group" "$uid:12345 $uid:12345" \
	"$(stat -c %u:%g box/w/sg/f box/w/sg/d | tr '\n' ' ' | sed 's/ $//')"
check "a directory made there stays setgid" 2755 "$(stat -c %a box/w/sg/d)"
# the caller cannot give away or take what is not theirs
out=$(as_user chown 0 m/w/uf 2>&1); check "the user cannot chown to root" 1 $?

gumount m
finish
