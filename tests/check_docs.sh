#!/bin/bash
# Keeps docs/architecture.md true to the tree (meson test "docs", in the
# unit suite that every landing runs). It fails, naming each difference, when
#  - a `dir/file.c:function()` it cites is not a file of the tree holding
#    that identifier, or a `dir/file.ext` or `dir/` it names is missing;
#  - a .c file of common/ policy/ audit/ staging/ fs/ cli/ tools/ is not
#    named;
#  - the module graph it declares (the block after "module graph,
#    checked") is not the graph of #include "dir/header.h" lines between
#    the directories, or a directory in it includes one listed above it
#    (a circle, or a library that includes a command's header);
#  - two files of one directory include each other's headers, directly
#    or through others (X.c with X.h and X_int.h is one module; a header
#    with no .c of its own, as fs/fs.h, is types only: no module, its
#    includes count as its includer's);
#  - in fs/, a header declares a function that its own .c does not define
#    (or, types only, declares one at all): so no header belongs to two
#    files and hides a circle between them.
#   tests/check_docs.sh [SOURCE_ROOT]
set -uo pipefail
root=${1:-$(dirname "$0")/..}
doc=$root/docs/architecture.md
[ -f "$doc" ] || { echo "check_docs: $doc is missing" >&2; exit 1; }
bad=0
say() {
	echo "docs/architecture.md: $*"
	bad=1
}
flaw() { # a fault of the tree itself, not of the map
	echo "check_docs: $*"
	bad=1
}

# `path:name()`: the identifier is in the file
while IFS=: read -r path name; do
	if [ ! -f "$root/$path" ]; then
		say "$path (for $name()) does not exist"
	elif ! grep -qw -- "$name" "$root/$path"; then
		say "$path has no $name()"
	fi
done < <(grep -o '`[a-z_]*/[a-z_/]*\.[ch]:[A-Za-z_][A-Za-z_0-9]*()`' "$doc" |
	tr -d '`' | sed 's/()$//' | sort -u)

# `dir/` and `dir/file.ext` (no placeholders in capitals, no globs)
while read -r path; do
	[ -e "$root/$path" ] || say "$path does not exist"
done < <(grep -o '`[a-z][a-z_]*/[a-z_./0-9-]*`' "$doc" | tr -d '`' |
	grep -E '/$|\.[a-z0-9]+$' | sort -u)

# every source file of the libraries and of cli/ is on the map
for f in "$root"/{common,policy,audit,staging,fs,cli,tools}/*.c; do
	rel=${f#"$root"/}
	grep -qF "\`$rel" "$doc" || say "$rel is not named"
done

# the module graph: "dir/ -> dir/ dir/ ..." lines, highest first
graph=$(awk '/module graph, checked/ { on = 1; next }
	on && /^```/ { if (++fence == 2) exit; next }
	on && fence == 1' "$doc")
[ -n "$graph" ] || say "no module graph block (\"module graph, checked\")"
above=""
while read -r dir arrow targets; do
	[ -n "$dir" ] || continue
	[ "$arrow" = "->" ] || { say "bad graph line: $dir $arrow $targets"; continue; }
	dir=${dir%/}
	declared=$(for t in $targets; do echo "${t%/}"; done | grep -v '^(libc)$' | sort -u)
	actual=$(cat "$root/$dir"/*.[ch] 2>/dev/null |
		sed -n 's|^#include "\([a-z_]*\)/[a-z_]*\.h".*|\1|p' |
		grep -vx "$dir" | sort -u)
	[ "$declared" = "$actual" ] ||
		say "$dir/ includes from: $(echo $actual), the graph says: $(echo $declared)"
	for t in $actual; do
		case " $above " in
		*" $t "*) say "$dir/ includes $t/, which is above it: a circle" ;;
		esac
	done
	above="$above $dir"
done <<<"$graph"
# no circle between the files of a directory either: module X (X.c with
# X.h and X_int.h) depends on Y when it includes Y.h, and none may come
# back to itself (as fs/ops.c, now fs/pass.c, and fs/staged.c once
# included each other). A header with no .c (fs/fs.h) is types only: it
# is no module, and what it includes counts as included by each file
# that includes it.
declare -A dep color
stack=()
circles=""
dfs() { # UNIT: depth first; a unit met again on the stack closes a circle
	local u=$1 v i line
	color[$u]=grey
	stack+=("$u")
	for v in ${dep[$u]:-}; do
		case ${color[$v]:-white} in
		grey)
			line=""
			for ((i = ${#stack[@]} - 1; i >= 0; i--)); do
				line="${stack[i]} -> $line"
				[ "${stack[i]}" = "$v" ] && break
			done
			circles+="$dir/: ${line}$v"$'\n'
			;;
		white) dfs "$v" ;;
		esac
	done
	color[$u]=black
	unset 'stack[${#stack[@]}-1]'
}
incs() { # FILE DIR: the headers of DIR it includes, by name
	sed -n 's|^#include "\('"$2"'/\)\{0,1\}\([a-z_]*\)\.h".*|\2|p' "$1"
}
mods() { # FILE DIR [SEEN]: the modules whose headers FILE includes
	local h
	for h in $(incs "$1" "$2"); do
		[ -f "$root/$2/$h.h" ] || continue
		case " ${3:-} " in *" $h "*) continue ;; esac
		if [ -f "$root/$2/${h%_int}.c" ]; then
			echo "${h%_int}"
		else # types only: through it
			mods "$root/$2/$h.h" "$2" "${3:-} $h"
		fi
	done
}
# the fs/ file graph the map declares is the one computed: each module
# once, its line naming the modules it includes, all of them below it
check_fs_graph() {
	local u mod targets want have above=" " seen=" "
	while read -r u _ targets; do
		[ -n "$u" ] || continue
		seen+="$u "
		want=$(tr ' ' '\n' <<<"$targets" | grep . | sort -u | tr '\n' ' ')
		have=$(tr ' ' '\n' <<<"${dep[$u]:-}" | grep . | sort -u | tr '\n' ' ')
		[ -f "$root/fs/$u.c" ] || say "fs/ file graph names $u, but fs/$u.c does not exist"
		[ "$want" = "$have" ] ||
			say "fs/$u includes [${have% }], the fs/ file graph says [${want% }]"
		for t in $targets; do
			case $above in *" $t "*) say "fs/ file graph: $u includes $t, which is above it" ;; esac
		done
		above+="$u "
	done < <(awk '/fs\/ file graph, checked/ { on = 1; next }
		on && /^```/ { if (++fence == 2) exit; next }
		on && fence == 1' "$doc")
	[ "$seen" != " " ] || say "no fs/ file graph block (\"fs/ file graph, checked\")"
	for mod in "$root"/fs/*.c; do
		mod=$(basename "${mod%.c}")
		case $seen in *" $mod "*) ;; *) say "fs/$mod.c is not in the fs/ file graph" ;; esac
	done
}
for dir in common policy audit staging fs cli tools; do
	dep=()
	color=()
	for f in "$root/$dir"/*.[ch]; do
		[ -e "$f" ] || continue
		u=$(basename "${f%.?}")
		u=${u%_int} # X_int.h is X's own internal header
		[ -f "$root/$dir/$u.c" ] || continue # types only
		for h in $(mods "$f" "$dir" | sort -u); do
			[ "$h" != "$u" ] && dep[$u]="${dep[$u]:-} $h"
		done
	done
	for u in $(printf '%s\n' "${!dep[@]}" | sort); do
		[ "${color[$u]:-white}" = white ] && dfs "$u"
	done
	[ "$dir" = fs ] && check_fs_graph
done
while read -r c; do
	[ -n "$c" ] && say "files include each other in a circle: $c"
done <<<"$circles"

# fs/: each function a header declares is defined in its own .c, so each
# header is one module's (the daemon's shared types are in fs/fs.h, which
# declares none); a declaration starts a line with its type
for h in "$root"/fs/*.h; do
	c=${h%.h}
	c=${c%_int}.c
	for s in $(grep -oE '^[a-z][a-z_ 0-9*]*[ *]\**[a-z_0-9]+\(' "$h" |
		grep -vE '^(static|typedef|return)\b' | sed -E 's/\($//' |
		awk '{ print $NF }' | tr -d '*' | sort -u); do
		if [ ! -f "$c" ]; then
			flaw "fs/${h##*/} has no .c, so types only, but declares $s()"
		elif ! grep -qE "^[a-z].*[ *]$s\(" "$c"; then
			flaw "fs/${h##*/} declares $s(), which fs/${c##*/} does not define"
		fi
	done
done
exit $bad
