#!/bin/bash
# A postprocessor's notes (a model regression-analysis could not fit)
# reach the user as warnings on every path that runs the job matrix:
# `run matrix`, `check --collect-missing` and `check --remeasure`.
. "$(dirname "$0")/lib.sh"
new_git_project p

printf '#!/bin/sh\ntrue\n' >prog && chmod +x prog
git add prog && git commit -qm "prog" || fail commit
# One literal workload: one size, so only the constant model can be fitted.
cat >.veles/config.yml <<'Y'
cmds: [./prog]
workloads: ["7"]
collectors:
  - name: time
    params: {repeat: 2}
postprocessors:
  - name: regression-analysis
Y
note="^veles: warning: postprocess regression-analysis: \./prog \[real\] and 3 more: linear, logarithmic, quadratic, power, exponential not fitted: 'structure-unit-size' has one value only"
git commit -q --allow-empty -m "two" || fail commit

ok veles run matrix
has "$T/err" "$note"
[ "$(grep -c warning "$T/err")" -eq 1 ] || fail "one warning from run matrix"
ok veles add -m HEAD .veles/jobs/*.perf

# The parent has no profile: --collect-missing measures it there.
veles check head --collect-missing -q >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err" >&2; fail "check --collect-missing"; }
has "$T/err" "$note"
[ "$(grep -c warning "$T/err")" -eq 1 ] || fail "one warning from --collect-missing"

# --remeasure postprocesses each side's rounds once: a note each.
veles check head --remeasure --max-rounds 2 --on real --seed 1 -q >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err" >&2; fail "check --remeasure"; }
has "$T/err" "$note"
[ "$(grep -c "$note" "$T/err")" -eq 2 ] || fail "a warning per side from --remeasure"
has "$T/err" "^check: \./prog \(workload 7\) · time \+ regression-analysis on real: 2 rounds"
true
