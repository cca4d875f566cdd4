#!/bin/bash
# Ordinary tools in a rw zone behave as on a plain directory: git, tar,
# cp -a, sed -i (rename-over), sqlite3, make; mv between two rw zones
# (copy + delete); and a tree of more files than RLIMIT_NOFILE allows fds.
. "$(dirname "$0")/lib.sh"

cd "$T"
cat > golem.yaml <<'Y'
sandbox:
  zones:
    work:  { path: ./work, mode: rw }
    other: { path: ./other, mode: rw }
Y
gmount m || exit 1
W=m/work

# git: init, add, commit, status
(
	cd $W && git init -q repo && cd repo &&
	printf 'a\n' > a.txt && mkdir -p sub && printf 'b\n' > sub/b.txt &&
	git add -A && git -c user.name=t -c user.email=t@t commit -qm first &&
	printf 'c\n' >> a.txt && git status --porcelain
) > git.out 2>&1
check "git status after edit" " M a.txt" "$(cat git.out)"
check "git log" "first" "$(git -C $W/repo log --format=%s)"
check "git fsck" "" "$(git -C $W/repo fsck 2>&1 | grep -v '^Checking' )"

# tar x and tar c round trip
mkdir -p src/d1/d2 && echo one > src/d1/f1 && echo two > src/d1/d2/f2
ln -s d1/f1 src/lnk && chmod 640 src/d1/f1
tar -C src -cf t.tar . && tar -C $W -xf t.tar
check "tar x content" "two" "$(cat $W/d1/d2/f2)"
check "tar x symlink" "d1/f1" "$(readlink $W/lnk)"
check "tar x mode" "640" "$(stat -c %a $W/d1/f1)"
tar -C $W -cf back.tar d1 lnk && mkdir back && tar -C back -xf back.tar
check "tar c round trip" "" "$(diff -r src/d1 back/d1)"

# cp -a keeps modes, times and links
cp -a src $W/copy 2>cp.err
check "cp -a without complaint" "" "$(cat cp.err)"
check "cp -a" "" "$(diff -r src $W/copy)"
check "cp -a symlink mtime" "$(stat -c %Y src/lnk)" "$(stat -c %Y $W/copy/lnk)"
check "cp -a mtime" "$(stat -c %Y src/d1/f1)" "$(stat -c %Y $W/copy/d1/f1)"

# sed -i writes a new file and renames it over the old one
printf 'hello world\n' > $W/s.txt
sed -i 's/world/golem/' $W/s.txt
check "sed -i" "hello golem" "$(cat $W/s.txt)"

# sqlite3 creates and queries a database (locks, journal, fsync)
sqlite3 $W/db.sqlite "create table t(x); insert into t values (1),(2),(3);"
check "sqlite3" "6" "$(sqlite3 $W/db.sqlite 'select sum(x) from t;')"
check "sqlite3 integrity" "ok" "$(sqlite3 $W/db.sqlite 'pragma integrity_check;')"

# make builds a small C program
mkdir $W/proj
printf '#include "h.h"\nint main(void) { return V; }\n' > $W/proj/main.c
printf '#define V 7\n' > $W/proj/h.h
printf 'prog: main.c h.h\n\tcc -o prog main.c\n' > $W/proj/Makefile
make -s -C $W/proj >/dev/null 2>&1 || fail "make"
$W/proj/prog
check "built program runs" 7 "$?"
check "make is up to date" "make: 'prog' is up to date." \
	"$(make -C $W/proj --no-print-directory 2>&1)"

# mv between two rw zones: copy + delete, each checked
mv $W/s.txt m/other/s.txt
check "mv across zones" "hello golem" "$(cat m/other/s.txt)"
expect ENOENT stat $W/s.txt
mv $W/d1 m/other/d1
check "mv dir across zones" "two" "$(cat m/other/d1/d2/f2)"

gumount m

# The fd cache is bounded: with --max-fds 64, a tree of 3,000 files all
# known to the kernel leaves the daemon with few descriptors open.
gmount m --max-fds 64 || exit 1
pid=$(daemon_pid m)
[ -n "$pid" ] || fail "no daemon pid for m"
mkdir $W/some
for d in $(seq 1 30); do
	mkdir $W/some/d$d
	(cd $W/some/d$d && touch $(seq -f 'f%g' 1 100))
done
check "3,000 files" 3000 "$(find $W/some -type f -exec stat -c %s {} + | wc -l)"
fds=$(ls /proc/"$pid"/fd | wc -l)
[ "$fds" -lt 100 ] || fail "daemon holds $fds fds with --max-fds 64"
rm -rf $W/some
expect ENOENT stat $W/some

# The page cache is kept across opens (keep_cache); a change made beside
# the mount still shows once the attributes time out (1 s in rw zones).
printf 'version one\n' > $W/cached.txt
check "read through the mount" "version one" "$(cat $W/cached.txt)"
check "read again (cached)" "version one" "$(cat $W/cached.txt)"
sleep 0.1 # a later clock tick: the kernel compares mtime and size
printf 'version two\n' > .sandbox/work/cached.txt # in place, same size
sleep 1.5
check "a change beside the mount is seen" "version two" "$(cat $W/cached.txt)"
printf 'version three, longer\n' >> .sandbox/work/cached.txt
sleep 1.5
check "an append beside the mount is seen" "version three, longer" \
	"$(tail -n 1 $W/cached.txt)"

# More files than RLIMIT_NOFILE (20,000 here). Too slow under the
# sanitizers; the bounded cache itself is checked just above.
if [ -z "${GOLEMFS_SANITIZE:-}" ]; then
	mkdir $W/many
	for d in $(seq 1 110); do
		mkdir $W/many/d$d
		(cd $W/many/d$d && touch $(seq -f 'f%g' 1 200))
	done
	check "22,000 files" 22000 "$(find $W/many -type f | wc -l)"
	check "stat them all" 22000 \
		"$(find $W/many -type f -exec stat -c %s {} + | wc -l)"
	rm -rf $W/many
	expect ENOENT stat $W/many
fi
gumount m

# --cache-timeout 0: the kernel trusts no name, so a rename beside the
# mount shows at once (by default the old name still stats for 1 s)
gmount m --cache-timeout 0 || exit 1
printf 'zero one\n' > $W/c0.txt
check "read through the mount" "zero one" "$(cat $W/c0.txt)"
sleep 0.1 # a later clock tick
printf 'zero two\n' > .sandbox/work/c0.txt
check "--cache-timeout 0: seen at once" "zero two" "$(cat $W/c0.txt)"
mv .sandbox/work/c0.txt .sandbox/work/c1.txt
expect ENOENT stat $W/c0.txt
gumount m
finish
