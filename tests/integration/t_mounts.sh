#!/bin/bash
# Docker-style bind mounts: a source at /, a shadowing target, readonly,
# later mounts over earlier ones, and a worker's restrict.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p prog/src prog/cache npm other
echo main > prog/src/main.c
echo prog-cache > prog/cache/f
echo npm-cache > npm/f
echo other > other/o
cat > golem.yaml <<'Y'
sandbox:
  mounts:
    - { source: ./prog, target: / }
    - { source: ./npm, target: /cache, readonly: true }
    - { source: ./other, target: /deep/er }
  zones:
    work: { path: ./w, mode: rw }
Y

gmount m || exit 1
lsroot() { ls -A "$1" | tr '\n' ' ' | sed 's/ $//'; }
check "root is the program plus targets and zones" "cache deep src work" \
	"$(lsroot m)"
check "/cache is the npm mount" "npm-cache" "$(cat m/cache/f)"
check "nested target" "other" "$(cat m/deep/er/o)"
expect EROFS create m/cache/new
expect OK create m/src/new.c
check "write went to the source" "new" "$(cat prog/src/new.c)"
expect OK mkdir m/newdir
expect OK create m/newdir/f
check "root passthrough writes" "new" "$(cat prog/newdir/f)"
expect EXDEV rename m/src/new.c m/work/new.c
gumount m

# later mounts shadow earlier ones at the same or a parent target
cat > later.yaml <<'Y'
sandbox:
  mounts:
    - { source: ./npm, target: /cache, readonly: true }
    - { source: ./prog, target: / }
Y
gmount m2 -c later.yaml || exit 1
check "later / shadows earlier /cache" "prog-cache" "$(cat m2/cache/f)"
expect OK write m2/cache/f changed
gumount m2

# restrict: only that subtree, at the same path
cat > r.worker <<'Y'
---
name: r
sandbox:
  restrict: /src
  readonly: true
---
Y
gmount m3 -W r.worker || exit 1
check "restrict shows only /src" "src" "$(lsroot m3)"
check "same path inside" "main" "$(cat m3/src/main.c)"
expect ENOENT stat m3/cache
expect EROFS create m3/src/x.c
gumount m3
finish
