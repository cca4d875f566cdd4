#!/bin/bash
# A git repository a sandboxed program makes plants nothing the host's git
# will run. Inside `golemfs run` the program uses git as usual (init, add,
# commit, branch, checkout, config, remote add, branch -u, clone, git
# directories inside .git as worktrees and submodules have), then tries
# every way we know to leave a program for the host's git: executing
# config keys written by git config, by appending, by cp, by mv, through a
# writer kept open across the rename, through a hard link, by
# RENAME_EXCHANGE; hooks made, renamed, linked or moved in as a directory;
# a bare repository; a directory whose config (or hooks) came before it
# looked like a git directory; config.worktree; a worktree's and a
# submodule's git directory. Then the USER runs git status, commit and
# checkout in those repositories on the host, and no planted program runs:
# the marker files stay absent. A control shows the same config and hook,
# written on the host, do run.
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p project/work home
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    work: { path: ./project/work, mode: rw }
Y

# what the program does, inside the sandbox; one "name:ok|refused" a line
cat > project/work/attack.sh <<'SH'
t() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then echo "$name:ok"; else echo "$name:refused"; fi
}
export GIT_AUTHOR_NAME=P GIT_AUTHOR_EMAIL=p@p GIT_COMMITTER_NAME=P \
	GIT_COMMITTER_EMAIL=p@p GIT_CONFIG_NOSYSTEM=1
evil() { printf '[core]\n\t%s = touch PLANTED-%s; touch %s-%s\n' "$1" "$2" "$MARK" "$2"; }
hook() { printf '#!/bin/sh\ntouch PLANTED-%s; touch %s-%s\n' "$1" "$MARK" "$1"; }
cd /work
# ordinary git work
t init git init -q -b main r
cd r
t config-user git config user.name P
t commit sh -c 'echo a > f && git add f && git commit -qm one'
t branch git branch b
t checkout git checkout -q b
t remote-add git remote add origin /tmp/nowhere
t upstream git config branch.b.merge refs/heads/main
t status git status --short
t commit2 sh -c 'echo b >> f && git commit -qam two'
t branch-u sh -c 'git update-ref refs/remotes/origin/main main && git branch -u origin/main'
t clone git clone -q . ../r2
# git directories inside .git, as git worktree add and git submodule add
# make them (a .git file may not be made: golemfs refuses gitfiles)
t module-init git init -q --bare .git/modules/m
t worktree-dir sh -c 'mkdir -p .git/worktrees/w && echo ../.. > .git/worktrees/w/commondir && git rev-parse HEAD > .git/worktrees/w/HEAD'
# executing config keys
t git-config-fsmonitor git config core.fsmonitor "touch PLANTED-gc; touch $MARK-gc"
t git-config-alias git config alias.st '!touch PLANTED-alias'
t git-config-include git config include.path ../../evil.cfg
t git-config-pager git config pager.status 'touch PLANTED-pager'
t git-config-hookspath git config core.hooksPath /work/hk
t append eval 'evil fsmonitor append >> .git/config'
evil fsmonitor cp > ../evil.cfg
t cp cp ../evil.cfg .git/config
t cp-new sh -c 'cp ../evil.cfg x.cfg && mv x.cfg .git/config'
t mv mv ../evil.cfg .git/config
t truncate truncate -s 0 .git/config
# a writer kept open across the rename loses its right to write
exec 3> .git/cfg.lock
printf '[user]\n\tname = P\n' >&3
t writer-rename mv .git/cfg.lock .git/config
t writer-after eval 'evil pager writer >&3'
exec 3>&-
# a second name would be a writer too
printf '[user]\n\tname = P\n' > y.cfg
ln y.cfg y2.cfg
t hardlinked mv y.cfg .git/config
t link-config ln .git/config cfglink
evil pager sym > ../s.cfg
t symlink-config ln -sf ../../s.cfg .git/config
t exchange python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
open("/work/x.cfg", "w").write(sys.argv[1])
r = libc.renameat2(-100, b"/work/x.cfg", -100, b"/work/r/.git/config", 2)
sys.exit(1 if r else 0)' "$(evil fsmonitor exchange)"
# hooks
t hook-create eval 'hook pre-commit > .git/hooks/pre-commit'
t hook-sample eval 'hook pc > .git/hooks/pre-commit.sample && chmod +x .git/hooks/pre-commit.sample'
t hook-rename mv .git/hooks/pre-commit.sample .git/hooks/pre-commit
t hook-symlink ln -s pre-commit.sample .git/hooks/post-checkout
t hook-link ln .git/hooks/pre-commit.sample .git/hooks/post-commit
mkdir ../hk && hook pre-commit > ../hk/pre-commit && chmod +x ../hk/pre-commit
t hooks-dir sh -c 'mv .git/hooks .git/hooks.old && mv ../hk .git/hooks'
t hooks-symlink ln -s ../../hk .git/hooks
t hooks-back mv .git/hooks.old .git/hooks
# config.worktree
t worktree-config sh -c "git config extensions.worktreeConfig true && git config --worktree core.editor 'touch PLANTED-wt'"
t worktree-direct eval 'evil editor wtd > .git/config.worktree'
t wt-config git --git-dir=.git/worktrees/w config --worktree core.editor 'touch PLANTED-wt2'
t module-config git --git-dir=.git/modules/m config core.pager 'touch PLANTED-mod'
t module-hook eval 'hook post-checkout > .git/modules/m/hooks/post-checkout'
cd /work
# a bare repository (no .git name)
t bare-init git init -q --bare b.git
t bare-config git -C b.git config core.pager "touch PLANTED-bare"
t bare-hook eval 'hook post-update > b.git/hooks/post-update'
# config or hooks first, then the names that make a git directory
mkdir z && evil fsmonitor z > z/config
t z-objects mkdir z/objects
t z-refs mkdir z/refs
t z-head sh -c 'echo "ref: refs/heads/main" > z/HEAD'
t z-commondir sh -c 'echo . > z/commondir'
t z-moved-in sh -c 'mkdir q && mv q z/objects'
mkdir -p h/hooks && hook pre-commit > h/hooks/pre-commit && chmod +x h/hooks/pre-commit
t h-refs mkdir h/refs
t h-head sh -c 'echo "ref: refs/heads/main" > h/HEAD'
# a repository whose config is made writable before it is a git directory
mkdir w && printf '[user]\n\tname = P\n' > w/config
exec 4>> w/config
t w-init git init -q --bare w
t w-writer eval 'evil pager w >&4'
exec 4>&-
SH

# control: on the host, the same config and hook do run
git init -q -b main ctl
(cd ctl && HOME=$T/home GIT_CONFIG_NOSYSTEM=1 \
	git config core.fsmonitor "touch $T/control-fsmonitor; echo" &&
	printf '#!/bin/sh\ntouch %s\n' "$T/control-hook" > .git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit &&
	HOME=$T/home GIT_CONFIG_NOSYSTEM=1 git status >/dev/null 2>&1 &&
	HOME=$T/home GIT_CONFIG_NOSYSTEM=1 git -c user.name=U -c user.email=u@u \
		commit -q --allow-empty -m c)
check "control: a planted fsmonitor runs on the host" yes \
	"$([ -e control-fsmonitor ] && echo yes)"
check "control: a planted hook runs on the host" yes \
	"$([ -e control-hook ] && echo yes)"

out=$("$GOLEMFS" run -c golem.yaml -e MARK="$T/planted" -- \
	bash /work/attack.sh 2>"$T/run.err")
rc=$?
check "golemfs run ends" 0 "$rc"
res() { sed -n "s/^$1://p" <<<"$out"; }
for n in init config-user commit branch checkout remote-add upstream status \
	commit2 branch-u clone module-init worktree-dir writer-rename hooks-back \
	bare-init w-init; do
	check "git works in the sandbox: $n" ok "$(res "$n")"
done
for n in git-config-fsmonitor git-config-alias git-config-include \
	git-config-pager git-config-hookspath append cp cp-new mv truncate \
	writer-after hardlinked link-config symlink-config exchange \
	hook-create hook-rename hook-symlink hook-link hooks-dir hooks-symlink \
	worktree-config worktree-direct wt-config module-config module-hook \
	bare-config bare-hook z-objects z-refs \
	z-head z-commondir z-moved-in h-refs h-head w-writer; do
	check "refused in the sandbox: $n" refused "$(res "$n")"
done
check "a sample hook may be written" ok "$(res hook-sample)"
check_contains "the program is told why" \
	"git config 'core.fsmonitor' (line 2) makes git run a program" \
	"$(cat "$T/run.err")"

# the user's git on the host, in every repository the program made
hostgit() {
	HOME=$T/home GIT_CONFIG_NOSYSTEM=1 git -c user.name=U -c user.email=u@u \
		"$@" >/dev/null 2>&1
}
W=project/work
hostgit -C $W/r status
hostgit -C $W/r commit -q --allow-empty -m host
hostgit -C $W/r checkout -q -b host
hostgit -C $W/r -c extensions.worktreeConfig=true status
hostgit -C $W/r st
hostgit --git-dir=$W/r/.git/modules/m log
hostgit --git-dir=$W/r/.git/worktrees/w --work-tree=$W/r status
hostgit --git-dir=$W/b.git log
hostgit -C $W/z status
hostgit -C $W/h commit -q --allow-empty -m h
hostgit -C $W/w status
check "no planted program ran on the host" "" \
	"$(cd "$T" && find . -name 'planted*' -o -name 'PLANTED*' | sort | tr '\n' ' ')"
check "the program's own settings reached the host" P \
	"$(git config --file $W/r/.git/config user.name)"
check "the host's config holds nothing planted" "" \
	"$(grep -l -r -e PLANTED -e planted $W/r/.git/config $W/b.git/config \
		$W/w/config $W/r/.git/modules/m/config \
		$W/r/.git/worktrees/w 2>/dev/null)"
check "the repository's hooks are only samples" "" \
	"$(ls $W/r/.git/hooks | grep -v '\.sample$')"
check "the host's git sees the program's commits" "1" \
	"$(HOME=$T/home git -C $W/r log --format=%s b | grep -c '^two$')"
finish
