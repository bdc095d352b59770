#!/bin/bash
# The flame graphs in headless Chromium (see check-flame.mjs): a click
# zooms, the search box prints the matched share, the tooltip gives values
# in the profile's unit, a differential graph is coloured by change, and a
# frame named like markup stays text. Skipped (77) without chromium, node or
# web/node_modules.
. "$(dirname "$0")/needs.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/veles-flame.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" && git init -q . && "$VELES" init >/dev/null 2>&1 || exit 1
set -e
# Memory profiles in bytes, one of them with a frame named as a script; a
# trace-like profile in microseconds.
python3 - <<'PY'
import json
def profile(kind, unit, amounts):
    stacks = {"parse": ["malloc", "parse", "main", "_start"],
              "render": ["malloc", "render", "main", "_start"],
              "cache": ["malloc", "cache_put", "render", "main", "_start"],
              "evil": ["malloc", "<script>alert(1)</script>", "main", "_start"]}
    p = {"header": {"type": kind, "units": unit}, "resources": {}, "resource_type_map": {}}
    for uid, n in amounts.items():
        key = uid + "#0"
        p["resource_type_map"][key] = {"uid": uid, "type": kind, "subtype": "malloc",
            "trace": [{"function": f, "source": "m.c", "line": 1} for f in stacks[uid]]}
        p["resources"][key] = {"amount": [n], "address": [4096]}
    return p
mem = {"memory": "B"}
json.dump(profile("memory", mem, {"parse": 100000, "render": 3000000, "evil": 400000}),
          open("m1.perf", "w"))
json.dump(profile("memory", mem, {"parse": 300000, "render": 150000, "cache": 1258291,
                                  "evil": 400000}), open("m2.perf", "w"))
json.dump(profile("mixed", {"mixed(time delta)": "us"}, {"parse": 80350, "render": 39650}),
          open("t.perf", "w"))
PY
"$VELES" show m2.perf flamegraph -o mem.html 2>/dev/null
"$VELES" show m2.perf flamegraph -o mem.svg 2>/dev/null
"$VELES" show t.perf flamegraph -o time.html 2>/dev/null
"$VELES" diff m1.perf m2.perf flamegraph -o diff.svg 2>/dev/null
"$VELES" diff m1.perf m2.perf flamegraph -o diff.html 2>/dev/null
"$VELES" diff m1.perf m2.perf report -o report.html 2>/dev/null
exec node "$VELES_SRCDIR/tests/browser/check-flame.mjs" "$T"
