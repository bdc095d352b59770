#!/bin/bash
# veles check compares like with like: a workload generator's profiles size
# by size, profiles of one type and command, two sides with a location in
# common; and its summary line says what its exit status does.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3

# A workload generator's profiles: 8 sizes (time doubling with each), 5 runs
# at each; the target 5% slower at every size. Pooled, the spread between
# sizes hides the 5%; size by size it is plain.
$py - "$T" <<'PY'
import json, random, sys
def profile(f, seed, sizes=(1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000), cmd="./prog"):
    r = random.Random(seed)
    res = [{"uid": cmd, "type": "time", "subtype": "real", "order": k,
            "amount": 1e-6 * size * f * (1 + r.gauss(0, 0.01)), "structure-unit-size": size}
           for size in sizes for k in range(5)]
    # One size measured once: it cannot be tested and is not counted.
    res.append({"uid": cmd, "type": "time", "subtype": "real", "order": 0,
                "amount": 0.5 * f, "structure-unit-size": 500000})
    return {"header": {"type": "time", "cmd": cmd, "workload": "gen", "units": {"time": "s"}},
            "collector_info": {"name": "time"}, "global": {"resources": res}}
d = sys.argv[1]
json.dump(profile(1.0, 1), open(d + "/gb.perf", "w"))
json.dump(profile(1.05, 2), open(d + "/gt.perf", "w"))
json.dump(profile(1.0, 3), open(d + "/gsame.perf", "w"))
json.dump(profile(1.0, 4, cmd="../jb_b"), open(d + "/other-cmd.perf", "w"))
mem = {"header": {"type": "memory", "cmd": "./prog", "units": {"memory": "B"}},
       "collector_info": {"name": "memory"},
       "global": {"resources": [{"uid": "main", "type": "memory", "subtype": "malloc",
                                 "amount": 64}]}}
json.dump(mem, open(d + "/mem.perf", "w"))
PY
veles check profiles "$T/gb.perf" "$T/gt.perf" >"$T/out"
[ $? -eq 1 ] || { cat "$T/out" >&2; fail "a 5% slowdown at every size must fail the check"; }
has "$T/out" "^     Degradation +\+[45]\.[0-9]% \[\+[0-9.]+%, \+[0-9.]+%\] +p=[0-9.e-]+ .*\(40 vs 40 values, 8 sizes, stat\)$"
has "$T/out" "^1 degradation, 0 maybe degradations, 0 optimizations, 0 other results; 1 fails the check \(--fail-on degradation\)$"
hasnt "$T/out" "^ +size +n"
# --verbose: the per-size table, the size measured once among them.
veles check profiles --verbose "$T/gb.perf" "$T/gt.perf" >"$T/out"
has "$T/out" "^ +size +n +baseline +target +change +p$"
[ "$(grep -cE '^ +[0-9]+ +5/5 +[0-9.e-]+ +[0-9.e-]+ +\+[0-9.]+% ' "$T/out")" -eq 8 ] ||
	fail "eight sizes, each 5 vs 5 and slower"
has "$T/out" "^ +500000 +1/1 .*too few values on a side: not counted"
veles check profiles --format json "$T/gb.perf" "$T/gt.perf" >"$T/j.json"
$py - "$T/j.json" <<'PY' || fail "json sizes"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
sizes = r["sizes"]
assert len(sizes) == 9 and [z["counted"] for z in sizes].count(True) == 8, sizes
assert all(z["target"] > z["baseline"] and z["p"] < 0.05 for z in sizes if z["counted"]), sizes
assert r["n_baseline"] == 40 and 0.03 < r["rel_change"] < 0.07, r
PY
# The same program twice: no change at any size, and the check passes.
ok veles check profiles "$T/gb.perf" "$T/gsame.perf"
has "$T/out" "NoChange .*8 sizes"
has "$T/out" "; none fails the check"
# aat: the ratio of the means, size by size, against its threshold.
veles check profiles --method aat --aat-threshold 1.03 "$T/gb.perf" "$T/gt.perf" >"$T/out"
[ $? -eq 1 ] || fail "aat size by size"
has "$T/out" "Degradation .*8 sizes, aat\)"

# Another command, another type: an error, not a comparison of nothing.
fails 2 veles check profiles "$T/gb.perf" "$T/other-cmd.perf"
has "$T/err" "^veles: gb\.perf and other-cmd\.perf measured different commands: \./prog and \.\./jb_b \(--force compares them anyway\)$"
fails 2 veles check profiles "$T/gb.perf" "$T/mem.perf"
has "$T/err" "^veles: gb\.perf is a time profile of \./prog, mem\.perf a memory profile of \./prog"
# Forced, the two commands share no location: still an error that says so.
fails 2 veles check profiles --force "$T/gb.perf" "$T/other-cmd.perf"
has "$T/err" "^veles: gb\.perf and other-cmd\.perf share no location: the baseline has \./prog \[real\], the target \.\./jb_b \[real\]$"

# In a history: check head on a version without a profile is an error.
cp "$T/gb.perf" .veles/jobs/prog-time-1.perf
ok veles add -q prog-time-1.perf
commit_change "slower"
fails 2 veles check head
has "$T/err" "no profile registered to version"
cp "$T/gt.perf" .veles/jobs/prog-time-2.perf
ok veles add -q prog-time-2.perf
veles check head >"$T/out"
[ $? -eq 1 ] || fail "check head: size by size"
has "$T/out" "8 sizes"
echo ok
