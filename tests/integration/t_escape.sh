#!/bin/bash
# Escape attempts. The daemon must never follow a symlink or ".." out of a
# zone, even while the backing tree changes under it: a swapper exchanges a
# real directory with a symlink to a canary outside the zone while readers
# and writers work through the mount (with a tiny fd cache, so cold nodes
# are re-found by name all the time). The canary is never read or changed.
. "$(dirname "$0")/lib.sh"
SWAPPER=${SWAPPER:?}

cd "$T"
mkdir -p box/z/d box/outside
echo inside > box/z/d/f
echo CANARY > box/outside/f
ln -s ../outside box/z/link          # inside the backing tree, leads out
cat > golem.yaml <<'Y'
sandbox:
  root: box
  zones:
    z: { path: ./z, mode: rw }
Y
gmount m --max-fds 4 || exit 1

# a symlink the host left: the kernel resolves it inside the virtual root,
# where ../outside does not exist
expect ENOENT read m/z/link/f

# Race for 4 s; on a loaded machine, go on (up to 30 s) until some reads
# got through, so that the race surely exercised the path to d/f.
"$SWAPPER" box/z d link 40 >/dev/null &
swap=$!
leaks=0
reads=0
start=$SECONDS
while [ $((SECONDS - start)) -lt 4 ] ||
      { [ "$reads" -lt 3 ] && [ $((SECONDS - start)) -lt 30 ]; }; do
	for i in 1 2 3 4 5 6 7 8; do
		c=$(cat m/z/d/f 2>/dev/null)
		[ "$c" = CANARY ] && leaks=$((leaks + 1))
		[ -n "$c" ] && reads=$((reads + 1))
		echo written > m/z/d/f 2>/dev/null
		echo new > m/z/d/new$i 2>/dev/null
		ls m/z/d >/dev/null 2>&1
		rm -f m/z/d/new$i 2>/dev/null
	done
done
kill -TERM $swap
wait $swap || fail "the swapper did not swap"
check "canary never read" 0 "$leaks"
[ "$reads" -ge 3 ] || fail "only $reads reads succeeded during the race"
echo "race: $reads successful reads"
check "canary unchanged" CANARY "$(cat box/outside/f)"
check "nothing created beside the canary" "f" "$(ls box/outside)"

# symlinks: inside - a link may only lead within its zone
expect EACCES symlink m/z/esc ../../outside
expect EACCES symlink m/z/abs /etc/passwd
expect OK symlink m/z/ok d/f
# an absolute target is read by the host as a host path: /z/d is not the
# zone there, the zone's own directory is
expect EACCES symlink m/z/abs-in /z/d
expect OK symlink m/z/abs-host "$(realpath box/z)/d"
mkdir -p m/z/sub
expect OK symlink m/z/sub/up ../d
expect EACCES symlink m/z/sub/up2 ../../z

# ".." walks stay in the virtual root
check "z/.. is the root" "z" "$(ls m/z/..)"
expect ENOENT stat m/z/../outside

# planting hooks or shell rc files is refused, even for new names
mkdir -p box/z/repo/.git/hooks
touch box/z/repo/.git/config
expect EACCES create m/z/repo/.git/hooks/pre-commit
expect EACCES write m/z/repo/.git/config x
expect EACCES unlink m/z/repo/.git/config
expect EACCES create m/z/.bashrc
expect EACCES create m/z/sub/.profile
expect EACCES create m/z/.mcp.json
mkdir m/z/evil && echo x > m/z/evil/pre-commit
expect EACCES rename m/z/evil m/z/repo/.git/hooks
mkdir -p box/z/r2/.git
expect EACCES symlink m/z/r2/.git/hooks ../../evil
echo x > m/z/cfg
expect EACCES rename m/z/cfg m/z/repo/.git/config
expect EACCES link m/z/repo/.git/config m/z/cfg2
# ... while a repository the program makes itself is its own, though it
# still plants nothing git would run (t_gitguard.sh has the rest)
(cd m/z && git init -q mine) || fail "git init in a zone"
git -C m/z/mine config user.name P || fail "git config in own repo"
expect OK create m/z/mine/.git/hooks/mine.sample
expect EACCES create m/z/mine/.git/hooks/pre-commit

gumount m
finish
