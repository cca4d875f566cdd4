#!/bin/bash
# The module graph holds: the libraries hold no command code, include no
# header of cli/, call no getopt, and each calls exactly the libraries it
# is meant to (docs/cli.md), ours and the outside ones. Run by meson (suite unit) as
#   layout.sh SRCDIR NAME=LIBRARY.a...
set -uo pipefail
src=$1
shift
fail=0
bad() {
	echo "layout: $*" >&2
	fail=1
}

# what each library may call; anything else it calls is a new edge of
# the graph: change docs/cli.md, README's Layout and this table with it
declare -A want=(
	[common]=""
	[policy]="common"
	[audit]="common"
	[staging]="common"
	[fs]="audit common policy staging"
)
# and the outside libraries each calls, by symbol prefix: its
# dependencies in meson.build (libm aside) are exactly these
declare -A ext=(
	[common]=""
	[policy]="yaml"
	[audit]="pthread sqlite3"
	[staging]="git"
	[fs]="fuse pthread seccomp"
)
declare -A lib def
for a in "$@"; do
	lib[${a%%=*}]=${a#*=}
done
for n in "${!want[@]}"; do
	[ -n "${lib[$n]:-}" ] || bad "no library '$n' given"
done
[ $fail = 0 ] || exit 1

# 1. no library source includes a header of cli/
for d in common policy audit staging fs; do
	hits=$(grep -rlE '#include "(cli/|\.\./cli/)' "$src/$d" 2>/dev/null)
	[ -z "$hits" ] || bad "$d includes a header of cli/: $hits"
done

# 2. no command code in a library: no cmd_*, no getopt
for n in "${!lib[@]}"; do
	syms=$(nm --defined-only "${lib[$n]}" 2>/dev/null | awk '$2 ~ /[TD]/ {print $3}')
	[ -n "$syms" ] || bad "$n: no symbols in ${lib[$n]}"
	for s in $syms; do
		def[$s]=$n
	done
	c=$(grep -E '^cmd_' <<<"$syms")
	[ -z "$c" ] || bad "$n defines commands:" $c
	g=$(nm --undefined-only "${lib[$n]}" | grep -wE 'getopt_long|getopt|optind')
	[ -z "$g" ] || bad "$n uses getopt: $g"
done

# 3. each library calls exactly the libraries of its row
for n in "${!lib[@]}"; do
	used=$(nm --undefined-only "${lib[$n]}" | awk '{print $2}' | sort -u |
		while read -r s; do
			[ -n "$s" ] || continue
			o=${def[$s]:-}
			[ -n "$o" ] && [ "$o" != "$n" ] && echo "$o"
		done | sort -u | tr '\n' ' ')
	exp=$(tr ' ' '\n' <<<"${want[$n]}" | grep . | sort -u | tr '\n' ' ')
	[ "$used" = "$exp" ] || bad "$n calls [${used% }], the graph says [${exp% }]"
done
# 4. and exactly the outside libraries of its row
for n in "${!lib[@]}"; do
	used=$(nm --undefined-only "${lib[$n]}" | awk '{print $2}' |
		grep -oE '^(yaml|sqlite3|git|fuse|seccomp|pthread)_' |
		sed 's/_$//' | sort -u | tr '\n' ' ')
	exp=$(tr ' ' '\n' <<<"${ext[$n]}" | grep . | sort -u | tr '\n' ' ')
	[ "$used" = "$exp" ] ||
		bad "$n calls [${used% }] outside, meson.build says [${exp% }]"
done
[ $fail = 0 ] && echo "layout: ok (${#lib[@]} libraries)"
exit $fail
