#!/bin/bash
# veles check --collect-missing: the parent has no profile, so check
# measures it there (a temporary worktree, built by execute.pre_run) with
# the target profile's own recipe, registers it, and finds the slowdown.
. "$(dirname "$0")/lib.sh"
new_git_project p
cp "$VELES_SRCDIR/examples/list_search.c" .
git add list_search.c && git commit -qm "fast search" || fail commit
parent=$(git rev-parse HEAD)
sed -i 's/^#define SLOW 0$/#define SLOW 1/' list_search.c
git commit -qam "slow search" || fail commit
cat >>.veles/config.yml <<'YML'
execute:
  pre_run:
    - cc -O2 -o prog list_search.c
YML
cc -O2 -o prog list_search.c || fail cc
veles collect time -r 10 -q -o suppress -- ./prog 4000 4000 2>/dev/null || fail collect
ok veles postprocess -o "$T/n.perf" 0@p filter --where 'amount>=0'
rm .veles/jobs/*.perf
ok veles add -q "$T/n.perf"

# Without the option: no baseline.
ok veles check head
has "$T/out" "1 profile had no baseline"

veles check head --collect-missing >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { cat "$T/out" "$T/err" >&2; fail "the slowdown should be found"; }
has "$T/err" "^check: collecting n\.perf on ${parent:0:7}$"
# Judged on the most stable metric both have: cpu where the kernel counts it.
has "$T/out" "\./prog \[(cpu|real)\]"
has "$T/out" "Degradation"
hasnt "$T/out" "had no baseline"
# The parent's profile is registered, made the same way (collector
# parameters and postprocessors included), with the parent as its origin.
ok veles log --format json
python3 - "$T/out" "$parent" <<'PY' || fail "registered with the parent"
import json, sys
log = {v["id"]: v for v in json.load(open(sys.argv[1]))}
assert len(log[sys.argv[2]]["profiles"]) == 1, log[sys.argv[2]]
PY
ok veles show 0@i raw -m "$parent"
python3 - "$T/out" "$parent" <<'PY' || fail "the recipe"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["origin"] == sys.argv[2]
assert p["collector_info"]["params"]["repeat"] == 10, p["collector_info"]
assert [r["name"] for r in p["postprocessors"]] == ["filter"], p["postprocessors"]
assert p["postprocessors"][0]["params"]["where"] == ["amount>=0"], p["postprocessors"]
assert p["header"]["args"] == "4000 4000"
PY
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
# Found now without collecting again.
veles check head --collect-missing >"$T/out" 2>"$T/err"
hasnt "$T/err" "collecting"

# A build that fails is an error (exit 2), and nothing is registered.
git commit -qm "empty" --allow-empty
veles collect time -r 3 -q -o suppress -- ./prog 10 10 2>/dev/null && ok veles add -q 0@p
sed -i 's/cc -O2 -o prog list_search.c/false/' .veles/config.yml
fails 2 veles check head --collect-missing -q
has "$T/err" "pre_run 'false' exited with status 1"
echo ok
