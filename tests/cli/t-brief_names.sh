#!/bin/bash
# A configuration is named briefly: check's text, markdown and JUnit, and
# log --perf name the postprocessors, not their JSON; two configurations
# that would read alike are named in full; --verbose and --format json keep
# every parameter. show summary prints models as a table. The markdown of a
# big report is cut to fit a pull request comment, saying what was cut.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
# Crafted profiles (no timing): NLOC locations, 7 values each; the target
# 60% slower at the first location. Two configurations differ only in the
# normalizer's parameters.
$py - "$T" <<'PY'
import json, sys
d = sys.argv[1]
def profile(path, f, of, nloc=3, pp=True):
    res = [{"uid": "loc%04d" % l, "type": "time", "subtype": "real", "order": k,
            "amount": 0.01 * (1 + l) * (f if l == 0 else 1) * (1 + 0.002 * k)}
           for l in range(nloc) for k in range(7)]
    p = {"header": {"type": "time", "cmd": "./prog", "args": "100", "workload": "100",
                    "units": {"time": "s"}},
         "collector_info": {"name": "time", "params": {"repeat": 7}},
         "global": {"resources": res}}
    if pp:
        p["postprocessors"] = [{"name": "normalizer", "params": {"of_key": of, "note": "x" * 150}}]
    json.dump(p, open(path, "w"))
profile(d + "/a1.perf", 1.0, "amount")
profile(d + "/a2.perf", 1.6, "amount")
profile(d + "/b1.perf", 1.0, "order")
profile(d + "/b2.perf", 1.6, "order")
profile(d + "/big1.perf", 1.0, "amount", nloc=1500, pp=False)
profile(d + "/big2.perf", 1.6, "amount", nloc=1500, pp=False)
PY
ok veles add -q --force "$T/a1.perf"
commit_change "slower"
ok veles add -q --force "$T/a2.perf"

# One configuration: its brief title, no JSON anywhere.
veles check head >"$T/out"
[ $? -eq 1 ] || fail "a 60% slowdown must fail the check"
has "$T/out" "^\./prog 100 · time \+ normalizer$"
hasnt "$T/out" '\{"name"'
veles check head -v >"$T/out"
has "$T/out" "^\./prog 100 · time \+ normalizer\(of_key=amount, note=x{150}\)$"
veles check head --format markdown >"$T/md"
has "$T/md" "^#### \./prog 100 · time \+ normalizer$"
hasnt "$T/md" '\{"name"|of_key'
veles check head --format junit >"$T/out"
has "$T/out" 'classname="\./prog 100 · time \+ normalizer"'
veles check head --format json >"$T/out"
$py - "$T/out" <<'PY' || fail "json keeps the parameters"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert all(x["config"] == "./prog 100 · time + normalizer" for x in r), r[0]
assert all(x["config_full"].startswith("./prog 100 · time + normalizer(of_key=amount, note=xxx")
           for x in r), r[0]
PY
ok veles log --perf loc0000
has "$T/out" "^\./prog 100 · time \+ normalizer: loc0000 \[real\]  \(2 versions"
veles log --perf loc0000 --format json >"$T/out"
$py - "$T/out" <<'PY' || fail "log --perf json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s[0]["config"] == "./prog 100 · time + normalizer", s[0]["config"]
assert "of_key=amount" in s[0]["config_full"]
PY

# Two configurations that read alike: both named in full.
ok veles add -q --force -m HEAD~1 "$T/b1.perf"
ok veles add -q --force "$T/b2.perf"
veles check head >"$T/out"
has "$T/out" "^\./prog 100 · time \+ normalizer\(of_key=amount, note=x+\)$"
has "$T/out" "^\./prog 100 · time \+ normalizer\(of_key=order, note=x+\)$"
veles check head --format markdown >"$T/md"
[ "$(grep -c '^#### ' "$T/md")" -eq 2 ] || fail "one section per configuration"
has "$T/md" "^#### \./prog 100 · time \+ normalizer\(of_key=order"
# Sections that fail first; every section's detail folded.
[ "$(grep -c '^<details><summary>All 3 results</summary>$' "$T/md")" -eq 2 ] || fail "details"
has "$T/md" '^\| loc0000 \[real\] \| \*\*(Severe|Total)?Degradation\*\* \|'
# --max-chars: the detail goes first, then whole sections, said at the end.
veles check head --format markdown --max-chars 1500 >"$T/md"
[ "$(wc -c <"$T/md")" -le 1500 ] || fail "over 1500 bytes: $(wc -c <"$T/md")"
has "$T/md" "^_Cut to fit 1500 characters: the detail of 2 configurations\. .veles check --format json. has every result\._$"
hasnt "$T/md" "<details>"
veles check head --format markdown --max-chars 1100 >"$T/md"
[ "$(wc -c <"$T/md")" -le 1100 ] || fail "over 1100 bytes"
[ "$(grep -c '^#### ' "$T/md")" -eq 1 ] || fail "one section left"
has "$T/md" "Cut to fit 1100 characters: the detail of 1 configuration; and 1 more configuration \(3 results\)\."
fails 2 veles check head --max-chars lots

# A report of 1500 locations fits a comment by default.
commit_change "big"
ok veles add -q --force -m HEAD~1 "$T/big1.perf"
ok veles add -q --force "$T/big2.perf"
veles check head --format markdown >"$T/md"
size=$(wc -c <"$T/md")
[ "$size" -le 60000 ] || fail "the default markdown is $size bytes"
has "$T/md" "^#### \./prog 100 · time$"
has "$T/md" "^\| loc0000 \[real\] \| \*\*"
has "$T/md" "^_Cut to fit 60000 characters: the detail of 1 configuration"
veles check head --format markdown --max-chars 0 >"$T/md"
[ "$(grep -c '^| loc.* | stat |$' "$T/md")" -eq 1500 ] || fail "no limit: every row"

# show summary: postprocessors by name, models as a table.
$py - "$T" <<'PY'
import json, sys
res = [{"uid": "f", "type": "time", "amount": 2.0 + 3.0 * n + 0.01 * k, "structure-unit-size": n}
       for n in range(1, 9) for k in range(3)]
json.dump({"header": {"type": "time", "cmd": "./f", "units": {"time": "s"}},
           "collector_info": {"name": "time"}, "global": {"resources": res}},
          open(sys.argv[1] + "/sized.perf", "w"))
PY
ok veles postprocess "$T/sized.perf" regression-analysis -r linear -r quadratic
ok veles show 0@p summary
has "$T/out" "^Postprocessors: regression-analysis$"
has "$T/out" "^Models: +2$"
has "$T/out" "^model +uid +coefficients +r² +x range$"
has "$T/out" "^linear +f +b0=2\.0[0-9]* b1=3(\.0[0-9]*)? +(1|0\.99[0-9]*) +1 \.\. 8$"
has "$T/out" "^quadratic +f +b0=[-0-9.e]+ b1=[-0-9.e]+ b2=[-0-9.e]+ +(1|0\.99[0-9]*) +1 \.\. 8$"
hasnt "$T/out" '"coeffs"'
ok veles show -v 0@p summary
has "$T/out" '^Models: +\[\{"uid":"f".*"coeffs"'
has "$T/out" '^Postprocessors: \[\{"name":"regression-analysis"'
veles show 0@p summary --format json >"$T/out"
$py - "$T/out" <<'PY' || fail "summary json"
import json, sys
s = json.load(open(sys.argv[1]))
assert [m["model"] for m in s["models"]] == ["linear", "quadratic"], s["models"]
assert s["postprocessors"][0]["name"] == "regression-analysis"
PY
