#!/bin/bash
# bench/smoothing.sh BUILD_DIR: the smoothing postprocessors on one uid of
# 100,000 points (continuous x, so every x is distinct) against the same
# computation in numpy/scipy, each side reading the profile's JSON itself:
#   moving-average sma      scipy.ndimage.uniform_filter1d
#   moving-average smm      scipy.ndimage.median_filter
#   moving-average hamming  numpy.convolve with scipy's window
#   regressogram            numpy.histogram (sum and count)
#   kernel-regression       Nadaraya-Watson/local linear at 1000 x, in
#                           numpy blocks of 100 x against all points
# Each pair takes turns ROUNDS times (default 3); ratios are medians of the
# per-turn ratios, veles / numpy (below 1: Veles is faster).
set -eu
build=$(cd "${1:-build}" && pwd)
veles=$build/src/cli/veles
PY=/usr/bin/python3
[ -x "$veles" ] || { echo "smoothing: build $veles first" >&2; exit 1; }
$PY -c 'import numpy, scipy.ndimage' || { echo "smoothing: needs python3-numpy, python3-scipy" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q project && cd project
"$veles" init >/dev/null

$PY - "$veles" "${ROUNDS:-3}" <<'EOS'
import json, statistics, subprocess, sys, time
import numpy as np
veles, rounds = sys.argv[1], int(sys.argv[2])
n = 100_000
rng = np.random.default_rng(1)
x = rng.uniform(0, 1000, n); y = np.sqrt(x) * 3 + rng.normal(0, 2, n)
json.dump({"header": {"type": "mixed", "cmd": "bench", "workload": "", "params": "",
           "units": {"mixed(time delta)": "us"}},
           "collector_info": {"name": "bench", "params": {}}, "postprocessors": [], "models": [],
           "resources": {"f#0": {"amount": y.tolist(), "structure-unit-size": x.tolist()}},
           "resource_type_map": {"f#0": {"uid": "f", "type": "mixed"}}}, open("p.perf", "w"))
peer = r'''
import json, sys
import numpy as np
from scipy import ndimage
from scipy.signal.windows import get_window
r = json.load(open("p.perf"))["resources"]["f#0"]
x = np.array(r["structure-unit-size"]); y = np.array(r["amount"])
o = np.argsort(x, kind="stable"); x, y = x[o], y[o]
what, w = sys.argv[1], (len(x) + 9) // 10
if what == "sma":
    ndimage.uniform_filter1d(y, w, mode="nearest")
elif what == "smm":
    ndimage.median_filter(y, w, mode="nearest")
elif what == "hamming":
    k = get_window("hamming", w, fftbins=False)
    np.convolve(y, k, "same") / np.convolve(np.ones_like(y), k, "same")
elif what == "regressogram":
    e = np.histogram_bin_edges(x, "auto")
    np.histogram(x, e, weights=y)[0] / np.maximum(np.histogram(x, e)[0], 1)
else:
    iqr = (np.percentile(x, 75) - np.percentile(x, 25)) / 1.349
    h = 1.059 * min(np.std(x, ddof=1), iqr) * len(x) ** -0.2
    at = np.linspace(x[0], x[-1], 1000)
    for b in range(0, 1000, 100):
        d = x[None, :] - at[b:b + 100, None]
        w_ = np.exp(-0.5 * (d / h) ** 2)
        s0, s1, s2 = w_.sum(1), (w_ * d).sum(1), (w_ * d * d).sum(1)
        t0, t1 = (w_ * y).sum(1), (w_ * d * y).sum(1)
        (s2 * t0 - s1 * t1) / (s0 * s2 - s1 * s1)
'''
open("peer.py", "w").write(peer)
cases = {
    "sma": ["moving-average"],
    "smm": ["moving-average", "--method", "smm"],
    "hamming": ["moving-average", "--window-type", "hamming"],
    "regressogram": ["regressogram"],
    "kernel": ["kernel-regression"],
}
def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
for name, args in cases.items():
    ratios, vt, pt = [], [], []
    for _ in range(rounds):
        v = timed([veles, "postprocess", "-o", "out.perf", "p.perf", *args])
        p = timed([sys.executable, "peer.py", name])
        ratios.append(v / p); vt.append(v); pt.append(p)
    print(f"{name:13s} veles {statistics.median(vt):6.3f} s  numpy {statistics.median(pt):6.3f} s"
          f"  ratio {statistics.median(ratios):.2f}")
EOS
