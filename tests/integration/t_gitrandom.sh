#!/bin/bash
# Seeded random sequences of mkdir, create, write, chmod, rename,
# exchange, link, symlink, unlink and rmdir from inside `golemfs run`, over
# a zone that holds a user's repository with a submodule and room to make
# repositories of the program's own. After each sequence the host is
# checked: the user's git dirs and gitfile are byte-identical, and the
# host's git status and commit, in the user's repositories and in any the
# program left, run no planted program (a marker file stays absent).
#
# Each sequence starts from the same tree, so a failing one is reproduced
# from its seed alone, which is printed:
#   GITRANDOM_SEED=N GITRANDOM_SEQS=1 meson test gitrandom
# GITRANDOM_SEQS (default 8) and GITRANDOM_OPS (default 40) size the run.
. "$(dirname "$0")/lib.sh"

SEQS=${GITRANDOM_SEQS:-8}
OPS=${GITRANDOM_OPS:-40}
SEED=${GITRANDOM_SEED:-$(( $(date +%s) % 100000 ))}

cd "$T"
MARK=$T/planted-code-ran
G() { git -c user.name=U -c user.email=u@h -c protocol.file.allow=always "$@"; }

G init -q -b main subsrc && (cd subsrc && echo s > s.txt && G add -A &&
	G commit -qm sub)
mkdir -p pristine/bin pristine/x pristine/z
G init -q -b main pristine/repo
(cd pristine/repo && echo a > a.txt && G add -A && G commit -qm base &&
	G submodule add -q "$T/subsrc" sub 2>/dev/null && G commit -qm sub &&
	G status >/dev/null) || fail "making the user's repository"
cp "$FSOP" pristine/bin/fsop
cat > golem.yaml <<'Y'
sandbox:
  mode: direct
  zones:
    ws: { path: ./ws, mode: rw }
Y

PATHS=(repo repo/.git repo/.git/config repo/.git/hooks
	repo/.git/hooks/pre-commit repo/.git/modules repo/.git/modules/sub
	repo/.git/modules/sub/config repo/.git/modules/sub/hooks
	repo/.git/modules/sub/hooks/pre-commit repo/.git/refs/heads
	repo/.git/refs/heads/main repo/.git/HEAD repo/.git/commondir
	repo/.git/info repo/sub repo/sub/.git repo/a.txt repo/d
	x x/config x/hooks x/hooks/pre-commit x/.git x/.git/config
	x/.git/hooks x/.git/hooks/pre-commit x/HEAD
	y y/.git y/.git/config y/.git/hooks/pre-commit y/.git/commondir
	z z/x z/x/.git z/x/.git/config .git gitfile bin)
OPS_LIST=(mkdir create write chmod rename exchange link symlink unlink
	rmdir gitinit gitconfig)

# One random operation as a line of shell, from bash's seeded RANDOM.
op_line() {
	local op=${OPS_LIST[RANDOM % ${#OPS_LIST[@]}]}
	local a=${PATHS[RANDOM % ${#PATHS[@]}]}
	local b=${PATHS[RANDOM % ${#PATHS[@]}]}
	case $op in
	create | write)
		[ $op = create ] && echo "\$F create $a"
		case $a in
		*pre-commit) echo "\$F write $a \"\$HOOK\"" ;;
		*commondir | *gitfile) echo "\$F write $a \"gitdir: /ws/x\"" ;;
		*) echo "\$F write $a \"\$CFG\"" ;;
		esac ;;
	chmod) echo "\$F chmod $a 755" ;;
	rename | exchange | link) echo "\$F $op $a $b" ;;
	symlink) echo "\$F symlink $a ${b#*/}" ;;
	gitinit) echo "git init -q ${a%%/*}" ;;
	gitconfig) echo "git -C ${a%%/*} config core.fsmonitor \"touch \$MARK\"" ;;
	*) echo "\$F $op $a" ;;
	esac
}

# The host's git in every repository there is, as the user runs it.
host_git() {
	local d
	for d in ws/repo ws/repo/sub ws/x ws/y ws/z/x; do
		[ -e "$d/.git" ] || continue
		(cd "$d" && G status >/dev/null 2>&1 &&
			G commit -q --allow-empty -m host >/dev/null 2>&1)
	done
}

failed_seeds=""
for i in $(seq 0 $((SEQS - 1))); do
	s=$((SEED + i))
	RANDOM=$s
	rm -rf ws && cp -a pristine ws
	{
		for j in $(seq "$OPS"); do op_line; done
	} > ws/bin/seq.sh
	"$GOLEMFS" run -c golem.yaml -- env MARK="$MARK" \
		ASAN_OPTIONS=detect_leaks=0 bash -c '
		F=/ws/bin/fsop
		CFG=$(printf "[core]\n\tfsmonitor = touch %s\n" "$MARK")
		HOOK=$(printf "#!/bin/sh\ntouch %s\n" "$MARK")
		cd /ws && . bin/seq.sh' >/dev/null 2>&1
	bad=""
	diff -r pristine/repo/.git ws/repo/.git >/dev/null 2>&1 ||
		bad="$bad git-dir-changed"
	cmp -s pristine/repo/sub/.git ws/repo/sub/.git ||
		bad="$bad gitfile-changed"
	host_git
	[ -e "$MARK" ] && bad="$bad planted-code-ran"
	if [ -n "$bad" ]; then
		fail "seed $s:$bad; the sequence:"
		sed 's/^/    /' ws/bin/seq.sh
		failed_seeds="$failed_seeds $s"
		rm -f "$MARK"
	else
		pass
	fi
done
echo "gitrandom: seeds $SEED..$((SEED + SEQS - 1)), $OPS operations each${failed_seeds:+; failed:$failed_seeds}"
finish
