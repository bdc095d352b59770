#!/bin/bash
# veles postprocess ... regression-analysis: models in the profile, agreeing
# with numpy's least squares to 1e-6 relative; methods, options, errors.
. "$(dirname "$0")/lib.sh"
new_git_project p
trace=$VELES_SRCDIR/tests/data/profiles/trace.perf
ref=$VELES_SRCDIR/tests/cli/regression_ref.py
py=/usr/bin/python3

ok veles postprocess --help
has "$T/out" "regression-analysis"
cp "$trace" .veles/jobs/
ok veles postprocess 0 regression-analysis --help
has "$T/out" "--depending-on KEY"
has "$T/out" "initial_guess"

# The seed's trace profile: every uid gets what its points allow.
ok veles postprocess -o "$T/trace.perf" "$trace" regression-analysis
$py "$ref" "$trace" "$T/trace-ref.json" || fail "numpy reference"
$py "$ref" --compare "$T/trace-ref.json" "$T/trace.perf" || fail "trace models differ from numpy"
$py - "$T/trace.perf" <<'PY' || fail "trace models layout"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["postprocessors"] == [{"name": "regression-analysis", "params": {
    "method": "full", "regression_models": ["constant", "linear", "logarithmic", "quadratic",
    "power", "exponential"], "steps": 3, "of_key": "amount",
    "per_key": "structure-unit-size"}}], p["postprocessors"]
by = {}
for m in p["models"]:
    assert set(m) == {"uid", "model", "method", "r_square", "r_square_perun", "x_start",
                      "x_end", "of_key", "per_key", "coeffs"}, m
    assert m["method"] == "full" and m["of_key"] == "amount"
    assert [c["name"] for c in m["coeffs"]] == ["b0", "b1", "b2"][:len(m["coeffs"])]
    by.setdefault(m["uid"], []).append(m["model"])
# insert has x = 0..3 and y with a 0: the log-space models are fitted to the
# points that have logarithms, as Perun fits them; the others have one
# point: only a constant.
assert by["SLList_insert(SLList*, int)"] == ["constant", "linear", "logarithmic", "quadratic",
                                             "power", "exponential"], by
ins = {m["model"]: m for m in p["models"] if m["uid"] == "SLList_insert(SLList*, int)"}
assert (ins["logarithmic"]["x_start"], ins["power"]["x_start"]) == (1, 2), ins
assert by["SLList_init(SLList*)"] == ["constant"], by
assert len(by) == 4, by
PY

# A generated profile, linear with noise and every x, y > 0: all six models.
# 102,000 points, enough for the fits to run on two threads.
$py - "$T/gen.perf" <<'PY'
import json, random, sys
rnd = random.Random(3)
res, types = {}, {}
for u in range(5):
    uid = f"f{u}"
    xs = [rnd.randrange(1, 5000) for _ in range(20400)]
    ys = [10 + (u + 1) * x + rnd.randrange(0, 300) for x in xs]
    # Two types share uid f0: their points form one group.
    for k, part in enumerate((slice(0, 10200), slice(10200, 20400))):
        key = f"{uid}#{k}"
        res[key] = {"amount": ys[part], "structure-unit-size": xs[part]}
        types[key] = {"uid": uid, "type": "mixed", "subtype": "time delta", "k": k}
json.dump({"origin": "0" * 40, "header": {"type": "mixed", "cmd": "gen", "params": "",
           "workload": "", "units": {"mixed(time delta)": "us"}},
           "collector_info": {"name": "complexity", "params": {}}, "postprocessors": [],
           "models": [], "resources": res, "resource_type_map": types}, open(sys.argv[1], "w"))
PY
ok veles postprocess -o "$T/gen-out.perf" "$T/gen.perf" regression-analysis
$py "$ref" "$T/gen.perf" "$T/gen-ref.json" || fail "numpy reference"
$py "$ref" --compare "$T/gen-ref.json" "$T/gen-out.perf" || fail "generated models differ from numpy"
$py -c '
import json, sys
m = json.load(open(sys.argv[1]))["models"]
assert len(m) == 30, len(m)
lin = [x for x in m if x["model"] == "linear"]
assert all(x["r_square"] > 0.99 for x in lin), lin
' "$T/gen-out.perf" || fail "generated profile: 5 uids x 6 models"

# Methods and options: counts, params, keys.
ok veles postprocess -o "$T/iv.perf" "$T/gen.perf" regression-analysis -m interval -s 4 \
	-r linear -r constant --of amount --per structure-unit-size
$py -c '
import json, sys
p = json.load(open(sys.argv[1]))
m = p["models"]
assert len(m) == 5 * 4 * 2, len(m)
assert {x["method"] for x in m} == {"interval"}
assert p["postprocessors"][0]["params"] == {"method": "interval",
    "regression_models": ["constant", "linear"], "steps": 4, "of_key": "amount",
    "per_key": "structure-unit-size"}, p["postprocessors"]
f0 = sorted((x["x_start"], x["x_end"]) for x in m if x["uid"] == "f0" and x["model"] == "linear")
assert len(f0) == 4 and all(a[1] == b[0] for a, b in zip(f0, f0[1:])), f0
' "$T/iv.perf" || fail "interval"
for method in iterative initial_guess; do
	ok veles postprocess -o "$T/$method.perf" "$T/gen.perf" regression-analysis --method=$method
	$py -c '
import json, sys
m = json.load(open(sys.argv[1]))["models"]
assert len(m) == 5 and {x["method"] for x in m} == {sys.argv[2]}, m
' "$T/$method.perf" "$method" || fail "$method: one model per uid"
done
ok veles postprocess -o "$T/bis.perf" "$T/gen.perf" regression-analysis -m bisection
$py -c '
import json, sys
m = json.load(open(sys.argv[1]))["models"]
assert {x["uid"] for x in m} == {"f0", "f1", "f2", "f3", "f4"}
for u in {x["uid"] for x in m}:
    parts = sorted((x["x_start"], x["x_end"]) for x in m if x["uid"] == u)
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:])), parts
' "$T/bis.perf" || fail "bisection parts"
# --depending-on: amount against k, a persistent attribute of the type.
ok veles postprocess -o "$T/k.perf" "$T/gen.perf" regression-analysis -r linear --depending-on k
$py -c '
import json, sys
m = json.load(open(sys.argv[1]))["models"]
assert len(m) == 5 and all(x["per_key"] == "k" and x["x_end"] == 1 for x in m), m
' "$T/k.perf" || fail "--depending-on a persistent key"
# Postprocessing again appends to the models.
ok veles postprocess -o "$T/twice.perf" "$T/iv.perf" regression-analysis -r constant
$py -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert len(p["models"]) == 40 + 5 and len(p["postprocessors"]) == 2
' "$T/twice.perf" || fail "second run appends"

# The seed's time layout, one object per measurement, two uids taking
# turns: rows are grouped by uid however they interleave.
$py - "$T/time.perf" <<'PY'
import json, sys
res = [{"uid": u, "type": "time", "subtype": "real", "order": i,
        "amount": 1 + 2 * i if u == "a" else 5 - i}
       for i in range(1, 41) for u in ("a", "b")]
json.dump({"origin": "0" * 40, "header": {"type": "time", "cmd": "t", "params": "",
           "workload": "", "units": {"time": "s"}},
           "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
           "global": {"timestamp": 1.0, "resources": res}}, open(sys.argv[1], "w"))
PY
ok veles postprocess -o "$T/time-out.perf" "$T/time.perf" regression-analysis -r linear --per order
$py -c '
import json, sys
m = {x["uid"]: x for x in json.load(open(sys.argv[1]))["models"]}
assert sorted(m) == ["a", "b"], m
for uid, b0, b1 in (("a", 1, 2), ("b", 5, -1)):
    c = [v["value"] for v in m[uid]["coeffs"]]
    assert abs(c[0] - b0) < 1e-9 and abs(c[1] - b1) < 1e-9 and m[uid]["r_square"] > 1 - 1e-12, m
    assert m[uid]["x_start"] == 1 and m[uid]["x_end"] == 40, m
' "$T/time-out.perf" || fail "interleaved uids"

# The time collector's layout: real, user and sys share the command as uid.
# Each subtype gets its own models (a "subtype" member names it), and the
# models sys's zeros rule out are reported, not dropped silently.
$py - "$T/rus.perf" <<'PY'
import json, sys
res = []
for n in range(1, 6):
    for sub, y in (("real", 0.01 * n + 0.002), ("user", 0.001 * n + 0.0005), ("sys", 0.0)):
        res.append({"uid": "./sl.sh", "type": "time", "subtype": sub, "order": 1,
                    "amount": y, "structure-unit-size": n})
json.dump({"origin": "0" * 40, "header": {"type": "time", "cmd": "./sl.sh", "params": "",
           "workload": "", "units": {"time": "s"}},
           "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
           "global": {"timestamp": 1.0, "resources": res}}, open(sys.argv[1], "w"))
PY
ok veles postprocess -o "$T/rus-out.perf" "$T/rus.perf" regression-analysis
has "$T/err" "^veles: warning: postprocess regression-analysis: \./sl\.sh \[sys\]: power, exponential not fitted: fewer than 2 distinct 'structure-unit-size' with a positive 'amount'$"
[ "$(grep -c warning "$T/err")" -eq 1 ] || fail "one warning expected"
$py -c '
import json, sys
m = json.load(open(sys.argv[1]))["models"]
by = {}
for x in m:
    assert x["uid"] == "./sl.sh", x
    by.setdefault(x["subtype"], {})[x["model"]] = x
assert len(by["real"]) == 6 and len(by["user"]) == 6, by
assert sorted(by["sys"]) == ["constant", "linear", "logarithmic", "quadratic"], by["sys"]
for sub, b1 in (("real", 0.01), ("user", 0.001)):
    lin = by[sub]["linear"]
    assert lin["r_square"] > 1 - 1e-9 and abs(lin["coeffs"][1]["value"] - b1) < 1e-12, lin
' "$T/rus-out.perf" || fail "real, user and sys fitted apart"
ok veles show "$T/rus-out.perf" tableof models
has "$T/out" "^uid +subtype +model"
has "$T/out" "^\./sl\.sh +sys +quadratic"
ok veles show "$T/rus-out.perf" scatter
has "$T/out" "^\./sl\.sh \[real\]"
has "$T/out" "^\./sl\.sh \[sys\]"
# Filtered to one subtype, a uid's models name none.
ok veles postprocess -o "$T/real.perf" "$T/rus.perf" filter --where subtype=real
ok veles postprocess -o "$T/real-out.perf" "$T/real.perf" regression-analysis
hasnt "$T/err" warning
hasnt "$T/real-out.perf" '"subtype":"real","model"'

# Bad options and impossible fits: one line, exit 1.
fails 1 veles postprocess "$trace" regression-analysis -m nosuch
fails 1 veles postprocess "$trace" regression-analysis -r cubic
fails 1 veles postprocess "$trace" regression-analysis -s 0
fails 1 veles postprocess "$trace" regression-analysis -s many
fails 1 veles postprocess "$trace" regression-analysis --of
fails 1 veles postprocess "$trace" regression-analysis --of nosuchkey
fails 1 veles postprocess "$trace" regression-analysis --per uid
fails 1 veles postprocess "$trace" regression-analysis --bogus
fails 1 veles postprocess "$trace" regression-analysis extra
ok veles postprocess -o "$T/sys.perf" "$T/rus.perf" filter --where subtype=sys
fails 1 veles postprocess "$T/sys.perf" regression-analysis -r power -r exponential
has "$T/err" "no requested model can be fitted.*\(\./sl\.sh: power: fewer than 2 distinct 'structure-unit-size' with a positive 'amount'\)"

# y = 3x^3 for x = 0..5: x = 0 has no logarithm and is left out of the power
# model, which is then exact (Perun fits b0 = 3, b1 = 3, r^2 = 1 there too).
$py - "$T/cube.perf" <<'PY'
import json, sys
json.dump({"header": {"type": "mixed", "cmd": "c", "units": {"mixed(time delta)": "ms"}},
           "collector_info": {"name": "trace"}, "resources": {"f#0": {
           "amount": [3 * x ** 3 for x in range(6)], "structure-unit-size": list(range(6))}},
           "resource_type_map": {"f#0": {"uid": "f", "type": "mixed"}}}, open(sys.argv[1], "w"))
PY
ok veles postprocess -o "$T/cube-out.perf" "$T/cube.perf" regression-analysis
hasnt "$T/err" warning
$py -c '
import json, sys
m = {x["model"]: x for x in json.load(open(sys.argv[1]))["models"]}
pw = m["power"]
assert [round(c["value"], 9) for c in pw["coeffs"]] == [3, 3], pw
assert pw["r_square"] == 1 and pw["r_square_perun"] == 1 and pw["x_start"] == 1, pw
' "$T/cube-out.perf" || fail "y = 3x^3 from x = 0"

# A time profile of a literal workload: one size for real, user and sys.
# Only the constant can be fitted, and that is said once, not per subtype.
$py - "$T/lit.perf" <<'PY'
import json, sys
res = [{"uid": "./p", "type": "time", "subtype": s, "order": i, "amount": 0.1 + 0.01 * i,
        "structure-unit-size": 7} for i in range(5) for s in ("real", "user", "sys")]
json.dump({"header": {"type": "time", "cmd": "./p", "units": {"time": "s"}},
           "collector_info": {"name": "time"}, "global": {"resources": res}},
          open(sys.argv[1], "w"))
PY
ok veles postprocess -o "$T/lit-out.perf" "$T/lit.perf" regression-analysis
[ "$(grep -c warning "$T/err")" -eq 1 ] || fail "one warning for a literal workload"
has "$T/err" "^veles: warning: postprocess regression-analysis: \./p \[real\] and 2 more: linear, logarithmic, quadratic, power, exponential not fitted: 'structure-unit-size' has one value only \(all points have one size; a workload generator varies it\)$"
echo ok
