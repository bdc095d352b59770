#!/bin/bash
# veles postprocess moving-average, regressogram and kernel-regression: the
# models they write, checked against reference computations in numpy and
# scipy (pandas' rolling/ewm, numpy.histogram_bin_edges and statsmodels'
# KernelReg formulas written out) to 1e-6 relative.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import numpy, scipy.signal' 2>/dev/null || fail "needs python3-numpy and python3-scipy (scripts/deps.sh)"
new_git_project p
cp "$VELES_SRCDIR/tests/data/profiles/trace.perf" .veles/jobs/

# trace.perf through the pending-profile path: one model per uid.
for pp in moving-average regressogram kernel-regression; do
	ok veles postprocess 0@p $pp
	has "$T/err" "profile written to .veles/jobs/tst-$pp-"
done
# shellcheck disable=SC2046
python3 - $(for f in .veles/jobs/tst-*.perf; do json_of "$f"; done) <<'PY' || fail "models of trace.perf"
import json, sys
kinds = {"moving-average": "moving_average", "regressogram": "regressogram",
         "kernel-regression": "kernel"}
for f in sys.argv[1:]:
    p = json.load(open(f))
    [rec] = p["postprocessors"]
    models = p["models"]
    assert len(models) == 4, (f, models)
    assert {m["uid"] for m in models} == {"SLList_insert(SLList*, int)", "SLList_destroy(SLList*)",
                                          "SLList_init(SLList*)", "SLList_search(SLList*, int)"}
    for m in models:
        assert m["model"] == kinds[rec["name"]], m
        assert m["of_key"] == "amount" and m["per_key"] == "structure-unit-size", m
        assert len(m["x_values"]) == len(m["bucket_stats"]) >= 1, m
        assert m["x_values"] == sorted(m["x_values"]), m
        assert 0 <= m["r_square"] <= 1 or m["model"] != "regressogram", m
    if rec["name"] == "moving-average":
        assert rec["params"] == {"method": "sma", "window_width": None, "center": True,
                                 "min_periods": 1, "window_type": "boxcar", "decay": "span",
                                 "decay_value": None, "of": "amount",
                                 "per": "structure-unit-size"}, rec
        ins = [m for m in models if m["uid"].startswith("SLList_insert")][0]
        # amounts 1 0 1 1 at sizes 0..3, centred width 3 (the least default)
        assert ins["bucket_stats"] == [0.5, 2 / 3, 2 / 3, 1.0], ins
        assert ins["window_width"] == 3 and ins["method"] == "sma", ins
    if rec["name"] == "regressogram":
        assert rec["params"]["bucket_method"] == "auto", rec
    if rec["name"] == "kernel-regression":
        assert rec["params"] == {"estimator": "local-linear", "bandwidth": "scott",
                                 "kernel": "normal", "of": "amount",
                                 "per": "structure-unit-size"}, rec
PY

# A second smoothing appends its models to the first's.
ok veles postprocess -o "$T/twice.perf" "$(ls .veles/jobs/tst-regressogram-*.perf)" moving-average
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert [m["model"] for m in p["models"]] == ["regressogram"] * 4 + ["moving_average"] * 4, p["models"]
assert [r["name"] for r in p["postprocessors"]] == ["regressogram", "moving-average"]
' "$T/twice.perf" || fail "models appended"

# Generated profiles: integer sizes with repeats and continuous ones, two
# uids each, plus a uid of 3000 distinct x (kernel-regression's grid).
$PY - "$T" <<'PY' || fail "generating profiles"
import json, sys
import numpy as np
rng = np.random.default_rng(7)
def profile(path, uids):
    res, tmap = {}, {}
    for i, (uid, x, y) in enumerate(uids):
        key = f"{uid}#0"
        res[key] = {"amount": [float(v) for v in y], "structure-unit-size": [float(v) for v in x]}
        tmap[key] = {"uid": uid, "type": "mixed", "subtype": "time delta"}
    p = {"origin": "0" * 40, "header": {"type": "mixed", "cmd": "gen", "workload": "w", "params": "",
         "units": {"mixed(time delta)": "us"}}, "collector_info": {"name": "gen", "params": {}},
         "postprocessors": [], "models": [], "resources": res, "resource_type_map": tmap}
    json.dump(p, open(path, "w"))
x1 = rng.integers(0, 60, 400); y1 = 5 + 0.3 * x1 ** 1.5 + rng.normal(0, 8, 400)
x2 = rng.integers(0, 8, 50); y2 = rng.exponential(10, 50)
profile(sys.argv[1] + "/int.perf", [("f", x1, y1), ("g", x2, y2)])
x3 = rng.uniform(0, 100, 300); y3 = np.sin(x3 / 10) * 20 + rng.normal(0, 3, 300)
x4 = rng.lognormal(2, 0.7, 120); y4 = 2 * x4 + rng.normal(0, 5, 120)
profile(sys.argv[1] + "/flt.perf", [("s", x3, y3), ("l", x4, y4)])
x5 = rng.uniform(0, 1000, 3000); y5 = x5 / 10 + rng.normal(0, 4, 3000)
profile(sys.argv[1] + "/grid.perf", [("big", x5, y5)])
x6 = np.append(rng.uniform(0, 1, 1000), 1e12); y6 = rng.normal(0, 1, 1001)
profile(sys.argv[1] + "/outlier.perf", [("o", x6, y6)])
PY

# Runs every configuration into $T/NAME-N.perf and checks each against numpy.
VELES_RUN="$VELES" $PY - "$T" <<'PY' || fail "numerical agreement with numpy/scipy"
import json, os, subprocess, sys
import numpy as np
from scipy.signal.windows import get_window
T, veles = sys.argv[1], os.environ["VELES_RUN"]
np.seterr(all="ignore")  # blackman's zero end weights give 0/0 = no value, as in pandas
RTOL = 1e-6
runs = 0

def run(src, *args):
    global runs
    runs += 1
    out = f"{T}/out-{runs}.perf"
    subprocess.run([veles, "postprocess", "-o", out, f"{T}/{src}.perf", *args], check=True,
                   stderr=subprocess.DEVNULL)
    return json.load(open(out))

def points(src):
    p = json.load(open(f"{T}/{src}.perf"))
    for key, r in p["resources"].items():
        x, y = np.array(r["structure-unit-size"]), np.array(r["amount"])
        o = np.argsort(x, kind="stable")
        yield p["resource_type_map"][key]["uid"], x[o], y[o]

def close(got, want, what):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    bad = ~(np.abs(got - want) <= RTOL * np.abs(want) + 1e-12 * scale)
    assert not bad.any(), (what, got[bad][:5], want[bad][:5])

def r2(y, fit):
    ok = ~np.isnan(fit)
    y, fit = y[ok], fit[ok]
    tot = ((y - y.mean()) ** 2).sum(); res = ((y - fit) ** 2).sum()
    return (1.0 if res == 0 else 0.0) if tot == 0 else 1 - res / tot

def model(p, uid):
    [m] = [m for m in p["models"] if m["uid"] == uid]
    return m

# --- moving averages, as pandas rolling(w, center, min_periods, win_type) and ewm(adjust=True)
def rolling(y, w, center, minp, agg, weights):
    right = (w - 1) // 2 if center else 0
    left = w - 1 - right
    out = np.full(len(y), np.nan)
    for i in range(len(y)):
        lo, hi = max(0, i - left), min(len(y), i + right + 1)
        if hi - lo < minp:
            continue
        if agg == "median":
            out[i] = np.median(y[lo:hi])
        else:
            wt = weights[lo - (i - left): hi - (i - left)]
            out[i] = (wt * y[lo:hi]).sum() / wt.sum()
    return out

def ewm(y, alpha, minp):
    out = np.full(len(y), np.nan)
    for i in range(len(y)):
        wt = (1 - alpha) ** np.arange(i, -1, -1)
        if i + 1 >= max(minp, 1):
            out[i] = (wt * y[: i + 1]).sum() / wt.sum()
    return out

def check_ma(p, src, method, w, center, minp, wtype="boxcar", alpha=None):
    for uid, x, y in points(src):
        m = model(p, uid)
        if method == "ema":
            want = ewm(y, alpha, minp)
            close(m["alpha"], alpha, "alpha")
        else:
            ww = m["window_width"]
            assert w is None or ww == w, (m, w)
            if w is None:
                assert ww == min(max(3, -(-len(y) // 10)), len(y)), m
            weights = get_window(wtype, ww, fftbins=False) if wtype != "boxcar" else np.ones(ww)
            want = rolling(y, ww, center, minp, "median" if method == "smm" else "mean", weights)
        ok = ~np.isnan(want)
        close(m["x_values"], x[ok], f"{method} x {uid}")
        close(m["bucket_stats"], want[ok], f"{method} {wtype} {uid}")
        close(m["r_square"], r2(y, want), f"{method} r2 {uid}")
        assert m["model"] == "moving_average" and m["method"] == method, m

for src in ("int", "flt"):
    for wtype in ("boxcar", "triang", "blackman", "hamming", "bartlett", "parzen", "bohman",
                  "blackmanharris", "nuttall", "barthann"):
        for w, center in ((7, True), (6, False), (6, True)):
            p = run(src, "moving-average", "--window-width", str(w), "--window-type", wtype,
                    *([] if center else ["--no-center"]))
            check_ma(p, src, "sma", w, center, 1, wtype)
    check_ma(run(src, "moving-average"), src, "sma", None, True, 1)
    check_ma(run(src, "moving-average", "--window-width", "9", "--min-periods", "5"),
             src, "sma", 9, True, 5)
    check_ma(run(src, "moving-average", "--method", "smm", "--window-width", "8"),
             src, "smm", 8, True, 1)
    check_ma(run(src, "moving-average", "--method", "smm", "--window-width", "5", "--no-center",
                 "--min-periods", "3"), src, "smm", 5, False, 3)
    for decay, v, alpha in (("com", 3, 1 / 4), ("span", 9, 2 / 10),
                            ("halflife", 2.5, 1 - np.exp(-np.log(2) / 2.5)), ("alpha", 0.3, 0.3)):
        check_ma(run(src, "moving-average", "--method", "ema", "--decay", decay,
                     "--decay-value", str(v)), src, "ema", None, True, 1, alpha=alpha)

# --- regressograms, as numpy.histogram_bin_edges and a statistic per bucket
def check_rg(p, src, bins, stat):
    for uid, x, y in points(src):
        m = model(p, uid)
        edges = np.histogram_bin_edges(x, bins)
        nb = len(edges) - 1
        idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, nb - 1)
        f = np.median if stat == "median" else np.mean
        want = np.array([f(y[idx == b]) if (idx == b).any() else 0.0 for b in range(nb)])
        close(m["x_values"], edges[:-1], f"edges {bins} {uid}")
        close(m["x_end"], edges[-1], "x_end")
        close(m["bucket_stats"], want, f"{bins} {stat} {uid}")
        close(m["r_square"], r2(y, want[idx]), f"rg r2 {uid}")
        assert m["bucket_number"] == nb and m["statistic_function"] == stat, m

for src in ("int", "flt", "grid"):
    for bins in ("auto", "doane", "fd", "rice", "scott", "sqrt", "sturges"):
        for stat in ("mean", "median"):
            p = run(src, "regressogram", "--bucket-method", bins, "--statistic-function", stat)
            check_rg(p, src, bins, stat)
            assert p["models"][0]["method"] == bins
    check_rg(run(src, "regressogram", "--bucket-number", "7"), src, 7, "mean")

# --- kernel regression, statsmodels' KernelReg 'lc'/'ll' and bw_scott/bw_silverman
K = {"normal": lambda u: np.exp(-u * u / 2),
     "epanechnikov": lambda u: np.where(np.abs(u) <= 1, 0.75 * (1 - u * u), 0),
     "tricube": lambda u: np.where(np.abs(u) <= 1, 70 / 81 * (1 - np.abs(u) ** 3) ** 3, 0)}

def kfit(x, y, at, h, kern, ll):
    out = []
    for a in at:
        d = x - a; w = K[kern](d / h)
        s0, s1, s2 = w.sum(), (w * d).sum(), (w * d * d).sum()
        if ll and s2 > 0 and s0 * s2 - s1 * s1 > 1e-12 * s0 * s2:
            X = np.stack([np.ones_like(d), d], 1)
            out.append(np.linalg.solve(X.T @ (w[:, None] * X), X.T @ (w * y))[0])
        else:
            out.append((w * y).sum() / w.sum())
    return np.array(out)

def rule(x, factor):
    iqr = (np.percentile(x, 75) - np.percentile(x, 25)) / 1.349
    return factor * min(np.std(x, ddof=1), iqr) * len(x) ** -0.2

def loo(x, y, h, kern, ll):
    s = 0.0
    for i in range(len(x)):
        keep = np.arange(len(x)) != i
        s += (y[i] - kfit(x[keep], y[keep], [x[i]], h, kern, ll)[0]) ** 2
    return s

for src in ("int", "flt"):
    for kern in ("normal", "epanechnikov", "tricube"):
        for est in ("local-linear", "nadaraya-watson"):
            for bw in ("scott", "silverman", "12.5"):
                p = run(src, "kernel-regression", "--kernel", kern, "--estimator", est,
                        "--bandwidth", bw)
                for uid, x, y in points(src):
                    m = model(p, uid)
                    h = {"scott": rule(x, 1.059), "silverman": rule(x, 0.9)}.get(bw, 12.5)
                    close(m["bandwidth"], h, "bandwidth")
                    ll = est == "local-linear"
                    at = np.unique(x)
                    want = kfit(x, y, at, h, kern, ll)
                    ok = ~np.isnan(want)
                    close(m["x_values"], at[ok], "kr x")
                    close(m["bucket_stats"], want[ok], f"kr {kern} {est} {bw} {uid}")
                    fit = kfit(x, y, x, h, kern, ll)
                    close(m["r_square"], r2(y, fit), "kr r2")
                    assert (m["model"], m["method"], m["kernel"]) == ("kernel", est, kern), m

# Cross-validation: the bandwidth chosen is a minimum of the leave-one-out
# squared error (inside the searched range, [h/16, 4h 2^(1/4)] for Scott's h).
for est in ("local-linear", "nadaraya-watson"):
    p = run("flt", "kernel-regression", "--bandwidth", "cv", "--estimator", est)
    for uid, x, y in points("flt"):
        m = model(p, uid); h = m["bandwidth"]; ll = est == "local-linear"
        hi = rule(x, 1.059) * 4 * 2 ** 0.25
        c = loo(x, y, h, "normal", ll)
        assert c <= loo(x, y, h * 0.98, "normal", ll) * (1 + 1e-9), (uid, est, h)
        assert h >= hi * 0.999 or c <= loo(x, y, h * 1.02, "normal", ll) * (1 + 1e-9), (uid, est, h)
        assert m["bandwidth_method"] == "cv", m

# More than 2000 distinct x: cross-validation searches on binned data, in
# the same range.
p = run("grid", "kernel-regression", "--bandwidth", "cv", "--kernel", "epanechnikov")
[(uid, x, y)] = points("grid")
h0 = rule(x, 1.059)
assert h0 / 16 / 2 ** 0.25 <= model(p, uid)["bandwidth"] <= h0 * 4 * 2 ** 0.25, model(p, uid)

# More than 1000 distinct x: the curve on 1000 evenly spaced points.
p = run("grid", "kernel-regression", "--kernel", "epanechnikov", "--bandwidth", "40")
[(uid, x, y)] = points("grid")
m = model(p, uid)
at = np.linspace(x[0], x[-1], 1000)
close(m["x_values"], at, "grid x")
close(m["bucket_stats"], kfit(x, y, at, 40, "epanechnikov", True), "grid fit")
print(runs, "runs agree")
PY

# Bad options: one line, exit 1, nothing written.
n=$(npending)
fails 1 veles postprocess 0 moving-average --method wma
fails 1 veles postprocess 0 moving-average --window-width 0
fails 1 veles postprocess 0 moving-average --window-width 2.5
fails 1 veles postprocess 0 moving-average --window-type gaussian
fails 1 veles postprocess 0 moving-average --window-width 3 --min-periods 4
fails 1 veles postprocess 0 moving-average --decay com
fails 1 veles postprocess 0 moving-average --decay alpha --decay-value 1.5
fails 1 veles postprocess 0 moving-average --decay span --decay-value 0.5
fails 1 veles postprocess 0 moving-average --decay halflife --decay-value 0
fails 1 veles postprocess 0 moving-average --center=yes
fails 1 veles postprocess 0 regressogram --bucket-method knuth
fails 1 veles postprocess 0 regressogram --bucket-number 0
fails 1 veles postprocess 0 regressogram --statistic-function mode
fails 1 veles postprocess 0 kernel-regression --kernel gaussian
fails 1 veles postprocess 0 kernel-regression --bandwidth -1
fails 1 veles postprocess 0 kernel-regression --bandwidth aic
fails 1 veles postprocess 0 kernel-regression --estimator ll
fails 1 veles postprocess 0 kernel-regression --of nosuchkey
fails 1 veles postprocess 0 regressogram extra
# fd's buckets for 1000 points in [0, 1] and one at 1e12: 10^13 of them
fails 1 veles postprocess "$T/outlier.perf" regressogram --bucket-method fd
has "$T/err" "give --bucket-number"
ok veles postprocess -o "$T/o.perf" "$T/outlier.perf" regressogram --bucket-method sturges
[ "$(npending)" -eq "$n" ] || fail "a failed run wrote a profile"
# Windows far wider than the data cost no more than the data.
ok veles postprocess -o "$T/w.perf" "$T/int.perf" moving-average --window-width 100000000 \
	--window-type hamming
ok veles postprocess -o "$T/w.perf" "$T/int.perf" moving-average --window-width 100000000 \
	--method smm
python3 -c '
import json, statistics, sys
p, src = (json.load(open(f)) for f in sys.argv[1:])
y = src["resources"]["g#0"]["amount"]
[m] = [m for m in p["models"] if m["uid"] == "g"]
assert all(abs(v - statistics.median(y)) < 1e-9 for v in m["bucket_stats"]), m
' "$T/w.perf" "$T/int.perf" || fail "a window wider than the data"
for pp in moving-average regressogram kernel-regression; do
	ok veles postprocess 0 $pp --help
	has "$T/out" "--of KEY"
	has "$T/out" "--per KEY"
done

# The time collector's layout: real, user and sys of one command are
# smoothed apart, and their models name the subtype.
$PY - "$T/rus.perf" <<'PY'
import json, sys
res = [{"uid": "./prog", "type": "time", "subtype": sub, "order": 1,
        "amount": y * n, "structure-unit-size": n}
       for n in range(1, 9) for sub, y in (("real", 0.01), ("user", 0.002), ("sys", 0.0))]
json.dump({"origin": "0" * 40, "header": {"type": "time", "cmd": "./prog", "params": "",
           "workload": "", "units": {"time": "s"}},
           "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
           "global": {"timestamp": 1.0, "resources": res}}, open(sys.argv[1], "w"))
PY
for pp in moving-average regressogram kernel-regression; do
	ok veles postprocess -o "$T/rus-$pp.perf" "$T/rus.perf" $pp
	$PY -c '
import json, sys
m = json.load(open(sys.argv[1]))["models"]
assert sorted((x["uid"], x["subtype"]) for x in m) == [
    ("./prog", "real"), ("./prog", "sys"), ("./prog", "user")], m
for x in m:
    top = {"real": 0.08, "user": 0.016, "sys": 0}[x["subtype"]]
    assert max(x["bucket_stats"]) <= top + 1e-12, x
' "$T/rus-$pp.perf" || fail "$pp: subtypes apart"
done
echo ok
