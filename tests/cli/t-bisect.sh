#!/bin/bash
# veles bisect: finds the commit that planted a slowdown in a 20-commit
# history, building each version in a temporary worktree.
. "$(dirname "$0")/lib.sh"
new_git_project p
cp "$VELES_SRCDIR/examples/list_search.c" .
git add list_search.c && git commit -qm "list search" || fail commit
good=$(git rev-parse HEAD)
for v in $(seq 1 20); do
	if [ "$v" -eq 13 ]; then
		sed -i 's/^#define SLOW 0$/#define SLOW 1/' list_search.c
		grep -q '^#define SLOW 1$' list_search.c || fail "planting the slowdown"
		git commit -qam "version $v: count the list on every lookup" || fail commit
		planted=$(git rev-parse HEAD)
	else
		commit_change "version $v"
	fi
done
head_before=$(git rev-parse HEAD)
status_before=$(git status --porcelain)

veles bisect --good "$good" --bad HEAD --build 'cc -O2 -o prog list_search.c' -r 5 \
	-- ./prog 4000 4000 >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err" >&2; fail "bisect"; }
has "$T/out" "^$planted is the first slow commit: version 13"
has "$T/out" "Degradation \+[0-9]+\.[0-9]% against ${good:0:7} \((cpu|user) time, [0-9]+ and [0-9]+ runs, interleaved\)"
has "$T/err" "^bisect: measuring good .* and bad .*, interleaved"
# The user's tree and branch are as they were; no worktree is left.
[ "$(git rev-parse HEAD)" = "$head_before" ] || fail "HEAD moved"
[ "$(git status --porcelain)" = "$status_before" ] || fail "the working tree changed"
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
[ -z "$(git branch --list 'veles*')" ] || fail "a branch was left"

# --no-interleave: good and bad measured once at the start and each
# candidate against those numbers, as bisect did before.
veles bisect --no-interleave --good "$good" --bad HEAD --build 'cc -O2 -o prog list_search.c' \
	-r 5 -q -- ./prog 4000 4000 >"$T/out" 2>"$T/err" ||
	{ cat "$T/out" "$T/err" >&2; fail "bisect --no-interleave"; }
has "$T/out" "^$planted is the first slow commit: version 13"
has "$T/out" "Degradation \+[0-9]+\.[0-9]% against ${good:0:7} \((cpu|user) time, [0-9]+ and [0-9]+ runs\)$"

# --job: each version measured by a collector job, as `run job` runs it;
# the values of the location [user] decide, and no profile is left pending.
veles bisect --good "$good" --bad HEAD --build 'cc -O2 -o prog list_search.c' -r 5 \
	--job 'time -r 5 -o suppress -- ./prog 4000 4000' >"$T/out" 2>"$T/err" ||
	{ cat "$T/out" "$T/err" >&2; fail "bisect --job"; }
has "$T/out" "^$planted is the first slow commit: version 13"
has "$T/out" "Degradation \+[0-9]+\.[0-9]% against ${good:0:7} \(\./prog \[(cpu|user)\], [0-9]+ and [0-9]+ values\)"
[ "$(npending)" -eq 0 ] || fail "bisect --job left pending profiles"
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
fails 2 veles bisect --good "$good" --bad HEAD -q --build 'cc -O2 -o prog list_search.c' \
	--job 'time -r 3 -o suppress -- ./prog 10 10' --location nosuch
has "$T/err" "no location of the job's profile matches 'nosuch' \((\./prog \[cpu\], )?\./prog \[real\], \./prog \[sys\], \./prog \[user\]\)"
fails 2 veles bisect --good HEAD~1 --bad HEAD --job 'time -r 5'
fails 2 veles bisect --good HEAD~1 --bad HEAD --job 'time -- ./prog' -- ./prog
fails 2 veles bisect --good HEAD~1 --bad HEAD --location user -- ./prog

# Good and bad alike: nothing to bisect, or (when a busy machine makes the
# two batches differ) no version between them can be placed: exit 1 both
# ways, said on stdout. A loaded host was seen to slow a batch of the same
# code by a quarter; only a slowdown of half or more counts here.
veles bisect --good HEAD~3 --bad HEAD --build 'cc -O2 -o prog list_search.c' -r 5 \
	--max-runs 10 --min-effect 0.5 -q -- ./prog 4000 4000 >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "same speed should exit 1"
has "$T/out" "is not slower than|cannot tell whether"

fails 2 veles bisect --good HEAD~1 -- ./prog
fails 2 veles bisect --good HEAD~1 --bad HEAD
fails 2 veles bisect --good nosuch --bad HEAD -- ./prog
fails 2 veles bisect --good HEAD --bad HEAD~1 -q -- ./prog
fails 2 veles bisect --good HEAD --bad main -q --build true -- true
has "$T/err" "--good and --bad are the same version"
fails 2 veles bisect --good HEAD~1 --bad HEAD --on wall -- ./prog
fails 2 veles bisect --good HEAD~2 --bad HEAD -q --build false -- ./prog
cat "$T/out" >&2; echo ok
