#!/bin/bash
# kernel-regression kernel-ridge, Perun's mode: gamma chosen from
# numpy.arange(LO, HI, STEP) by the least mean squared leave-one-out error
# of the Gaussian Nadaraya-Watson fit; checked against numpy computing it
# as Perun's KernelRidge does (pairwise kernel, diagonal zeroed, nanargmin),
# in Perun's spellings (-gr LO HI, -gs S, --kernel-mode) and the job matrix.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
$py -c "import numpy" 2>/dev/null || { echo "numpy is missing" >&2; exit 77; }

$py - <<'PY'
import json, math, random
random.seed(3)
res = []
for x in range(0, 2000, 37):
    for rep in range(2):
        y = 0.002 * x + 5 * math.sin(x / 150.0) + random.gauss(0, 1)
        res.append({"uid": "f", "type": "time", "amount": y, "structure-unit-size": x})
res += [{"uid": "two", "type": "time", "amount": a, "structure-unit-size": s}
        for a, s in ((1.5, 10), (2.5, 20))]
p = {"origin": "x", "header": {"type": "time", "cmd": "c", "args": "", "workload": "w",
     "units": {"time": "s"}}, "collector_info": {"name": "time", "params": {}},
     "postprocessors": [], "global": {"timestamp": 1, "resources": res}}
json.dump(p, open("kr.perf", "w"))
PY

cat >ref.py <<'PY'
# ref.py PROFILE LO HI STEP: the model of uid f against numpy's.
import json, sys
import numpy as np
p = json.load(open(sys.argv[1]))
lo, hi, step = map(float, sys.argv[2:5])
m = {x["uid"]: x for x in p["models"]}
res = [r for r in p["global"]["resources"] if r["uid"] == "f"]
x = np.array([r["structure-unit-size"] for r in res], float)
y = np.array([r["amount"] for r in res], float)
grid = np.arange(lo, hi, step)
mse = []
for g in grid:
    k = np.exp(-g * (x[:, None] - x[None, :]) ** 2)
    np.fill_diagonal(k, 0)
    err = (k * y[:, None]).sum(axis=0) / k.sum(axis=0) - y
    mse.append((err ** 2).mean())
mse = np.array(mse)
g = float(grid[np.nanargmin(mse) if not np.isnan(mse).all() else 0])
k = np.exp(-g * (x[:, None] - x[None, :]) ** 2)
pred = (k * y[:, None]).sum(axis=0) / k.sum(axis=0)
r2 = 1 - ((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum()
xs = np.unique(x)
kx = np.exp(-g * (x[:, None] - xs[None, :]) ** 2)
curve = (kx * y[:, None]).sum(axis=0) / kx.sum(axis=0)
f = m["f"]
assert f["model"] == "kernel" and f["method"] == "kernel-ridge", f
assert f["kernel_mode"] == "ridge" and f["gamma"] == g, (f["gamma"], g)
assert abs(f["bandwidth"] - 1 / np.sqrt(2 * g)) < 1e-12 * f["bandwidth"], f["bandwidth"]
assert abs(f["r_square"] - r2) < 1e-9, (f["r_square"], r2)
assert list(f["x_values"]) == list(xs), f["x_values"]
assert np.max(np.abs(np.array(f["bucket_stats"]) - curve)) < 1e-9
# Perun fits nothing below three points: the curve is the points.
t = m["two"]
assert t["kernel_mode"] == "manually" and t["bucket_stats"] == [1.5, 2.5], t
print(g)
PY

# Perun's defaults, 1e-5 .. 1e-4 by 1e-5.
ok veles postprocess -o out.perf kr.perf kernel-regression kernel-ridge
ok $py ref.py out.perf 1e-5 1e-4 1e-5
ok $py -c "import json; print(json.load(open('out.perf'))['postprocessors'][-1]['params'])"
has "$T/out" "'kernel_mode': 'kernel-ridge', 'gamma_range': \[1e-05, 0.0001\], 'gamma_step': 1e-05"
# Perun's short options, and a range where the best gamma is inside it.
ok veles postprocess -o out2.perf kr.perf kernel-regression kernel-ridge -gr 1e-5 1e-3 -gs 5e-5
ok $py ref.py out2.perf 1e-5 1e-3 5e-5
has "$T/out" "^0.00021$"
ok veles postprocess -o out3.perf kr.perf kernel-regression --kernel-mode kernel-ridge \
	--gamma-range=1e-5,1e-3 --gamma-step 5e-5
cmp -s <($py -c "import json; print(json.load(open('out2.perf'))['models'])") \
	<($py -c "import json; print(json.load(open('out3.perf'))['models'])") || fail "spellings differ"

# The job matrix, with Perun's parameter names.
cat >>.veles/config.yml <<'EOF'
cmds:
  - /bin/true
workloads:
  - sizes
generators:
  workload:
    - id: sizes
      type: integer
      min_range: 1
      max_range: 6
collectors:
  - name: time
    params:
      repeat: 1
postprocessors:
  - name: kernel_regression
    params:
      kernel_mode: kernel-ridge
      gamma_range: [1e-5, 1e-3]
      gamma_step: 5e-5
EOF
ok veles run matrix -q
ok $py - "$(json_of "$(newest)")" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["postprocessors"][-1]["params"]["kernel_mode"] == "kernel-ridge", p["postprocessors"]
ms = [m for m in p["models"] if m["model"] == "kernel"]
assert ms and all(m["kernel_mode"] == "ridge" for m in ms), ms
assert all(m["x_values"] == [1, 2, 3, 4, 5, 6] for m in ms), ms
PY

fails 1 veles postprocess -o x.perf kr.perf kernel-regression kernel-ridge -gr 1e-3 1e-5
has "$T/err" "want 0 < LO < HI"
fails 1 veles postprocess -o x.perf kr.perf kernel-regression kernel-ridge -gr 1e-5 1e-4 -gs 1e-3
has "$T/err" "--gamma-step"
fails 1 veles postprocess -o x.perf kr.perf kernel-regression kernel-ridge --gamma-range 1e-5
fails 1 veles postprocess -o x.perf kr.perf kernel-regression --kernel-mode kernel-smoothing
has "$T/err" "only kernel-ridge"
[ ! -e x.perf ] || fail "a refused postprocess wrote x.perf"
ok veles postprocess kernel-regression --help
has "$T/out" "kernel-ridge"
