#!/bin/bash
# Concurrent adds all land; a killed add leaves a readable, consistent store.
. "$(dirname "$0")/lib.sh"
new_git_project p
for i in $(seq 1 8); do
	veles collect time -r 1 -q --workload "w$i" -- true 2>/dev/null || fail collect
done
mkdir "$T/spare" && cp .veles/jobs/*.perf "$T/spare/"
pids=""
for f in .veles/jobs/*.perf; do
	veles add -q "$(basename "$f")" 2>>"$T/adderr" &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a concurrent add failed: $(cat "$T/adderr")"; done
ok veles status
has "$T/out" "Profiles of this version \(8\)"
[ "$(npending)" -eq 0 ] || fail "pending left"

# Kill adds at random points; afterwards the store must still work and
# every profile it lists must be readable.
mkdir "$T/many"
spare=$(json_of "$T/spare/$(ls "$T/spare" | head -1)")
for i in $(seq 1 40); do
	sed "s/\"w[0-9]*\"/\"k$i\"/" "$spare" >"$T/many/k$i.perf"
done
for round in 1 2 3 4 5 6; do
	(for f in "$T"/many/*.perf; do veles add -q -f -k "$f" 2>/dev/null; done) &
	loop=$!
	sleep "0.$((RANDOM % 5 + 1))"
	pkill -9 -P "$loop" veles 2>/dev/null
	kill -9 "$loop" 2>/dev/null
	wait "$loop" 2>/dev/null
done
ok veles status
count=$(grep -c '@i' "$T/out")
[ "$count" -ge 8 ] || fail "profiles lost: $count"
for i in $(seq 0 $((count - 1))); do
	ok veles show "$i@i" raw
done
git fsck --no-dangling refs/veles/ledger >"$T/fsck" 2>&1 || { cat "$T/fsck"; fail "fsck failed"; }
grep -Eq 'error|missing|broken' "$T/fsck" && fail "fsck complained: $(cat "$T/fsck")"
# A later add still works (no stale lock left in the way).
ok veles add -q -f -k "$T/many/k1.perf"
