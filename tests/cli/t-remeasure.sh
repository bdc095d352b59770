#!/bin/bash
# check head --remeasure: the version and its parent built in temporary
# worktrees and measured now, in interleaved rounds in random order; a
# planted 3x slowdown is found and identical code is not flagged, judged
# on what cannot drift (instruction counts).
. "$(dirname "$0")/lib.sh"
new_git_project p

# A stand-in program that says which version ran: the log shows the
# rounds' order.
log="$T/order.log"
printf '#!/bin/sh\necho old >>%s\n' "$log" >prog && chmod +x prog
cat >.veles/config.yml <<'Y'
cmds: [./prog]
collectors:
  - name: time
Y
git add prog && git commit -qm "old" || fail commit
printf '#!/bin/sh\necho new >>%s\n' "$log" >prog
git commit -qam "new" || fail commit
head=$(git rev-parse HEAD)
parent=$(git rev-parse HEAD~1)
veles check head --remeasure --max-rounds 12 --on real --seed 7 -q >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/out" "$T/err" >&2; fail "remeasure"; }
# A warm-up round and 12 counted: in each, both versions once; over them,
# both orders.
python3 - "$log" <<'PY' || fail "interleaved order"
import sys
lines = open(sys.argv[1]).read().split()
assert len(lines) == 26, lines
rounds = [tuple(lines[i:i + 2]) for i in range(0, 26, 2)]
assert all(sorted(r) == ["new", "old"] for r in rounds), rounds
assert ("old", "new") in rounds and ("new", "old") in rounds, rounds
PY
has "$T/err" "^check: \./prog · time on real: 12 rounds, both versions once a round in random order; stopped: --max-rounds reached$"
has "$T/err" "^check: pending profiles \.veles/jobs/prog-time-.*\.perf \(${parent:0:7}\) and \.veles/jobs/prog-time-.*\.perf \(${head:0:7}\)"
has "$T/out" "\./prog \[real\]"
has "$T/out" "\(12 vs 12 values, rmit\)"
# The rounds of each side are a pending profile of that version.
[ "$(npending)" -eq 2 ] || fail "two pending profiles"
python3 - "$parent" "$head" $(for f in .veles/jobs/*.perf; do json_of "$f"; done) <<'PY' ||
	fail "pending profiles"
import json, sys
origins = set()
for f in sys.argv[3:]:
    p = json.load(open(f))
    origins.add(p["origin"])
    real = [r for r in p["global"]["resources"] if r["subtype"] == "real"]
    assert sorted(r["order"] for r in real) == list(range(1, 13)), real
    assert p["header"]["interleaved"]["rounds"] == 12
    assert p["header"]["interleaved"]["against"] in sys.argv[1:3]
    assert p["header"]["environment"]["host"]
assert origins == set(sys.argv[1:3]), origins
PY
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
[ -z "$(git branch --list 'veles*')" ] || fail "a branch was left"
[ "$(git rev-parse HEAD)" = "$head" ] || fail "HEAD moved"

fails 2 veles check profiles --remeasure 0@p 1@p
fails 2 veles check head HEAD~2 --remeasure -q
has "$T/err" "has no parent"
fails 2 veles check head --remeasure --on wall
fails 2 veles check head --remeasure --max-rounds 0
fails 2 veles check head --remeasure --method aat
mv .veles/config.yml "$T/config.yml"
fails 2 veles check head --remeasure -q
has "$T/err" "no jobs"
mv "$T/config.yml" .veles/config.yml

# A real program and a planted 3x slowdown, judged on instruction counts:
# the PMU's, or else cachegrind's, which are exact.
if ! command -v valgrind >/dev/null && ! perf stat -e instructions:u true >/dev/null 2>&1; then
	echo "neither a PMU nor valgrind to count instructions" >&2
	exit 77
fi
cat >work.c <<'C'
#include <stdlib.h>
#ifndef TIMES
#define TIMES 1
#endif
int main(int argc, char **argv) {
	volatile long x = 0;
	for (int t = 0; t < TIMES; t++)
		for (long i = 0; i < atol(argv[1]); i++) x += i;
	return 0;
}
C
cat >.veles/config.yml <<'Y'
cmds: [./work]
args: ["50000"]
collectors:
  - name: time
    params: {metric: instructions}
execute:
  pre_run: ["cc -O1 -o work work.c"]
Y
echo work >.gitignore
git add work.c .gitignore && git commit -qm "work" || fail commit
sed -i 's/^#define TIMES 1$/#define TIMES 3/' work.c
git commit -qam "three times the work" || fail commit
veles check head --remeasure -q >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { cat "$T/out" "$T/err" >&2; fail "a 3x slowdown must exit 1"; }
has "$T/out" "\./work \[instructions\]"
has "$T/out" "(Total|Severe)Degradation +\+(1[89][0-9]|2[01][0-9])\.[0-9]%"
has "$T/err" "on instructions: [0-9]+ rounds, .*stopped: sure$"
# Identical code (a commit that only adds a text file): not flagged.
echo notes >NOTES && git add NOTES && git commit -qm "notes only" || fail commit
ok veles check head --remeasure -q
has "$T/out" "NoChange"
hasnt "$T/out" "Degradation|Optimization"
has "$T/err" "stopped: sure$"
true
