#!/bin/bash
# The user's git repositories are untouchable through the mount, and
# protect globs hold through ancestors. A program inside `golemfs run`
# attacks a real repository with a submodule the way one would to plant
# code the host's git runs (core.fsmonitor, hooks, a gitfile or commondir
# pointing elsewhere), by every route: writing, renaming or exchanging the
# git dir or an ancestor away and back, mkdir tricks, links. Then the
# EFFECT is checked on the host: the git dirs are byte-identical, and the
# user's own `git status` and `git commit` run no planted program (a
# marker file stays absent) and still work.
. "$(dirname "$0")/lib.sh"

cd "$T"
MARK=$T/planted-code-ran
G() { git -c user.name=U -c user.email=u@h -c protocol.file.allow=always "$@"; }

# the user's repository with a submodule, and what the program may use
G init -q -b main subsrc && (cd subsrc && echo s > s.txt && G add -A &&
	G commit -qm sub)
mkdir -p ws/bin ws/plain ws/home ws/other/x
G init -q -b main ws/repo
(cd ws/repo && echo a > a.txt && G add -A && G commit -qm base &&
	G submodule add -q "$T/subsrc" sub 2>/dev/null && G commit -qm sub) ||
	fail "making the user's repository"
echo "user rc" > ws/home/.bashrc
# 65 levels: deeper than the walk of a moved directory goes
deep=ws/deep; for i in $(seq 65); do deep=$deep/d; done
mkdir -p "$deep" && echo "deep rc" > "$deep/.bashrc"
cp "$FSOP" ws/bin/fsop
# a repository whose config runs files of its working tree (husky)
G init -q -b main ws/husky && (cd ws/husky && mkdir -p .husky scripts &&
	printf '#!/bin/sh\ntouch %s\n' "$T/user-hook-ran" > .husky/pre-commit &&
	chmod +x .husky/pre-commit && echo 'echo fmt' > scripts/fmt.sh &&
	G config core.hooksPath .husky && G config alias.fmt '!./scripts/fmt.sh' &&
	G add -A && G commit -qm base --no-verify)
# ... and one three levels down
G init -q -b main ws/org/team/deep && (cd ws/org/team/deep && mkdir hooks &&
	G config core.hooksPath hooks)
# a bare repository and a separate git dir, not named .git
G init -q --bare -b main ws/bare.git
G init -q -b main --separate-git-dir "$T/ws/sep.git" ws/sepwt
cp -a ws/bare.git snap-bare.git
cp -a ws/sep.git snap-sep.git
cp -a ws/husky/.husky snap-husky
cp ws/husky/scripts/fmt.sh snap-fmt.sh
# a repository zone, writable at trust full
G init -q -b main rrepo && (cd rrepo && echo r > r.txt && G add -A &&
	G commit -qm base)
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    ws: { path: ./ws, mode: rw }
    rz: { kind: repo, path: ./rrepo }
Y
cp -a ws/repo/.git snap.git
cp -a ws/repo/sub/.git snap-sub.gitfile
cp -a rrepo/.git snap-r.git

# run SCRIPT: in the sandbox, one line per attack: "NAME RESULT"
run() { "$GOLEMFS" run -c golem.yaml "$@"; }
# (a sanitizer build's fsop: LeakSanitizer cannot run in the sandbox)
attack() {
	run -- env MARK="$MARK" ASAN_OPTIONS=detect_leaks=0 bash -c "F=/ws/bin/fsop; cd /ws; $1" 2>err.out
}

# ---- writing inside, and git itself ----
out=$(attack '
	$F append repo/.git/config "[core] fsmonitor = \"touch $MARK\""
	$F append repo/.git/modules/sub/config "[core] fsmonitor = \"touch $MARK\""
	$F create repo/.git/hooks/pre-commit
	$F create repo/.git/modules/sub/hooks/post-checkout
	$F create repo/.git/commondir
	$F create repo/.git/worktrees
	$F write repo/.git/refs/heads/main 0000
	$F write repo/.git/HEAD "ref: refs/heads/evil"
	$F rmdir repo/.git/refs/tags
	$F unlink repo/.git/index
	$F mkdir repo/.git/hooks/pre-commit
	$F mkdir repo/.git/hooks/.git
	$F mkdir repo/.git/modules/sub/.git
	$F link repo/.git/config cfg
	$F link repo/.git/refs/heads/main ref
	git -C repo config core.fsmonitor "touch $MARK" 2>/dev/null || echo refused
	git -C repo/sub config core.fsmonitor "touch $MARK" 2>/dev/null || echo refused
	git -C repo -c user.name=P -c user.email=p@p commit -qm x --allow-empty \
		2>/dev/null || echo refused
	')
check "writes inside the user's repository" "$(printf 'EACCES\n%.0s' $(seq 15); printf 'refused\n%.0s' 1 2 3)" "$out"
check_contains "the reason names the repository" \
	"is in the git repository 'repo/.git', which existed before this mount" \
	"$(cat err.out)"

# ---- the git dir, the gitfile and ancestors, moved away and back ----
out=$(attack '
	$F rename repo/.git repo/x
	$F rename repo/sub/.git repo/sub/x
	$F exchange repo/.git other/x
	$F exchange repo/.git/modules other/x
	$F rename repo repo2
	$F rename repo other/repo
	$F exchange repo other
	$F exchange other repo
	$F rename repo/.git/modules/sub repo/.git/modules/s2
	mv repo/.git x 2>/dev/null && echo "[core] fsmonitor = touch $MARK" >> x/config
	mv x repo/.git 2>/dev/null || echo refused
	')
check "moving the git dir or an ancestor" "$(printf 'EACCES\n%.0s' $(seq 9))
refused" "$out"
check_contains "an ancestor's reason names what it holds" \
	"rename /ws/repo refused: 'repo' cannot move with what it holds: 'repo/" \
	"$(cat err.out)"
check_contains "... a repository" ".git' is a git repository that existed" \
	"$(cat err.out)"

# ---- gitfiles and new .git entries ----
out=$(attack '
	mkdir -p evil/hooks && printf "#!/bin/sh\ntouch $MARK\n" > evil/hooks/pre-commit &&
	chmod +x evil/hooks/pre-commit && printf "[core]\n\tfsmonitor = touch $MARK\n" > evil/config
	echo "gitdir: /ws/evil" > gitfile
	$F write repo/sub/.git "gitdir: /ws/evil"
	$F unlink repo/sub/.git
	$F rename gitfile repo/sub/.git
	$F rename gitfile plain/.git
	$F symlink plain/.git /ws/evil
	$F rename evil plain/.git
	$F rename evil/hooks repo/.git/hooks
	$F exchange evil repo/.git
	mkdir mine && git -C mine init -q && echo own-init
	$F exchange mine/.git repo/.git
	mkdir mine2 && $F rename mine/.git mine2/.git
	')
check "gitfiles and new .git entries" "$(printf 'EACCES\n%.0s' $(seq 8))
own-init
EACCES
OK" "$out"
check_contains "a gitfile is refused with a reason" \
	"a .git may only be made with mkdir" "$(cat err.out)"

# ---- protect globs hold through ancestors ----
out=$(attack '
	$F rename home home2
	$F exchange home other
	$F rmdir home
	$F rename deep deep2
	mv deep deep3 2>/dev/null || echo mv-failed
	$F stat home/.bashrc
	')
check "protected entries beneath a moved directory" "EACCES
EACCES
ENOTEMPTY
EXDEV
mv-failed
OK" "$out"
check_contains "the refusal names the protected path" \
	"'home' cannot move with what it holds: 'home/.bashrc' is protected" \
	"$(cat err.out)"
check "the host's rc file is where it was" "user rc" "$(cat ws/home/.bashrc)"
check "the deep rc file too" "deep rc" "$(cat "$deep/.bashrc")"

# ---- files the user's git config runs from the working tree ----
out=$(attack '
	$F write husky/.husky/pre-commit "#!/bin/sh
touch $MARK"
	$F create husky/.husky/post-checkout
	$F rename husky/.husky husky/h2
	$F exchange husky/.husky other
	$F write husky/scripts/fmt.sh "touch $MARK"
	$F rename husky/scripts husky/s2
	$F create husky/a.txt
	$F create org/team/deep/hooks/pre-commit
	')
check "the hooks and programs the user's config names" "$(printf 'EACCES\n%.0s' $(seq 6))
OK
EACCES" "$out"
check_contains "the refusal says why" \
	"a hooks directory the user's git runs (core.hooksPath)" "$(cat err.out)"

# ---- a relative path in the user's global git config names a file of
# every working tree (found by the red-team pass) ----
mkdir -p ghome && printf '[core]\n\thooksPath = .githooks\n' > ghome/.gitconfig
G init -q -b main ws/glob && (cd ws/glob && echo g > g.txt && G add -A &&
	G commit -qm g && mkdir .githooks)
out=$(HOME=$T/ghome attack '
	$F create glob/.githooks/pre-commit
	$F rename glob/.githooks glob/h2
	$F exchange glob/.githooks other
	' | tr '\n' ' ')
check "a hooks directory named by the global config" "EACCES EACCES EACCES " \
	"$out"
(cd ws/glob && HOME=$T/ghome G commit -qm host --allow-empty) >>host.out 2>&1
check "the user's commit there runs nothing planted" "" \
	"$(ls -A ws/glob/.githooks)"

# ---- git directories of the user's not named .git ----
out=$(attack '
	$F create bare.git/hooks/pre-receive
	$F append bare.git/config "[core] fsmonitor = x"
	$F write bare.git/HEAD "ref: refs/heads/x"
	$F rename bare.git b2
	$F write sep.git/HEAD "ref: refs/heads/x"
	$F create sep.git/refs/heads/x
	$F exchange sep.git other
	$F write sepwt/.git "gitdir: /ws/bare.git"
	')
check "bare and separate git dirs" "$(printf 'EACCES\n%.0s' $(seq 8))" "$out"

# ---- the program's own repositories still work ----
out=$(attack '
	git init -q own && cd own && echo x > f && git add f &&
	git -c user.name=P -c user.email=p@p commit -qm own && echo committed
	cd .. && mv own own2 && echo moved
	')
check "git init, commit and mv of the program's own repository" \
	"committed
moved" "$out"
# git links each new object into place: no refusal on the way
check "its git work is refused nothing" "" "$(grep refused err.out)"

# ---- a repo zone at trust full: contents yes, config and hooks no ----
out=$(run -T full -- env MARK="$MARK" bash -c '
	cd /rz
	git -c user.name=P -c user.email=p@p commit -q --allow-empty -m inside \
		&& echo committed
	git config core.fsmonitor "touch $MARK" 2>/dev/null || echo refused
	mkdir .git/hooks/pre-commit 2>/dev/null || echo refused
	echo x > .git/info/exclude 2>/dev/null || echo refused
	echo x > .git/commondir 2>/dev/null || echo refused
	mv .git g 2>/dev/null || echo refused
	' 2>/dev/null)
check "kind: repo at full" "committed
refused
refused
refused
refused
refused" "$out"

# ---- the effect on the host ----
diff -r snap.git ws/repo/.git >/dev/null
check "the user's git dir is byte-identical" 0 $?
cmp -s snap-sub.gitfile ws/repo/sub/.git
check "the submodule's gitfile is byte-identical" 0 $?
diff -r snap-r.git/config rrepo/.git/config >/dev/null &&
	diff -r snap-r.git/hooks rrepo/.git/hooks >/dev/null &&
	diff -r snap-r.git/info rrepo/.git/info >/dev/null
check "the repo zone's config, hooks and info are byte-identical" 0 $?
check "the repo zone took the program's commit" "inside" \
	"$(git -C rrepo log -1 --format=%s)"
(cd ws/repo && G status >/dev/null && echo b > a.txt && G commit -qam host &&
	G -C sub status >/dev/null && cd sub && echo t > s.txt &&
	G commit -qam host-sub) >host.out 2>&1
check "the user's git status and commit work" 0 $?
(cd rrepo && G status >/dev/null && echo t > r.txt && G commit -qam host) \
	>>host.out 2>&1
check "and in the repo zone" 0 $?
(cd ws/plain && G status >/dev/null 2>&1)
check "no repository appeared in a plain directory" 128 $?
diff -r snap-bare.git ws/bare.git >/dev/null && diff -r snap-sep.git ws/sep.git >/dev/null
check "the bare repository and the separate git dir are byte-identical" 0 $?
diff -r snap-husky ws/husky/.husky >/dev/null && cmp -s snap-fmt.sh ws/husky/scripts/fmt.sh
check "the husky hooks and the aliased script are byte-identical" 0 $?
(cd ws/husky && G commit -qm host --allow-empty) >>host.out 2>&1
check "the user's own hook ran at their commit" "present" \
	"$([ -e "$T/user-hook-ran" ] && echo present || echo absent)"
check "no planted program ran on the host" "absent" \
	"$([ -e "$MARK" ] && echo present || echo absent)"

finish
