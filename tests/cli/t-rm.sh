#!/bin/bash
# veles rm: registered profiles by index, name and id; pending ones.
. "$(dirname "$0")/lib.sh"
new_git_project p
for i in 1 2 3; do
	veles collect time -r 1 -q --workload "w$i" -- true 2>/dev/null || fail collect
done
ok veles add -q 0@p 1@p
ok veles status
has "$T/out" "Profiles of this version \(2\)"

ok veles rm 0
has "$T/out" "^Removed profile true-time-w1"
ok veles status
has "$T/out" "Profiles of this version \(1\)"
hasnt "$T/out" "w1"

name=$(git ls-tree -r --name-only refs/veles/ledger | xargs -n1 basename)
ok veles rm "$name"
ok veles status
has "$T/out" "Profiles of this version \(0\)"

ok veles rm 0@p
has "$T/out" "Removed pending profile"
[ "$(npending)" -eq 0 ] || fail "pending not deleted"

# All or nothing: one bad name removes none.
veles collect time -r 1 -q -- true 2>/dev/null
ok veles add -q 0@p
fails 1 veles rm 0@i 4@i
ok veles status
has "$T/out" "Profiles of this version \(1\)"
echo '{}' >"$T/other.perf"
fails 1 veles rm "$T/other.perf"
[ -f "$T/other.perf" ] || fail "rm deleted a file outside the project"
fails 2 veles rm
# The ledger keeps history: the removal is a commit of its own.
[ "$(git rev-list refs/veles/ledger | wc -l)" -ge 4 ] || fail "ledger history"
