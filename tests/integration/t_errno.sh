#!/bin/bash
# Every row of the errno table, for every mutating operation, through real
# syscalls on a real mount: ro zones, rw zones, hidden zones, and zones
# lowered by the trust level or a worker.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p box/in box/out box/low box/wk box/big repo
echo data > box/in/a.md
echo data > box/low/a.md
echo data > box/wk/a.md
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    in:   { path: ./in, mode: ro }
    out:  { path: ./out, mode: rw }
    low:  { path: ./low, mode: rw, trust: { session: rl } }
    wk:   { path: ./wk, mode: rw }
    big:  { path: ./big, mode: rw, max_file_bytes: 10, suffixes: [.txt] }
    repo: { kind: repo, path: ./repo }
Y
cat > lower.worker <<'Y'
---
name: lower
sandbox:
  zones:
    - { name: in }
    - { name: out, mode: rw }
    - { name: low, mode: rw }
    - { name: wk, mode: ro }
    - { name: big, mode: rw }
---
A worker that may only read 'wk'.
Y
gmount m -W lower.worker || exit 1

# one file and one directory in each zone to act on
echo data > m/out/a.md
mkdir m/out/d
mkdir box/in/d box/low/d box/wk/d

ops_on_existing() { # zone expected
	local z=$1 want=$2
	expect "$want" write m/$z/a.md x
	expect "$want" append m/$z/a.md x
	expect "$want" trunc-open m/$z/a.md
	expect "$want" truncate m/$z/a.md 1
	expect "$want" chmod m/$z/a.md 600
	expect "$want" chown m/$z/a.md
	expect "$want" utimens m/$z/a.md
	expect "$want" setxattr m/$z/a.md
	expect "$want" fallocate m/$z/a.md
	expect "$want" create m/$z/new.md
	expect "$want" mkdir m/$z/newdir
	expect "$want" symlink m/$z/ln a.md
	expect "$want" mkfifo m/$z/fifo
	expect "$want" link m/$z/a.md m/$z/hard.md
	expect "$want" copy-range m/$z/a.md m/$z/copy.md
	expect "$want" rename m/$z/a.md m/$z/b.md
	expect "$want" unlink m/$z/a.md
	expect "$want" rmdir m/$z/d
}

# a read-only zone: EROFS for every change; reads work
ops_on_existing in EROFS
expect OK read m/in/a.md
expect OK readdir m/in

# lowered by the trust level (session may only read 'low'): EACCES
ops_on_existing low EACCES
expect OK read m/low/a.md

# lowered by a worker (ro on 'wk'): EACCES, not EROFS
ops_on_existing wk EACCES
expect OK read m/wk/a.md

# a rw zone: everything works, in the order that keeps targets there
for op in "write m/out/a.md x" "append m/out/a.md x" "trunc-open m/out/a.md" \
	"truncate m/out/a.md 1" "chmod m/out/a.md 600" "chown m/out/a.md" \
	"utimens m/out/a.md" "setxattr m/out/a.md" "removexattr m/out/a.md" \
	"fallocate m/out/a.md" "create m/out/new.md" "mkdir m/out/newdir" \
	"symlink m/out/ln a.md" "mkfifo m/out/fifo" \
	"link m/out/a.md m/out/hard.md" "copy-range m/out/a.md m/out/copy.md" \
	"rename m/out/a.md m/out/b.md" "unlink m/out/b.md" "rmdir m/out/d"; do
	# shellcheck disable=SC2086
	expect OK $op
done

# hidden zones (repo at session) and anything not a zone: ENOENT
mkdir -p repo/d && echo x > repo/a.md
for op in "stat m/repo" "read m/repo/a.md" "write m/repo/a.md x" \
	"truncate m/repo/a.md 0" "chmod m/repo/a.md 600" "utimens m/repo/a.md" \
	"setxattr m/repo/a.md" "create m/repo/x" "mkdir m/repo/x" \
	"symlink m/repo/x a" "unlink m/repo/a.md" "rmdir m/repo/d" \
	"rename m/repo/a.md m/out/z" "link m/repo/a.md m/out/z"; do
	# shellcheck disable=SC2086
	expect ENOENT $op
done
expect ENOENT stat m/nothing
# the root itself takes no files
expect EACCES create m/newfile
expect EACCES mkdir m/newdir

# across zones: EXDEV (mv falls back to copy + delete)
echo x > m/out/x
expect EXDEV link m/out/x m/big/x.txt
expect EXDEV rename m/out/x m/big/x.txt
expect EXDEV rename m/out/x m/in/x

# size limit and suffix rule
expect OK create m/big/a.txt
expect EFBIG write m/big/a.txt 0123456789ABC
expect EFBIG truncate m/big/a.txt 11
expect OK truncate m/big/a.txt 10
# blocks kept beyond the size count too: the disk is the host's
blocks=$(stat -c %b box/big/a.txt)
expect EFBIG fallocate-keep m/big/a.txt 1048576
check "no blocks allocated past max_file_bytes" "$blocks 10" \
	"$(stat -c '%b %s' box/big/a.txt)"
expect OK fallocate-keep m/big/a.txt 10
expect EACCES create m/big/a.bin

# never: device nodes, security/trusted xattrs, setuid bits
expect EPERM mknod-chr m/out/null
# a rename's whiteout is a device node (char 0:0) left at the source
echo canary > m/out/w
expect EPERM whiteout m/out/w m/out/w2
check "whiteout: the source is the same file, no device made" \
	"regular file canary 0" \
	"$(stat -c %F box/out/w) $(cat box/out/w) \
$(find box -type c -o -type b | wc -l)"
[ -e box/out/w2 ] && fail "whiteout: the rename happened"
expect EACCES setxattr m/out/x security.evil
expect EACCES setxattr m/out/x trusted.evil
expect OK chmod m/out/x 4755
check "setuid dropped" "755" "$(stat -c %a box/out/x)"

# the reason is kept for the reader
out=$(echo x 2>&1 > m/in/a.md)
check_contains "shell sees EROFS" "Read-only file system" "$out"

gumount m

# symlinks: deny refuses every new symlink, even inside the zone
gmount m -o symlinks=deny || exit 1
expect EACCES symlink m/out/l2 x
gumount m
finish
