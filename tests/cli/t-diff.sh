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

# A differential flame graph of two memory profiles with call stacks.
python3 - .veles/jobs <<'PY'
import json, sys
def profile(sizes):
    stacks = {"parse": ["malloc", "parse", "main", "_start"],
              "render": ["malloc", "render", "main", "_start"],
              "cache": ["malloc", "cache_put", "render", "main", "_start"]}
    p = {"header": {"type": "memory", "units": {"memory": "B"}}, "resources": {},
         "resource_type_map": {}}
    for uid, n in sizes.items():
        key = uid + "#0"
        p["resource_type_map"][key] = {"uid": uid, "type": "memory", "subtype": "malloc",
            "trace": [{"function": f, "source": "m.c", "line": 1} for f in stacks[uid]]}
        p["resources"][key] = {"amount": [n], "address": [4096]}
    return p
json.dump(profile({"parse": 100, "render": 300}), open(sys.argv[1] + "/m1.perf", "w"))
json.dump(profile({"parse": 200, "render": 150, "cache": 50}), open(sys.argv[1] + "/m2.perf", "w"))
PY
ok veles diff m1.perf m2.perf flamegraph -o "$T/fg.svg"
has "$T/err" "flame graph written to"
python3 - "$T/fg.svg" <<'PY' || fail "flame graph"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") != "f":
        continue
    title = g.find("s:title", ns).text
    rect = g.find("s:rect", ns)
    frames[title.split("\n")[0]] = (title, float(rect.get("width")), rect.get("fill"),
                                    float(g.get("data-b")), float(g.get("data-t")))
# parse doubled (red), render shrank (blue), cache_put is new (red).
assert "+100.0%" in frames["parse"][0] and frames["parse"][2].startswith("#ff"), frames["parse"]
render = frames["render"]
assert render[3:] == (300, 200), render   # inclusive: render + cache_put
assert "baseline 300 B, target 200 B, -33.3%" in render[0], render
assert render[2].endswith("ff") and not render[2].startswith("#ff"), render
assert frames["cache_put"][2].startswith("#ff")
# Widths from the target: parse 200 and render 200 share main equally.
assert abs(frames["parse"][1] - frames["render"][1]) < 0.01, frames
assert frames["main"][1] > frames["parse"][1] * 1.99
PY
ok veles diff m1.perf m2.perf flamegraph --negate -o "$T/fgn.svg"
xmllint --noout "$T/fgn.svg" 2>/dev/null || python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/fgn.svg" || fail "negate svg"
ok veles diff m1.perf m2.perf flamegraph
has "$T/out" "^<svg xmlns="
fails 1 veles diff a.perf b.perf flamegraph
# One profile's flame graph, as SVG and as a page.
ok veles show m2.perf flamegraph -o "$T/one.svg"
python3 -c '
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
t = [g.find("{http://www.w3.org/2000/svg}title").text for g in r.iter("{http://www.w3.org/2000/svg}g")
     if g.get("class") == "f"]
assert "main\n400 B, 100.0% of all, 100.0% of parent" in t, t
assert "cache_put\n50 B, 12.5% of all, 25.0% of parent" in t, t
' "$T/one.svg" || fail "show flamegraph"
ok veles show flamegraph m2.perf -o "$T/one.html"
has "$T/one.html" "^<svg xmlns="
ok veles diff m1.perf m2.perf flamegraph -o "$T/fg.html"
has "$T/fg.html" "^<!DOCTYPE html>"
has "$T/fg.html" 'data-diff="1"'
fails 1 veles show m2.perf flamegraph

fails 2 veles diff a.perf
fails 2 veles diff a.perf b.perf bubbles
fails 2 veles diff a.perf b.perf --aggregate mode
fails 2 veles diff a.perf b.perf --filter '('
fails 2 veles diff a.perf b.perf --bogus
fails 1 veles diff a.perf nosuch.perf
# A misspelt --of is an error, not an empty table.
fails 1 veles diff a.perf b.perf --of nosuch
has "$T/err" "no resource of either profile has 'nosuch'"
fails 1 veles diff a.perf b.perf --of uid
has "$T/err" "no resource of either profile has a numeric 'uid'"
fails 1 veles diff a.perf b.perf --of nosuch flamegraph
echo ok
