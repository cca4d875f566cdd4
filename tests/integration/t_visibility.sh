#!/bin/bash
# `ls /` shows exactly the zones with any right at the live trust level,
# after the worker chain; nothing of the sandbox's own machinery.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p proj/work proj/wk && cd proj
git init -q .
cat > golem.yaml <<'Y'
sandbox:
  zones:
    sess:    { kind: session }
    work:    { kind: workspace, path: ./work }
    repo:    { kind: repo, path: . }
    staging: { kind: staged, repo: . }
    workers: { kind: workers, path: ./wk }
    custom:  { path: ./custom, mode: ro }
Y
mkdir -p .sandbox/custom

lsroot() { ls -A "$1" | tr '\n' ' ' | sed 's/ $//'; }

for level in untrusted session workspace full; do
	gmount "$T/m-$level" -T "$level" || exit 1
done
# the staged zone ('staging') has a right at every level: c at untrusted
check "ls / untrusted" "sess staging workers" "$(lsroot "$T/m-untrusted")"
check "ls / session" "custom sess staging work workers" "$(lsroot "$T/m-session")"
check "ls / workspace" "custom repo sess staging work workers" \
	"$(lsroot "$T/m-workspace")"
check "ls / full" "custom repo sess staging work workers" "$(lsroot "$T/m-full")"
# the repo zone at full shows the project, but never the sandbox root
check "no .sandbox in repo" "" "$(ls -A "$T/m-full/repo" | grep -x .sandbox)"
check "repo has golem.yaml" "golem.yaml" \
	"$(ls -A "$T/m-full/repo" | grep -x golem.yaml)"
expect ENOENT stat "$T/m-full/repo/.sandbox"

# a worker chain: each keeps only what it names, parent is the ceiling
cat > a.worker <<'Y'
---
name: a
sandbox:
  zones:
    - { name: work, mode: rw }
    - { name: sess, mode: rw }
    - { name: custom }
---
Y
cat > b.worker <<'Y'
---
name: b
sandbox:
  zones:
    - { name: work, mode: ro }
---
Y
gmount "$T/m-a" -W a.worker || exit 1
gmount "$T/m-ab" -W a.worker -W b.worker || exit 1
check "ls / worker a" "custom sess work" "$(lsroot "$T/m-a")"
check "ls / worker a->b" "work" "$(lsroot "$T/m-ab")"
expect EACCES create "$T/m-ab/work/x"
expect OK create "$T/m-a/work/x"

# a worker file with no sandbox: key sees an empty root
printf -- '---\nname: bare\n---\n' > bare.worker
gmount "$T/m-bare" -W bare.worker || exit 1
check "ls / bare worker" "" "$(lsroot "$T/m-bare")"

for m in "$T"/m-*; do gumount "$m"; done
finish
