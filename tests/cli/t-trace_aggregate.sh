#!/bin/bash
# veles collect trace --instrumented --aggregate: each function's histogram
# of inclusive time reaches the profile (its buckets add up to the calls,
# in order, around min and max), the summary gives per function calls,
# times and p50 <= p90 <= p99 within [min, max], and the histogram view
# draws the buckets. Threads of two processes (-t 1 -f) are merged.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
ds=$VELES_SRCDIR/examples/ds

# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace) -o ds_driver "$ds/ds_driver.c" "$ds/ds.c" -lpthread ||
	fail "build ds_driver"
ok veles collect trace --help
has "$T/out" "min, max, a histogram"
ok veles show --help
has "$T/out" "^  histogram an aggregate trace profile"

ok veles collect trace --instrumented --aggregate -- ./ds_driver -t 1 -f 100 30
has "$T/out" "in 4 threads of 2 processes \(sums only\)"
prof=$(newest)

# The profile: per function and thread, buckets [LO, HI, N] in increasing,
# disjoint ranges whose Ns add up to calls, and min, max inside them (to
# the nanosecond that both are rounded to).
$py - "$(json_of "$prof")" <<'PY' || fail "histograms in the profile"
import json, sys
p = json.load(open(sys.argv[1]))
seen = 0
for key, r in p["resources"].items():
    for i, calls in enumerate(r["calls"]):
        h = r["histogram"][i]
        assert sum(n for _, _, n in h) == calls, (key, i, h, calls)
        assert all(lo < hi and n > 0 for lo, hi, n in h), (key, h)
        assert all(a[1] <= b[0] for a, b in zip(h, h[1:])), (key, h)
        lo, hi = r["min"][i], r["max"][i]
        assert h[0][0] - 5e-4 <= lo <= hi <= h[-1][1] + 5e-4, (key, lo, hi, h)
        # a bucket is at most a quarter of its lower bound wide
        assert all(b - a <= a / 4 * 1.0001 for a, b, _ in h if a > 0.01), (key, h)
        seen += 1
assert seen >= 4 * 9, seen
s = p["resources"]["SLList_search#0"]
assert s["calls"] == [30] * 4, s["calls"]
PY

# The summary: per function, over threads and processes.
ok veles show "$prof" --format json
$py - "$T/out" <<'PY' || fail "summary json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["unit"] == "us"
f = {x["uid"]: x for x in s["functions"]}
assert f["SLList_insert"]["calls"] == 400 and f["SLList_search"]["calls"] == 120, f
times = [x["total"] for x in s["functions"]]
assert times == sorted(times, reverse=True), times
for x in s["functions"]:
    assert x["min"] <= x["p50"] <= x["p90"] <= x["p99"] <= x["max"], x
    assert abs(x["mean"] * x["calls"] - x["total"]) <= 1e-6 * x["total"] + 1e-9, x
    assert x["exclusive_total"] <= x["total"] + 1e-9, x
PY
ok veles show "$prof"
has "$T/out" "^function +calls +total +mean +excl total +excl mean +p50 +p90 +p99 +min +max$"
has "$T/out" "^SLList_search +120( +[0-9.e+-]+){9}$"

# The histogram view: a plot per function, a bar per bucket; the bars of
# SLList_search count its 120 calls.
ok veles show "$prof" histogram --filter-by uid SLList_search
has "$T/out" "^SLList_search: 120 calls(, p[0-9]+ [0-9.]+ (ns|µs|ms)){3}$"
total=$(awk -F'│' 'NF == 2 { n = split($2, w, " "); s += w[n] } END { print s }' "$T/out")
[ "$total" = 120 ] || fail "the bars count $total calls, not 120"
ok veles show histogram "$prof" -n 2
[ "$(grep -c ' calls, p50 ' "$T/out")" = 2 ] || fail "-n 2 plots"
ok veles show "$prof" histogram -o h.svg
has h.svg "<svg"
has h.svg "SLList_search: 120 calls"

# A profile of every call has no histograms: one line says how to get them.
ok veles collect trace --instrumented -- ./ds_driver 10
fails 1 veles show "$(newest)" histogram
has "$T/err" "needs histograms: collect with .veles collect trace --instrumented --aggregate."
ok veles show "$(newest)"
has "$T/out" "count +mean +sd +median"
echo "ok"
