#!/bin/bash
# Profiles shaped as Perun's test profiles are (tests/cli/perun_shapes.py:
# every layout, models of every kind, NaN, legacy keys) load, show, come
# back out as Perun reads them, postprocess, and check in Veles: every
# method, every --models-type strategy, Perun's method names and its
# degradation.strategies semantics; and check profiles FILE FILE needs no
# project.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
fmt() { ok $py "$VELES_SRCDIR/tests/cli/perun_format.py" "$@"; }
S=$T/shapes
$py "$VELES_SRCDIR/tests/cli/perun_shapes.py" "$S" || fail "perun_shapes.py"
cd "$T" || fail cd

# Outside any project: show and check read files.
for f in "$S"/*.perf; do
	ok veles show "$f"
	ok veles show "$f" raw
	cp "$T/out" "$T/rt.perf"
	fmt --expect-int structure-unit-size --expect-int call-order --expect-int order "$T/rt.perf"
done
ok veles show "$S/legacy.perf"
has "$T/out" "mixed \(time delta\): us"
has "$T/out" "Arguments: +-O2"
ok veles show "$S/memory-snapshots.perf" memory
ok veles show "$S/trace-base.perf" tableof models
has "$T/out" "regressogram"
has "$T/out" "moving_average"
# Both kernel models, the legacy one (kernel_stats) and the current one.
[ "$(grep -c 'kernel' "$T/out")" -ge 2 ] || fail "kernel models not listed"
ok veles show "$S/nan-amounts.perf" tableof resources
# The models drawn: non-parametric ones without x_values (spread over
# [x_start, x_end] as Perun's checks place them), NaN points left out.
for f in trace-base legacy nan-amounts; do
	ok veles show "$S/$f.perf" scatter -o "$T/$f.svg"
	ok veles show "$S/$f.perf" scatter -o "$T/$f.html"
	ok veles show "$S/$f.perf" scatter
done
has "$T/trace-base.svg" "regressogram"
has "$T/trace-base.svg" "moving_average"
hasnt "$T/trace-base.svg" "NaN"
ok veles show "$S/time-global.perf" bars

# check profiles FILE FILE, no project: the target is three times slower.
fails_json() { # fails_json STATUS ARGS...: check with JSON out, exit STATUS
	local want=$1
	shift
	veles check --format json "$@" >"$T/out" 2>"$T/err"
	[ $? -eq "$want" ] || { cat "$T/err" >&2; fail "check $* did not exit $want"; }
}
for m in stat aat int loc fast lreg preg average_amount_threshold integral_comparison \
	local_statistics fast_check linear_regression polynomial_regression; do
	fails_json 1 --method "$m" profiles "$S/trace-base.perf" "$S/trace-target.perf"
	fails_json 0 --method "$m" profiles "$S/trace-base.perf" "$S/trace-base.perf"
done
# The complexity did not change: best model order equality sees none.
fails_json 0 --method best_model_order_equality profiles "$S/trace-base.perf" \
	"$S/trace-target.perf"
fails 2 veles check --method nonsense profiles "$S/trace-base.perf" "$S/trace-target.perf"

# --models-type: which models are paired, per uid.
for m in best-model best-param best-nonparam all-param all-nonparam all-models best-both; do
	fails_json 1 -m "$m" --method int profiles "$S/trace-base.perf" "$S/trace-target.perf"
	$py - "$m" "$T/out" <<'PY' || fail "--models-type $m"
import json, sys
m = sys.argv[1]
res = json.load(open(sys.argv[2]))["results"]
locs = sorted(r["location"] for r in res)
uids = ["SLList_insert(SLList*, int)", "SLList_search(SLList*, int)"]
param = ["constant", "exponential", "linear", "logarithmic", "power", "quadratic"]
nonparam = ["kernel", "moving_average", "regressogram"]
want = {
    "best-model": uids, "best-param": uids, "best-nonparam": uids,
    "all-param": [f"{u} ({k})" for u in uids for k in param],
    "all-nonparam": [f"{u} ({k})" for u in uids for k in nonparam],
    "all-models": [f"{u} ({k})" for u in uids for k in param + nonparam],
    "best-both": [f"{u} ({k})" for u in uids for k in ("non-parametric", "parametric")],
}[m]
assert locs == sorted(want), (m, locs)
# Three times slower, whichever models are paired (the constant too).
for r in res:
    assert abs(r["rel_change"] - 2) < 1e-6, (m, r["location"], r["rel_change"])
    # A poor fit (the constant's r² is 0) makes it a Maybe.
    want = "TotalDegradation" if r["confidence"] >= 0.5 else "MaybeDegradation"
    assert r["result"] == want, (m, r)
PY
done
# The legacy profile has parametric models only: the non-parametric
# strategies have nothing to pair, and say so.
fails_json 0 -m best-nonparam --method int profiles "$S/legacy.perf" "$S/legacy.perf"
has "$T/out" "no model of the kinds --models-type pairs"
has "$T/err" "could not be judged"
fails 2 veles check -m best-everything profiles "$S/legacy.perf" "$S/legacy.perf"

# Postprocessing: every postprocessor reads them (NaN amounts too).
for f in trace-base nan-amounts legacy; do
	ok veles postprocess -o "$T/pp.perf" "$S/$f.perf" regression-analysis
	ok veles postprocess -o "$T/pp2.perf" "$T/pp.perf" regressogram
	ok veles postprocess -o "$T/pp3.perf" "$T/pp2.perf" moving-average
	ok veles postprocess -o "$T/pp4.perf" "$T/pp3.perf" kernel-regression kernel-ridge
	fmt "$T/pp4.perf"
done
ok veles postprocess -o "$T/pp.perf" "$S/time-global.perf" normalizer
ok veles postprocess -o "$T/pp.perf" "$S/memory-snapshots.perf" regression-analysis --per address

# degradation.strategies with Perun's semantics, in a project.
new_git_project p
cat >>.veles/config.yml <<'EOF'
degradation:
  strategies:
    - type: mixed
      postprocessor: regression_analysis
      method: integral_comparison
    - cmd: target
      args: ""
      method: int
    - collector: nothing-collects-this
      method: aat
EOF
mkdir -p "$XDG_CONFIG_HOME/veles"
cat >"$XDG_CONFIG_HOME/veles/config.yml" <<'EOF'
degradation:
  strategies:
    - method: fast_check
EOF
# apply: all by default, each method once, the project's rules then the user's.
fails_json 1 profiles "$S/trace-base.perf" "$S/trace-target.perf"
$py - "$T/out" <<'PY' || fail "strategies"
import json, sys
res = json.load(open(sys.argv[1]))["results"]
methods = sorted({r["method"] for r in res})
assert methods == ["fast", "int"], methods
assert len(res) == 4, len(res)
PY
ok veles config set degradation.apply first
fails_json 1 profiles "$S/trace-base.perf" "$S/trace-target.perf"
has "$T/out" '"method":"int"'
hasnt "$T/out" '"method":"fast"'
