#!/bin/bash
# The store under faults: adds and rms killed with SIGKILL at random
# moments lose nothing and leave nothing behind once the next writer ran
# (it takes a dead writer's ledger lock over at once, test_store.c checks
# that it needs no wait, and removes libgit2's temporary objects), and
# adds beside a looping `git gc`, and `git gc --prune=now`, all land with
# the ledger whole. bench/faults.sh runs the same at scale.
. "$(dirname "$0")/lib.sh"
new_git_project p
ok veles collect time -r 1 -q --workload seed -- true
seed=$(newest)
# Its JSON, whose workload each copy changes (add reads either form).
mv "$(json_of "$seed")" "$T/seed.perf"
rm "$seed"

pending() {
	for n in "$@"; do
		sed "s/\"seed\"/\"$n\"/" "$T/seed.perf" >".veles/jobs/$n.perf"
	done
}
registered() { git ls-tree -r --name-only refs/veles/ledger | sed 's|.*/||'; }
fsck_clean() {
	git fsck --no-dangling >"$T/fsck" 2>&1 || fail "fsck failed: $(cat "$T/fsck")"
	hasnt "$T/fsck" "error|missing|broken|invalid"
}
# kill_at CMD...: the binary itself in the background ($! is veles),
# SIGKILL after 5-100 ms.
kill_at() {
	"$VELES" "$@" >/dev/null 2>&1 &
	local pid=$!
	sleep "$(printf '0.%03d' $((RANDOM % 96 + 5)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# Killed adds: each profile is registered or still pending, never gone.
for i in $(seq 1 20); do
	pending "a$i" "b$i"
	kill_at add -q "a$i.perf"
	ok veles add -q "b$i.perf"
done
registered >"$T/reg"
for i in $(seq 1 20); do
	grep -qx "a$i.perf" "$T/reg" || [ -e ".veles/jobs/a$i.perf" ] || fail "a$i lost"
	grep -qx "b$i.perf" "$T/reg" || fail "b$i not registered"
done
[ ! -e .git/refs/veles/ledger.lock ] || fail "a lock left"
left=$(find .git -name '*.lock' -o -name 'tmp_object_git2_*' -o -name '*.tmp.*')
[ -z "$left" ] || fail "left by killed adds: $left"
fsck_clean

# Killed rms: the profiles not named stay, the ledger reads.
for i in $(seq 1 20); do
	kill_at rm -q "b$i.perf"
	ok veles status
done
registered >"$T/reg"
for i in $(seq 1 20); do
	grep -qx "a$i.perf" "$T/reg" || [ -e ".veles/jobs/a$i.perf" ] || fail "a$i lost by an rm"
done
ok veles log
# The next write takes over a lock a killed rm left, and leaves none.
pending after
ok veles add -q after.perf
left=$(find .git -name '*.lock' -o -name 'tmp_object_git2_*' -o -name '*.tmp.*')
[ -z "$left" ] || fail "left by killed rms: $left"
fsck_clean

# Beside a looping git gc, then git gc --prune=now: every add lands.
for gc in "" --prune=now; do
	for i in $(seq 1 10); do pending "g$i$gc"; done
	# Stopped by a file, not a signal: the wait returns once the last
	# gc has ended, so nothing below runs beside one.
	rm -f "$T/stop"
	(while [ ! -e "$T/stop" ]; do git gc -q $gc >/dev/null 2>&1; done) &
	looper=$!
	for i in $(seq 1 10); do
		veles add -q "g$i$gc.perf" || { touch "$T/stop"; wait "$looper"; fail "add $i beside git gc $gc"; }
	done
	touch "$T/stop"
	wait "$looper"
	registered >"$T/reg"
	for i in $(seq 1 10); do grep -qx "g$i$gc.perf" "$T/reg" || fail "g$i$gc lost"; done
	ok veles log
	fsck_clean
done
