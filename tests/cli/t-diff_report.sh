#!/bin/bash
# veles diff BASE TARGET report (and Perun's spelling, veles showdiff):
# one self-contained HTML page with both headers, the change of every
# location, each profile's locations by share, and the differential flame
# graph; the page is parsed back and its numbers checked against `diff`.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
ds=$VELES_SRCDIR/examples/ds

# shellcheck disable=SC2046
${CC:-cc} -O1 $(veles cflags trace) -o ds_driver "$ds/ds_driver.c" "$ds/ds.c" -lpthread ||
	fail "build ds_driver"
ok veles collect -pn small trace --instrumented -q -- ./ds_driver 3000 900
ok veles collect -pn big trace --instrumented -q -- ./ds_driver 9000 2700

ok veles diff small.perf big.perf report -o r.html
has "$T/err" "^report written to r.html$"
ok veles diff --format json -n 0 small.perf big.perf
cp "$T/out" diff.json
$py - r.html diff.json <<'PY' || fail "report contents"
import json, sys
from html.parser import HTMLParser

class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.cell, self.svg, self.refs = {}, None, None, 0, []
        self.scripts = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if k in a:
                self.refs.append(a[k])
        if tag == "table":
            self.cur = a.get("id", "head")
            self.tables[self.cur] = []
        elif tag == "tr" and self.cur:
            self.tables[self.cur].append([])
        elif tag in ("td", "th") and self.cur:
            self.cell = a
            self.tables[self.cur][-1].append([a, ""])
        elif tag == "svg":
            self.svg += 1
        elif tag == "script":
            self.scripts += 1
    def handle_endtag(self, tag):
        if tag == "table":
            self.cur = None
    def handle_data(self, data):
        if self.cur and self.tables[self.cur] and self.tables[self.cur][-1]:
            self.tables[self.cur][-1][-1][1] += data

h = Tables()
h.feed(open(sys.argv[1]).read())
diff = {r["name"]: r for r in json.load(open(sys.argv[2]))}
assert not h.refs, h.refs  # nothing fetched
assert h.svg == 1 and h.scripts == 2, (h.svg, h.scripts)  # the page's, the flame graph's
head = {row[0][1]: [c[1].strip() for c in row[1:]] for row in h.tables["head"][1:]}
assert head["command"] == ["./ds_driver 3000 900", "./ds_driver 9000 2700"], head["command"]
assert head["type"] == ["mixed [us]"] * 2, head["type"]
changes = h.tables["changes"][1:]
assert len(changes) == len(diff), (len(changes), len(diff))
for row in changes:
    name, base, target, change = (c[1] for c in row[:4])
    d = diff[name]
    assert abs(float(row[1][0]["data-num"]) - d["baseline"]) <= 1e-9 * abs(d["baseline"]), name
    assert abs(float(row[2][0]["data-num"]) - d["target"]) <= 1e-9 * abs(d["target"]), name
# The largest change first, as diff sorts.
first = max(diff.values(), key=lambda r: abs(__import__("math").log1p(r["rel_change"])))
assert changes[0][0][1] == first["name"], (changes[0][0][1], first["name"])
# Shares: each side's locations, adding up to 100%.
for side in ("baseline", "target"):
    rows = h.tables[side][1:]
    assert len(rows) == len(diff), side
    total = sum(float(r[2][0]["data-num"]) for r in rows)
    assert abs(total - 100) < 1e-6, (side, total)
# run_workload sorts 3x the keys, 9x the work: it grew, in the table and the
# flame graph, by far more than a busy machine adds to the smaller run.
ins = [r for r in changes if r[0][1].startswith("run_workload")][0]
assert float(ins[3][0]["data-num"]) > 0.5, ins
assert "run_workload" in open(sys.argv[1]).read().split("<svg")[1]
PY

# Perun's spelling, and the default file name.
ok veles showdiff small.perf big.perf report
has "$T/err" "^report written to report-diff-of-small-and-big.html$"
cmp -s report-diff-of-small-and-big.html r.html || fail "showdiff and diff differ"
ok veles showdiff small.perf big.perf report -o -
has "$T/out" "^<!DOCTYPE html>"
ok veles showdiff small.perf big.perf
has "$T/out" "run_workload"
ok veles showdiff small.perf big.perf flamegraph -o f.svg
has f.svg "<svg"

# Time profiles have no call stacks: the page says so; --aggregate counts.
ok veles collect -pn t1 time -q --repeat 3 -- /bin/true
ok veles collect -pn t2 time -q --repeat 5 -- /bin/true
ok veles diff --aggregate count t1.perf t2.perf report -o t.html
has t.html "Neither profile has call stacks"
has t.html "The count of each location"
has t.html 'data-num="3"'
hasnt t.html "<svg"
fails 1 veles diff --of nothing t1.perf t2.perf report -o x.html
[ ! -e x.html ] || fail "a failed report left a file"
fails 2 veles diff t1.perf t2.perf nonsense
