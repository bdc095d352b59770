#!/bin/bash
# veles run matrix killed with SIGKILL strands nothing: the next run puts
# the whole profiles a dead batch left in place and deletes cut ones,
# removes the temporary directories whose owner is gone (and no other),
# and prunes the worktrees and branches of a run killed on another
# version. All temporary directories are made in $TMPDIR.
. "$(dirname "$0")/lib.sh"
new_git_project p
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
{
	echo "cmds: [/bin/true]"
	echo "workloads:"
	for i in $(seq 1 150); do echo "  - w$i"; done
	echo "collectors:"
	echo "  - name: time"
	echo "    params: {repeat: 1}"
} >.veles/config.yml

# stranded: the veles temporary files and directories a dead owner left.
stranded() {
	local n
	n=$(find .veles/jobs -name '*.perf.tmp.*' | wc -l)
	n=$((n + $(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'veles-*' ! -name 'veles-keep-*' | wc -l)))
	n=$((n + $(git worktree list | grep -c veles-run-)))
	n=$((n + $(git branch --list 'veles-run-*' | wc -l)))
	n=$((n + $(find .git -name '*.lock' | wc -l)))
	echo "$n"
}

# A job that kills veles itself, on HEAD in a worktree, after a job
# whose profile waits in the batch: the worktree, its directory, and the
# finished profile's temporary are left, as any SIGKILL would leave them.
printf '#!/bin/sh\nkill -9 $PPID\n' >"$T/bin/killer"
chmod +x "$T/bin/killer"
veles run job --cmd /bin/true --cmd "$T/bin/killer" --workload left --collector time \
	--collector-params "repeat: 1" -m HEAD >/dev/null 2>&1
[ $? -eq 137 ] || fail "the killer job did not kill veles"
git worktree list >"$T/wt"
has "$T/wt" "veles-run-"
ls .veles/jobs >"$T/jobs"
has "$T/jobs" "^true-time-left-.*\.perf\.tmp\.run-"
# ... and by hand: a cut temporary, directories of dead, live and no owners.
head -c 100 .veles/jobs/true-time-left-*.tmp.* >.veles/jobs/cut.perf.tmp.run-BBBBBB
mkdir "$TMPDIR/veles-trace-CCCCCC" "$TMPDIR/veles-keep-DDDDDD" "$TMPDIR/veles-trace-EEEEEE"
touch "$TMPDIR/veles-trace-CCCCCC/.owner" "$TMPDIR/veles-keep-DDDDDD/x" "$TMPDIR/veles-trace-EEEEEE/.owner"
git branch veles-run-GGGGGG
# The holder is the process that keeps the lock: killing it frees it.
(exec 9<>"$TMPDIR/veles-trace-EEEEEE/.owner" && flock 9 && exec sleep 600) >/dev/null 2>&1 &
holder=$!
trap 'kill $holder 2>/dev/null; rm -rf "$T"' EXIT
# Held before the run looks, however slowly the holder starts.
while flock -n "$TMPDIR/veles-trace-EEEEEE/.owner" true; do sleep 0.05; done

ok veles run matrix -q
ls .veles/jobs >"$T/jobs"
has "$T/jobs" "^true-time-left-[0-9-]*\.perf$"
hasnt "$T/jobs" "\.tmp\."
ok veles show "$(cd .veles/jobs && ls true-time-left-*.perf)" raw
[ ! -e "$TMPDIR/veles-trace-CCCCCC" ] || fail "a dead owner's directory stayed"
[ -e "$TMPDIR/veles-keep-DDDDDD/x" ] || fail "a directory without an owner file went"
[ -e "$TMPDIR/veles-trace-EEEEEE" ] || fail "a live owner's directory went"
ls "$TMPDIR" >"$T/tmps"
hasnt "$T/tmps" "veles-run-"
git worktree list >"$T/wt"
hasnt "$T/wt" "veles-run-"
git branch --list 'veles-run-*' >"$T/br"
[ ! -s "$T/br" ] || fail "branches left: $(cat "$T/br")"
kill "$holder"
wait "$holder" 2>/dev/null
rm -rf "$TMPDIR/veles-trace-EEEEEE"

# SIGKILL at random moments, on the working tree and on HEAD in a
# worktree; profiles are whole or absent, the next run leaves nothing.
for i in $(seq 1 20); do
	# The binary itself, not the shell function: $! is then veles.
	if [ $((i % 2)) -eq 0 ]; then
		"$VELES" run matrix -q -m HEAD >/dev/null 2>&1 &
	else
		"$VELES" run matrix -q >/dev/null 2>&1 &
	fi
	pid=$!
	sleep "0.$((RANDOM % 6 + 1))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
# whole FILE...: how many of the files hold a whole profile (in either
# form: veles reads it).
whole() {
	local n=0 f
	for f in "$@"; do
		[ -e "$f" ] && "$VELES" export -o "$T/whole.json" "$f" >/dev/null 2>&1 && n=$((n + 1))
	done
	echo "$n"
}
# The whole ones among the temporaries the kills left: all come back.
whole=$(whole .veles/jobs/*.perf.tmp.*)
before=$(npending)
ok veles run job --cmd /bin/true --workload last --collector time --collector-params "repeat: 1" -q
[ "$(npending)" -eq $((before + whole + 1)) ] ||
	fail "pending $(npending), want $before + $whole recovered + 1"
[ "$(stranded)" -eq 0 ] || fail "stranded: $(find .veles/jobs "$TMPDIR" -maxdepth 1 -name '*.tmp.*' -o -name 'veles-*'; find .git -name '*.lock'; git worktree list; git branch)"
ok veles run matrix -q -m HEAD
[ "$(stranded)" -eq 0 ] || fail "stranded after a run on HEAD"
git worktree prune -n -v >"$T/prune" 2>&1
[ ! -s "$T/prune" ] || fail "git worktree prune finds: $(cat "$T/prune")"
[ "$(whole .veles/jobs/*.perf)" -eq "$(npending)" ] || fail "a pending profile is not whole"

# status shows what a killed run finished, with no run after it: the
# whole temporary is put in place before the pending profiles are listed.
rm -f .veles/jobs/*.perf
veles run job --cmd /bin/true --cmd "$T/bin/killer" --workload status --collector time \
	--collector-params "repeat: 1" >/dev/null 2>&1
[ $? -eq 137 ] || fail "the killer job did not kill veles"
ls .veles/jobs >"$T/jobs"
has "$T/jobs" "^true-time-status-.*\.perf\.tmp\.run-"
ok veles status
has "$T/out" "true-time-status-[0-9-]*\.perf"
ls .veles/jobs >"$T/jobs"
hasnt "$T/jobs" "\.tmp\."
[ "$(npending)" -eq 1 ] || fail "pending $(npending), want the one the killed run finished"
