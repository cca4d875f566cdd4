#!/bin/bash
# The session zone: a private directory per session; two mounts never see
# each other's files; --session resumes one.
. "$(dirname "$0")/lib.sh"

cd "$T"
cat > golem.yaml <<'Y'
sandbox:
  zones:
    session: { kind: session }
Y
gmount a --session alpha || exit 1
gmount b --session beta || exit 1
echo from-a > a/session/note
expect ENOENT stat b/session/note
echo from-b > b/session/other
expect ENOENT stat a/session/other
check "a's file on disk" "from-a" "$(cat .sandbox/sessions/alpha/note)"
gumount a
gumount b

# resume by ID: the same files are there
gmount c --session alpha || exit 1
check "resumed session" "from-a" "$(cat c/session/note)"
gumount c

# a new session by default, private too
gmount d || exit 1
expect ENOENT stat d/session/note
check "new session count" "3" "$(ls .sandbox/sessions | wc -l)"
gumount d

out=$("$GOLEMFS" mount --session ../x e 2>&1)
check "bad session id exits 2" "2" "$?"
check_contains "bad session id message" "--session" "$out"
finish
