#!/bin/bash
# The histogram view labels its buckets and percentiles as a person writes
# durations (80.35 – 100.4 ms, p50 100.4 ms), not in the profile's unit
# (8.035e+04 us), in the terminal, the SVG and the HTML page alike. An
# aggregate trace profile crafted in Perun's layout: no collector needed.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
cd "$T" || fail "cd"
$py - "$T/agg.perf" <<'PY'
import json, sys
def res(uid, h):
    return {"amount": [sum((lo + hi) / 2 * n for lo, hi, n in h)], "min": [h[0][0]],
            "max": [h[-1][1]], "tid": [1], "pid": [1], "calls": [sum(n for _, _, n in h)],
            "histogram": [h]}
hists = {"parse": [[80350, 100437.5, 3], [100437.5, 125546.9, 1], [131072, 163840, 2]],
         "tiny": [[0.123078, 0.147694, 8], [0.79999, 0.99996, 2]]}
json.dump({"header": {"type": "mixed", "cmd": "./prog", "units": {"mixed(time delta)": "us"}},
           "collector_info": {"name": "trace", "params": {}},
           "resources": {u + "#0": res(u, h) for u, h in hists.items()},
           "resource_type_map": {u + "#0": {"uid": u, "type": "mixed", "subtype": "time delta"}
                                 for u in hists}},
          open(sys.argv[1], "w"))
PY
ok veles show agg.perf histogram
has "$T/out" "^parse: 6 calls, p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 [0-9.]+ ms$"
has "$T/out" "^80\.35 – 100\.4 ms │.* 3$"
has "$T/out" "^100\.4 – 125\.5 ms │.* 1$"
# The range no bucket covers is an empty bar.
has "$T/out" "^125\.5 – 131\.1 ms │ 0$"
has "$T/out" "^131\.1 – 163\.8 ms │.* 2$"
has "$T/out" "^tiny: 10 calls, p50 [0-9.]+ ns, p90 [0-9.]+ ns, p99 [0-9.]+ ns$"
has "$T/out" "^123\.1 – 147\.7 ns │.* 8$"
# 999.96 ns is 1 µs, the unit of the bucket's larger end.
has "$T/out" "^0\.8 – 1 µs +│.* 2$"
has "$T/out" "^ +calls by inclusive time$"
hasnt "$T/out" "e\+0|[0-9] us\b"

ok veles show agg.perf histogram -o h.svg
$py - h.svg <<'PY' || fail "svg labels"
import sys, xml.etree.ElementTree as ET
texts = [t.text for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")]
assert "80.35 \u2013 100.4 ms" in texts, texts
assert any(t and t.startswith("parse: 6 calls, p50 ") and t.endswith(" ms") for t in texts), texts
assert not any(t and "e+0" in t for t in texts), texts
PY
ok veles show agg.perf histogram -o h.html
has h.html "80\.35 – 100\.4 ms"
hasnt h.html "8\.035e\+04"
