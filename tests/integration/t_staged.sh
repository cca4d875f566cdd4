#!/bin/bash
# The staged zone through a real mount: a program stages with ordinary
# tools; golemfs diff equals git diff of the same edit made by hand in a
# clone; push makes exactly that tree; kill -9 after close loses nothing;
# untrusted programs add new files only; 1,000 files stage quickly.
. "$(dirname "$0")/lib.sh"

cd "$T"
git -c init.defaultBranch=main init -q repo
(
	cd repo && printf 'one\ntwo\nthree\n' > a.txt && mkdir -p d &&
	echo b > d/b.txt && printf '#!/bin/sh\necho hi\n' > run.sh && chmod +x run.sh &&
	git add -A && git -c user.name=T -c user.email=t@t commit -qm base
)
cat > golem.yaml <<'Y'
sandbox:
  zones:
    staged: { kind: staged, repo: ./repo, branch: main }
Y
# workspace may read the repository: the staged tree shows all of it
gmount m -T workspace || exit 1
S=m/staged

check "no staged commits" "" "$(ls $S)"
mkdir $S/s1 || fail "mkdir starts a staged commit"
check "the tree of the branch head" "a.txt d run.sh" "$(ls $S/s1 | tr '\n' ' ' | sed 's/ $//')"
check "contents from git objects" "two" "$(sed -n 2p $S/s1/a.txt)"

# ordinary tools: append, sed -i (rename over), cp, rm, mv, mkdir, chmod
echo four >> $S/s1/a.txt
sed -i 's/one/ONE/' $S/s1/a.txt
mkdir -p $S/s1/new/deeper
cp /etc/hostname $S/s1/new/deeper/host.txt
printf 'x\n' > $S/s1/new/x.txt
rm $S/s1/d/b.txt
mv $S/s1/run.sh $S/s1/bin.sh
chmod -x $S/s1/bin.sh
printf 'staged by a program\n\nwith a body\n' > $S/s1/COMMIT_EDITMSG

# the same edit by hand in a clone
git clone -q repo clone
(
	cd clone && printf 'ONE\ntwo\nthree\nfour\n' > a.txt &&
	mkdir -p new/deeper && cp /etc/hostname new/deeper/host.txt &&
	printf 'x\n' > new/x.txt && git rm -q d/b.txt && git mv run.sh bin.sh &&
	chmod -x bin.sh && git add -A
)
norm() { grep -v -e '^index ' -e '^staged tree ' | sed 's/[[:space:]]*$//'; }
check "golemfs diff equals git diff" \
	"$(git -C clone diff --cached -M --no-color | norm)" \
	"$("$GOLEMFS" diff s1 | norm)"
check_contains "--stat shows the rename" "run.sh => bin.sh" "$("$GOLEMFS" diff --stat s1)"
check_contains "--stat shows the mode change" "mode change 100755 => 100644 bin.sh" \
	"$("$GOLEMFS" diff --stat s1)"

# kill -9 after the files were closed: a remount finds them all
pid=$(daemon_pid m)
[ -n "$pid" ] || fail "no daemon pid for m"
kill -9 "$pid"
wait_for 5 gone "$pid" || fail "the daemon outlived kill -9"
"$GOLEMFS" umount m
gmount m -T workspace || exit 1
check "after kill -9 the edit is whole" \
	"$(git -C clone diff --cached -M --no-color | norm)" \
	"$("$GOLEMFS" diff s1 | norm)"

# push makes exactly the hand-made tree; fsck is clean
out=$("$GOLEMFS" push --yes s1 2>/dev/null)
check_contains "push" "golem/s1" "$out"
check "pushed tree is the hand-made tree" \
	"$(git -C clone write-tree)" "$(git -C repo rev-parse 'golem/s1^{tree}')"
check "COMMIT_EDITMSG is the message" "staged by a program" \
	"$(git -C repo log -1 --format=%s golem/s1)"
check "COMMIT_EDITMSG is not in the tree" "" \
	"$(git -C repo ls-tree -r --name-only golem/s1 | grep EDITMSG)"
git -C repo fsck --strict --no-progress >/dev/null 2>&1 || fail "fsck of the trusted repo"
git -C .sandbox/staging/staged.git fsck --no-progress >/dev/null 2>&1 ||
	fail "fsck of the staging repo"
check "committed commits leave /staged" "" "$(ls $S)"

# rmdir discards
mkdir $S/s2 && echo y > $S/s2/y.txt
rmdir $S/s2 || fail "rmdir discards"
check "discarded" "discarded" \
	"$("$GOLEMFS" staged --json | jq -r 'select(.id == "s2") | .status')"

# what a staged tree cannot hold
mkdir $S/s3
expect EPERM symlink $S/s3/l a.txt
expect EPERM mkfifo $S/s3/p
expect EXDEV rename $S/s3/a.txt $S/x
# a rename over a staged file replaces it in one step; a file and a
# directory do not replace each other, and nothing is lost trying
echo moved > $S/s3/m.txt
expect OK rename $S/s3/m.txt $S/s3/a.txt
check "renamed over" "moved" "$(cat $S/s3/a.txt)"
expect ENOENT read $S/s3/m.txt
expect EISDIR rename $S/s3/a.txt $S/s3/d
expect ENOTDIR rename $S/s3/d $S/s3/a.txt
check "a file refused over a directory is still there" "moved" "$(cat $S/s3/a.txt)"
check "the directory refused over a file is still there" "b.txt" "$(ls $S/s3/d)"
gumount m

# session may not read the repository (built-in table): /staged is no way
# around that - it shows only what the staged commit itself adds
gmount m -T session || exit 1
mkdir $S/s9
check "session sees nothing of the repository" "" "$(ls -A $S/s9)"
expect ENOENT read $S/s9/a.txt
expect ENOENT read $S/s9/d/b.txt
mkdir -p $S/s9/mine && echo new > $S/s9/mine/n.txt
check "its own files show" "mine" "$(ls $S/s9)"
check "and read back" "new" "$(cat $S/s9/mine/n.txt)"
echo replaced > $S/s9/a.txt
check "a replaced file shows" "replaced" "$(cat $S/s9/a.txt)"
# a directory of the repository entered by mkdir, given a file of its
# own and moved: the moved repository files are still the repository's
mkdir $S/s9/d
echo mine > $S/s9/d/m.txt
mv $S/s9/d $S/s9/d2 || fail "mv of a staged directory"
check "moved: only the program's file shows" "m.txt" "$(ls -A $S/s9/d2)"
expect ENOENT read $S/s9/d2/b.txt
check "moved repository content is not readable" "" \
	"$(cat $S/s9/d2/b.txt 2>/dev/null)"
: > $S/s9/empty.txt
check "an empty file of its own shows" "empty.txt" "$(ls $S/s9 | grep empty)"
gumount m
check "the user sees the move" "1" \
	"$("$GOLEMFS" diff --stat s9 | grep -c '^ *d/b.txt => d2/b.txt *|')"
check "the user sees the replacement" "+replaced" \
	"$("$GOLEMFS" diff s9 | grep '^+replaced')"

# untrusted: starts empty, new files only
gmount m -T untrusted || exit 1
mkdir $S/u1 || fail "untrusted mkdir"
expect OK create $S/u1/new.txt
expect EACCES write $S/u1/new.txt more
expect EACCES unlink $S/u1/new.txt
expect EACCES readdir $S/u1
gumount m
check "untrusted starts from nothing" "create mode 100644 new.txt" \
	"$("$GOLEMFS" diff --stat u1 | grep 'mode' | sed 's/^ *//')"

# while a push holds a staged commit (its exclusive flock on the commit's
# directory, taken here as push takes it), the mount's writes to it fail
# with EBUSY and change nothing; afterwards they work again
gmount m -T workspace || exit 1
mkdir $S/lk && echo before > $S/lk/f.txt
held=$(flock -x .sandbox/staging/staged/lk "$FSOP" write $S/lk/f.txt after)
check "a write during a push is EBUSY" EBUSY "$held"
held=$(flock -x .sandbox/staging/staged/lk "$FSOP" unlink $S/lk/f.txt)
check "an unlink during a push is EBUSY" EBUSY "$held"
check "the staged file is unchanged" "before" "$(cat $S/lk/f.txt)"
check "and so is the staged commit" "+before" \
	"$("$GOLEMFS" diff lk | grep '^+[a-z]')"
echo after > $S/lk/f.txt || fail "write after the push"
check "written once the push is over" "after" "$(cat $S/lk/f.txt)"

# an id is never cut: a name longer than the longest id (64) that starts
# with a staged commit's id is not that commit
long=$(printf 'L%.0s' $(seq 64))
mkdir $S/$long && echo mine > $S/$long/f.txt
expect ENOENT stat "$S/${long}X"
expect ENOENT read "$S/${long}X/f.txt"
expect ENOENT write "$S/${long}X/f.txt" other
check "the commit is unchanged" "mine" "$(cat $S/$long/f.txt)"

# a staged zone's files are bounded (max_file_bytes, 1 GiB by default)
expect EFBIG truncate $S/lk/f.txt 1073741825
dd if=/dev/zero of=$S/lk/f.txt bs=1 count=1 seek=1073741824 conv=notrunc 2>/dev/null
check "a write past 1 GiB fails" 1 $?
check "and leaves the file as it was" "after" "$(cat $S/lk/f.txt)"
# a file over a megabyte goes through temporary files both ways
head -c 3000000 /dev/urandom > rnd.bin
cp rnd.bin $S/lk/rnd.bin && cmp -s rnd.bin $S/lk/rnd.bin
check "3 MB staged and read back" 0 $?
echo tail >> rnd.bin && echo tail >> $S/lk/rnd.bin && cmp -s rnd.bin $S/lk/rnd.bin
check "and appended to" 0 $?
gumount m

# 1,000 files through the mount
gmount m -T workspace || exit 1
mkdir $S/big
start=$EPOCHREALTIME
for d in $(seq 1 20); do
	mkdir $S/big/d$d
	for f in $(seq 1 50); do echo "$d $f" > $S/big/d$d/f$f; done
done
n=$("$GOLEMFS" diff --stat big | grep -c '|')
end=$EPOCHREALTIME
check "1,000 files staged" 1000 "$n"
echo "staged and diffed 1,000 files through the mount in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
gumount m
finish
