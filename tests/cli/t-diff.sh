#!/bin/bash
# veles diff: two profiles side by side, each aggregation, grouping,
# filter, sort and format, and bad input.
. "$(dirname "$0")/lib.sh"
new_git_project p
cp "$VELES_SRCDIR/tests/data/profiles/trace.perf" .veles/jobs/a.perf
# b: every amount doubled, one uid renamed (gone from a, new in b).
python3 - "$VELES_SRCDIR/tests/data/profiles/trace.perf" .veles/jobs/b.perf <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for v in p["resources"].values():
    v["amount"] = [2 * x for x in v["amount"]]
for k, t in p["resource_type_map"].items():
    if t["uid"].startswith("SLList_init"):
        t["uid"] = "SLList_new(void)"
json.dump(p, open(sys.argv[2], "w"))
PY

ok veles diff a.perf b.perf
has "$T/out" "^location +baseline +target +change$"
has "$T/out" "^SLList_insert\(SLList\*, int\) \[time delta\] +[0-9.]+ +[0-9.]+ +\+100\.0%$"
has "$T/out" "^SLList_new\(void\) \[time delta\] +- +[0-9.]+ +new$"
has "$T/out" "^SLList_init\(SLList\*\) \[time delta\] +[0-9.]+ +- +gone$"
has "$T/out" "^\(a\.perf -> b\.perf\)$"

veles diff a.perf b.perf --format json --aggregate sum >"$T/j.json" || fail json
python3 - "$T/j.json" "$VELES_SRCDIR/tests/data/profiles/trace.perf" <<'PY' || fail "sums"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
p = json.load(open(sys.argv[2]))
want = {}
for k, v in p["resources"].items():
    uid = p["resource_type_map"][k]["uid"]
    want[uid] = want.get(uid, 0) + sum(v["amount"])
r = rows["SLList_insert(SLList*, int) [time delta]"]
assert abs(r["baseline"] - want["SLList_insert(SLList*, int)"]) < 1e-6 * want["SLList_insert(SLList*, int)"], r
assert abs(r["rel_change"] - 1.0) < 1e-9
assert rows["SLList_new(void) [time delta]"]["baseline"] is None
PY
ok veles diff a.perf b.perf --aggregate count --group-by subtype
has "$T/out" "^subtype +baseline +target +change$"
has "$T/out" "^time delta +[0-9]+ +[0-9]+ +\+0\.0%$"
ok veles diff a.perf b.perf --filter 'insert|search' --format csv
has "$T/out" "^name,baseline,target,change$"
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "filter"
ok veles diff a.perf b.perf --format markdown -n 1 --sort-by name
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "--top"
has "$T/out" "^\| SLList_destroy"
ok veles diff a.perf b.perf table --sort-by increase
ok veles diff --help
has "$T/out" "--aggregate"

fails 2 veles diff a.perf
fails 2 veles diff a.perf b.perf flamegraph
fails 2 veles diff a.perf b.perf --aggregate mode
fails 2 veles diff a.perf b.perf --filter '('
fails 2 veles diff a.perf b.perf --bogus
fails 1 veles diff a.perf nosuch.perf
echo ok
