#!/bin/bash
# veles check: a real slowdown committed in a real git history, the output
# formats, exit statuses, a profile with no baseline, and bad input.
. "$(dirname "$0")/lib.sh"
new_git_project p
cp "$VELES_SRCDIR/examples/list_search.c" .
cc -O2 -o fast list_search.c || fail "cc"
cc -O2 -DSLOW=1 -o slow list_search.c || fail "cc"
cp fast prog
git add list_search.c && git commit -qm "list search" || fail commit
# No profile at the version: a gate that measured nothing does not pass.
fails 2 veles check head
has "$T/err" "^veles: no profile registered to version [0-9a-f]{7}: nothing to check"
fails 2 veles check all
has "$T/err" "no profile registered to any version"

collect() { veles collect time -r 15 -q -o suppress -- ./prog 3000 3000 2>/dev/null || fail collect; }
collect && ok veles add -q 0@p
commit_change "same code"
collect && ok veles add -q 0@p
# The same code twice: on a busy machine the two batches may still differ
# by a few percent, so only the shape is checked here (test_degrade checks
# the classes on fixed samples).
veles check head --on user >"$T/out" 2>"$T/err"
[ $? -le 1 ] || fail "check head on unchanged code"
has "$T/out" "\./prog \[user\]"
hasnt "$T/out" "TotalDegradation"

commit_change "the slow search"
cp slow prog
collect && ok veles add -q 0@p
veles check head --on user >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "check head on a slowdown must exit 1"
has "$T/out" "\./prog \[user\]"
has "$T/out" "(Severe|Total)?Degradation +\+[0-9]+"

veles check head --on user --format json >"$T/j.json"
python3 - "$T/j.json" <<'PY' || fail "json"
import json, sys
r = json.load(open(sys.argv[1]))
user = [x for x in r["results"] if x["location"] == "./prog [user]"][0]
assert user["result"].endswith("Degradation"), user
assert user["rel_change"] > 0.5 and user["ci_low"] > 0.02, user
assert user["confidence_kind"] == "p-value" and user["confidence"] < 0.05
assert user["n_baseline"] == 15 and user["n_target"] == 15
assert r["summary"]["degradations"] >= 1
PY
veles check head --format junit >"$T/j.xml"
python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
assert s.tag == "testsuite" and int(s.get("failures")) >= 1
assert any(c.find("failure") is not None for c in s.iter("testcase"))
' "$T/j.xml" || fail "junit"
veles check head --on user --format markdown >"$T/out"
has "$T/out" "^#### \./prog 3000 3000 · time$"
has "$T/out" "^\| location \| result \| change \| interval \| confidence \|$"
has "$T/out" "^\| \./prog \[user\] \| \*\*(Severe|Total)?Degradation\*\* \|"
has "$T/out" "^<details><summary>All [0-9]+ results?</summary>$"

# The previous version against its own parent: no doubling there.
veles check head HEAD~1 >"$T/out"
[ $? -le 1 ] || fail "check head HEAD~1"
hasnt "$T/out" "TotalDegradation"
# all walks every version: the slowdown is found among them.
veles check all >"$T/out"
[ $? -eq 1 ] || fail "check all exit"
[ "$(grep -c '^\./prog 3000 3000' "$T/out")" -eq 2 ] || fail "check all pairs"

# Two profiles compared directly, both ways round.
ok veles check profiles 0@i 0@i
has "$T/out" "NoChange"

# A version whose profile has no baseline (another workload).
commit_change "new workload"
veles collect time -r 3 -q -o suppress -- ./prog 10 10 2>/dev/null && ok veles add -q 0@p
ok veles check head
has "$T/out" "1 profile had no baseline"
# ... which every format reports, so a CI gate does not pass on nothing.
ok veles check head --format markdown
has "$T/out" "^\*\*0 degradations, 0 maybe degradations, 0 optimizations, 0 other results; 1 profile had no baseline; none fails the check \(--fail-on degradation\)\*\*"
has "$T/out" "^- \./prog 10 10 · time: prog-time-"
ok veles check head --format junit
python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
assert s.get("tests") == "1" and s.get("skipped") == "1" and s.get("failures") == "0", s.attrib
c = s.find("testcase")
assert c.get("classname") == "./prog 10 10 · time" and c.get("name").startswith("prog-time-")
assert "no baseline" in c.find("skipped").get("message")
' "$T/out" || fail "junit: a skipped case per profile without a baseline"
ok veles check head --format json
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["summary"]["without_baseline"] == 1
u = r["without_baseline"][0]
assert u["profile"].startswith("prog-time-") and u["config"] == "./prog 10 10 · time", u
assert len(u["version"]) == 40
' "$T/out" || fail "json: the profiles without a baseline"

# aat, the threshold method, misses what is under 2x.
ok veles check profiles --method aat 0@i 0@i

# degradation.strategies choose the method per profile.
cp .veles/config.yml "$T/config.orig"
strategies() { # APPLY METHOD-OF-THE-FIRST-RULE [EXTRA-LINE]
	cp "$T/config.orig" .veles/config.yml
	cat >>.veles/config.yml <<YML
degradation:
  apply: $1
  strategies:
    - type: memory
      method: $2
    - cmd: "*/prog"
      collector: time
      method: aat
    - type: time
      method: stat
${3:-}
YML
}
strategies first bmoe
veles check head HEAD~1 --format json >"$T/j.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert r and {x["method"] for x in r} == {"aat"}, r
' "$T/j.json" || fail "first matching strategy"
strategies all bmoe
veles check head HEAD~1 --format json >"$T/j.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert {x["method"] for x in r} == {"aat", "stat"}, r
' "$T/j.json" || fail "apply all"
# --method overrides the strategies.
veles check head HEAD~1 --method stat --format json >"$T/j.json"
python3 -c '
import json, sys
assert {x["method"] for x in json.load(open(sys.argv[1]))["results"]} == {"stat"}
' "$T/j.json" || fail "--method overrides"
strategies sometimes bmoe
fails 2 veles check head
has "$T/err" "degradation.apply is 'sometimes'"
strategies first nosuch
fails 2 veles check head
has "$T/err" "degradation.strategies.0.method: unknown method 'nosuch'"
strategies first bmoe "    - colector: time"
fails 2 veles check head
has "$T/err" "config.yml:[0-9]+:[0-9]+: unknown key 'degradation.strategies.3.colector'"
cp "$T/config.orig" .veles/config.yml

# A significant 4% that the interval cannot place beyond the 2% of noise:
# a MaybeDegradation, reported, failing only with --strict.
python3 - "$T" <<'PY'
import json, sys
def profile(f):
    res = [{"uid": "./x", "type": "time", "subtype": "user", "amount": (100 + (i * 7) % 20) * f,
            "order": i} for i in range(30)]
    return {"header": {"type": "time", "cmd": "./x", "units": {"time": "s"}},
            "collector_info": {"name": "time"}, "global": {"resources": res}}
json.dump(profile(1.0), open(sys.argv[1] + "/mb.perf", "w"))
json.dump(profile(1.04), open(sys.argv[1] + "/mt.perf", "w"))
PY
ok veles check profiles "$T/mb.perf" "$T/mt.perf"
has "$T/out" "MaybeDegradation +\+4\.0%"
# The summary line says what the exit status does: a maybe is not counted
# among the degradations, and fails only when asked to.
has "$T/out" "^0 degradations, 1 maybe degradation, 0 optimizations, 0 other results; none fails the check \(--fail-on degradation\)$"
veles check profiles --strict "$T/mb.perf" "$T/mt.perf" >"$T/out"
[ $? -eq 1 ] || fail "--strict: a maybe fails"
has "$T/out" "; 1 fails the check \(--fail-on maybe\)$"
veles check profiles --fail-on maybe "$T/mb.perf" "$T/mt.perf" >"$T/out"
[ $? -eq 1 ] || fail "--fail-on maybe"
veles check profiles --format junit "$T/mb.perf" "$T/mt.perf" >"$T/out"
has "$T/out" 'failures="0"'
veles check profiles --strict --format json "$T/mb.perf" "$T/mt.perf" >"$T/out"
has "$T/out" '"failing":1'

# Short programs measure 0 s of user time now and then: three zeros in the
# baseline must not demote a sure 30% slowdown to a maybe.
python3 - "$T" <<'PY'
import json, sys
def profile(vals):
    res = [{"uid": "./z", "type": "time", "subtype": "user", "amount": v, "order": i}
           for i, v in enumerate(vals)]
    return {"header": {"type": "time", "cmd": "./z", "units": {"time": "s"}},
            "collector_info": {"name": "time"}, "global": {"resources": res}}
noise = [0.01 * ((i * 7) % 5) for i in range(15)]
json.dump(profile([0, 0, 0] + [1.0 + x for x in noise[3:]]), open(sys.argv[1] + "/zb.perf", "w"))
json.dump(profile([1.3 + x for x in noise]), open(sys.argv[1] + "/zt.perf", "w"))
PY
veles check profiles "$T/zb.perf" "$T/zt.perf" >"$T/out"
[ $? -eq 1 ] || { cat "$T/out" >&2; fail "zeros in the baseline: a sure slowdown must exit 1"; }
has "$T/out" "SevereDegradation +\+3[0-9]\.[0-9]% \[\+"
has "$T/out" "^1 degradation, 0 maybe degradations, 0 optimizations, 0 other results; 1 fails the check \(--fail-on degradation\)$"
# --fail-on severe: a 30% slowdown is severe and still fails; a 4% maybe not.
veles check profiles --fail-on severe "$T/zb.perf" "$T/zt.perf" >"$T/out"
[ $? -eq 1 ] || fail "--fail-on severe: a severe degradation fails"
ok veles check profiles --fail-on severe --format json "$T/mb.perf" "$T/mt.perf"
has "$T/out" '"maybe_degradations":1,.*"failing":0,"fail_on":"severe"'
fails 2 veles check profiles --fail-on sometimes "$T/mb.perf" "$T/mt.perf"

# The model methods on two regression-analysed profiles: "work" went from
# linear to quadratic in the input size, "same" did not move.
python3 - "$T" <<'PY'
import json, sys
def profile(fn):
    res = [{"uid": uid, "type": "mixed", "subtype": "time delta", "amount": f(x),
            "structure-unit-size": x} for uid, f in fn.items() for x in range(1, 21)]
    return {"header": {"type": "mixed", "cmd": "./lib", "units": {"mixed(time delta)": "ms"}},
            "collector_info": {"name": "trace"}, "global": {"resources": res}}
json.dump(profile({"work": lambda x: 10 + 5 * x, "same": lambda x: 3 + 2 * x}),
          open(sys.argv[1] + "/rb.perf", "w"))
json.dump(profile({"work": lambda x: 10 + 5 * x + 0.8 * x * x, "same": lambda x: 3 + 2 * x}),
          open(sys.argv[1] + "/rt.perf", "w"))
PY
for side in rb rt; do
	ok veles postprocess -o "$T/$side-models.perf" "$T/$side.perf" regression-analysis
done
ok veles check profiles --method int "$T/rb-models.perf" "$T/rb-models.perf"
has "$T/out" "^     NoChange +\+0\.0% +r_square=1 +[0-9.]+ -> [0-9.]+ +\(int\)$"
for m in int bmoe; do
	veles check profiles --method $m --format json "$T/rb-models.perf" "$T/rt-models.perf" \
		>"$T/j.json" 2>"$T/err"
	[ $? -eq 1 ] || fail "$m: linear to quadratic must fail the check"
	python3 - "$T/j.json" $m <<'PY' || fail "$m results"
import json, sys
r = {x["location"]: x for x in json.load(open(sys.argv[1]))["results"]}
assert set(r) == {"work", "same"} and all(x["method"] == sys.argv[2] for x in r.values()), r
assert r["same"]["result"] == "NoChange", r["same"]
assert r["work"]["result"].endswith("Degradation") and r["work"]["rel_change"] > 1, r["work"]
assert r["work"]["confidence_kind"] == "r_square" and r["work"]["confidence"] > 0.99
if sys.argv[2] == "int":
    # Simpson's rule on the two curves over 1..20.
    assert abs(r["work"]["baseline"] - 1187.5) < 1e-6 and r["work"]["result"] == "TotalDegradation"
else:
    assert (r["work"]["baseline"], r["work"]["target"]) == (2, 3), r["work"]  # linear < quadratic
PY
done

# eto: of six functions one doubled its time while the rest stood still.
python3 - "$T" <<'PY'
import json, sys
def profile(f3):
    res = [{"uid": "f%d" % k, "type": "mixed", "subtype": "time delta",
            "amount": (100 + k + i) * (f3 if k == 3 else 1 + 0.01 * (k % 2))}
           for k in range(6) for i in range(5)]
    return {"header": {"type": "mixed", "cmd": "./lib", "units": {"mixed(time delta)": "ms"}},
            "collector_info": {"name": "trace"}, "global": {"resources": res}}
json.dump(profile(1.01), open(sys.argv[1] + "/eb.perf", "w"))
json.dump(profile(2.0), open(sys.argv[1] + "/et.perf", "w"))
PY
veles check profiles --method eto "$T/eb.perf" "$T/et.perf" >"$T/out"
[ $? -eq 1 ] || fail "eto: the outlier must fail the check"
[ "$(grep -c 'NoChange .*eto)' "$T/out")" -eq 5 ] || fail "eto: five unchanged"
has "$T/out" "^  │  SevereDegradation +\+98\.0% .*z-score=4\.79 .*\(5 vs 5 values, eto\)"

# --test welch: Welch's t on the same 4% shift, a p-value of its own.
veles check profiles --format json "$T/mb.perf" "$T/mt.perf" >"$T/mw.json"
veles check profiles --test welch --format json "$T/mb.perf" "$T/mt.perf" >"$T/w.json"
/usr/bin/python3 - "$T/mw.json" "$T/w.json" "$T/mb.perf" "$T/mt.perf" <<'PY' || fail "welch"
import json, sys
from scipy import stats
mw, w = (json.load(open(f))["results"][0] for f in sys.argv[1:3])
a, b = ([r["amount"] for r in json.load(open(f))["global"]["resources"]] for f in sys.argv[3:5])
assert w["result"] == "MaybeDegradation" and w["confidence_kind"] == "p-value", w
want = stats.ttest_ind(a, b, equal_var=False).pvalue
assert abs(w["confidence"] - want) < 1e-9 * want, (w["confidence"], want)
assert abs(mw["confidence"] - stats.mannwhitneyu(a, b, method="asymptotic").pvalue) < 1e-12
PY

# A model method on profiles nobody postprocessed cannot judge anything:
# each location is Unknown and says why, rather than an empty pass.
veles check profiles --method int "$T/zb.perf" "$T/zt.perf" >"$T/out" 2>"$T/err"
[ $? -eq 0 ] || fail "int without models"
has "$T/out" "Unknown .*int; no models in either profile"
has "$T/err" "warning: 1 result could not be judged"
veles check profiles --method bmoe --format junit "$T/zb.perf" "$T/zt.perf" >"$T/out" 2>/dev/null
has "$T/out" '<skipped message="no models in either profile'
veles check profiles --method lreg --format json "$T/zb.perf" "$T/zt.perf" >"$T/out" 2>/dev/null
has "$T/out" '"result":"Unknown".*"note":"no models in either profile'

# "postprocessors": null, an empty list and no member at all say the same:
# nothing ran, and the baseline lookup pairs such profiles.
(
	new_git_project pp
	python3 - <<'PY'
import json
def profile(f, pp):
    res = [{"uid": "./x", "type": "time", "subtype": "user", "amount": (100 + (i * 7) % 20) * f,
            "order": i} for i in range(10)]
    p = {"header": {"type": "time", "cmd": "./x", "units": {"time": "s"}},
         "collector_info": {"name": "time"}, "global": {"resources": res}}
    if pp != "absent":
        p["postprocessors"] = pp
    return p
json.dump(profile(1.0, None), open(".veles/jobs/x-time-1.perf", "w"))
json.dump(profile(1.5, "absent"), open(".veles/jobs/x-time-2.perf", "w"))
json.dump(profile(1.5, []), open(".veles/jobs/x-time-3.perf", "w"))
PY
	ok veles add -q x-time-1.perf
	commit_change "slower"
	ok veles add -q x-time-2.perf
	veles check head >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] || fail "null and absent postprocessors must pair"
	hasnt "$T/out" "had no baseline"
	commit_change "as slow"
	ok veles add -q x-time-3.perf
	ok veles check head
	hasnt "$T/out" "had no baseline"
	has "$T/out" "NoChange"
) || exit 1

fails 2 veles check
fails 2 veles check sideways
fails 2 veles check profiles 0@i
fails 2 veles check --method nosuch head
has "$T/err" "use stat, aat, eto, bmoe, int, loc, fast, lreg, preg or bounds"
fails 2 veles check --format yaml head
fails 2 veles check --alpha 0.9 head
fails 2 veles check --test chi head
fails 2 veles check head no-such-rev
fails 2 veles check profiles 0@i 9@i
echo ok
