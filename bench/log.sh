#!/bin/sh
# veles log against git log --oneline over the same 1000 commits, 10,000
# profiles. usage: bench/log.sh BUILD_DIR [COMMITS [PROFILES]]
#
# Prints one line per case, each with the ratio to git log. "warm" is
# the usual state: the ledger listing cache in the git directory is valid
# (add, rm, pull and log all leave it so). "cold" removes that cache
# before each run, as only the first log in a fresh clone sees it. Both
# are measured with the repository's objects loose (as libgit2 leaves
# them) and after `git repack -ad` (as `git gc` leaves them).
set -eu
build=${1:?usage: bench/log.sh BUILD_DIR [COMMITS [PROFILES]]}
build=$(cd "$build" && pwd)
commits=${2:-1000}
profiles=${3:-10000}
populate=$build/bench/log_populate
veles=$build/src/cli/veles
[ -x "$populate" ] || { echo "log.sh: build $populate first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "log.sh: hyperfine not found" >&2; exit 1; }
if [ ! -x "$veles" ]; then
	echo "log.sh: $veles not built; skipping (only the populate step ran)" >&2
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
"$populate" "$repo" "$commits" "$profiles"
cd "$repo"

# mean in ms of one hyperfine JSON export
mean_ms() {
	sed -n 's/.*"mean": *\([0-9.e+-]*\).*/\1/p' "$1" | head -1 |
		awk '{ printf "%.1f", $1 * 1000 }'
}

measure() { # NAME PREPARE
	hyperfine -N --warmup 3 --runs 30 --export-json "$tmp/v.json" \
		--prepare "$2" "$veles log --oneline" >/dev/null 2>&1
	hyperfine -N --warmup 3 --runs 30 --export-json "$tmp/g.json" \
		"git log --oneline" >/dev/null 2>&1
	v=$(mean_ms "$tmp/v.json")
	g=$(mean_ms "$tmp/g.json")
	echo "$v $g" | awk -v name="$1" -v c="$commits" -v p="$profiles" '{
		printf "log, %d versions / %d profiles, %s: veles %s ms, git log --oneline %s ms -> %.1fx%s\n",
		       c, p, name, $1, $2, $1 / $2, name ~ /warm/ ? " (target <= 2x)" : "" }'
}

cache=$(git rev-parse --git-common-dir)/veles/ledger-cache
"$veles" log --oneline >/dev/null
measure "loose objects, warm" "true"
measure "loose objects, cold (first log of a fresh clone)" "rm -f $cache"
git repack -adq
"$veles" log --oneline >/dev/null
measure "packed, warm" "true"
measure "packed, cold (first log of a fresh clone)" "rm -f $cache"
