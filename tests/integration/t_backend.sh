#!/bin/bash
# What each kind of node answers (fs/backend.h): the virtual root, a
# passthrough zone and a staged zone, for the operations a kind refuses,
# and for requests between two kinds (link, rename, copy_file_range).
# The answers are those of the callbacks before the backend table; the
# refusals change nothing on the host.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p box/ws
git -c init.defaultBranch=main init -q repo
(
	cd repo && echo one > a.txt && git add -A &&
	git -c user.name=T -c user.email=t@t commit -qm base
)
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    ws: { path: ./ws, mode: rw }
    staged: { kind: staged, repo: ./repo, branch: main }
Y
gmount m -T workspace || exit 1
S=m/staged
mkdir $S/s1 || fail "mkdir starts a staged commit"
echo w > m/ws/f

# the virtual root: zones only, no attributes
expect ENOENT stat m/nothere
expect EACCES mkdir m/x
expect EBUSY rmdir m/ws
expect EACCES symlink m/l x
expect EACCES mkfifo m/p
expect EACCES link m/ws/f m/f
expect EACCES rename m/ws/f m/f
expect EACCES setxattr m
expect ENODATA getxattr m
expect OK listxattr m
expect OK readdir m

# a staged zone: what git cannot hold is refused
expect ENOENT stat $S/nothere
expect EPERM mkfifo $S/s1/p
expect EPERM mkfifo $S/p
expect EPERM symlink $S/s1/l x
expect EPERM link $S/s1/a.txt $S/s1/b
expect EINVAL readlink $S/s1/a.txt
expect EOPNOTSUPP setxattr $S/s1/a.txt
expect EOPNOTSUPP removexattr $S/s1/a.txt
expect EOPNOTSUPP setxattr $S
expect ENODATA getxattr $S/s1/a.txt
expect ENODATA getxattr $S
# NEEDSWORK: an empty list would be the truer answer to a listxattr
# with room; ERANGE is what the staged tree has always said
expect "Numerical result out of range" listxattr $S/s1/a.txt
expect EOPNOTSUPP fallocate $S/s1/a.txt
expect EOPNOTSUPP seek-data $S/s1/a.txt

# between a staged zone and a passthrough one
expect EPERM link m/ws/f $S/s1/f
expect EPERM link m/ws/f $S/f
# NEEDSWORK: EXDEV would be the truer answer; EIO is today's
expect "Input/output error" link $S/s1/a.txt m/ws/a
expect "Input/output error" link $S/s1/a.txt m/a
expect EXDEV rename $S/s1/a.txt m/ws/a
expect EXDEV rename m/ws/f $S/s1/f
expect EXDEV rename $S/s1 m/ws/s1
# copy_file_range is EXDEV to the kernel, which then copies by hand
expect OK copy-range $S/s1/a.txt m/ws/c
expect OK copy-range m/ws/f $S/s1/c
check "the copy out of the staged tree" "one" "$(cat box/ws/c)"
check "the copy into the staged tree" "w" "$(cat $S/s1/c)"

# a passthrough zone does them all
expect OK seek-data m/ws/f
expect OK fallocate m/ws/f
expect OK copy-range m/ws/f m/ws/g
expect OK listxattr m/ws/f

# the refusals left both trees as they were
check "the zone holds what was made in it" "c f g" \
	"$(ls box/ws | tr '\n' ' ' | sed 's/ $//')"
check "the staged commit holds a.txt and c" "a.txt c" \
	"$(ls $S/s1 | tr '\n' ' ' | sed 's/ $//')"
check "nothing moved out of the staged commit" "one" "$(cat $S/s1/a.txt)"
finish
