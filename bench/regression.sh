#!/bin/bash
# regression-analysis `full`, all six models, on a trace profile of
# RESOURCES points (default 1,000,000: 1000 uids of 1000 points, about
# 17 MB of JSON), against the same fits in numpy (json.load and
# numpy.linalg.lstsq per uid, tests/cli/regression_ref.py) over the same
# file in the same run, and against Perun's own postprocessor, whose time
# (7.9 s, 556 MB) was measured once on this machine and is quoted, since
# Perun is not installed here. Also checks that both found the same models
# to 1e-6 relative, and reports peak memory against the file's size.
# usage: bench/regression.sh BUILD_DIR [RESOURCES]
set -euo pipefail

build=${1:?usage: regression.sh BUILD_DIR [RESOURCES]}
n=${2:-1000000}
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
veles=$build/src/cli/veles
ref=$here/../tests/cli/regression_ref.py
py=/usr/bin/python3
perun_s=7.9
for tool in "$py" /usr/bin/time "$veles"; do
	command -v "$tool" >/dev/null || { echo "regression.sh: $tool not found" >&2; exit 1; }
done
"$py" -c 'import numpy' || { echo "regression.sh: $py has no numpy" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
points=1000
uids=$(( (n + points - 1) / points ))
f=$tmp/trace.json
# Sizes and running times as a trace collector records them, every one
# positive so all six models apply; half the uids grow quadratically.
"$py" - "$f" "$uids" "$points" <<'PY'
import json, random, sys
rnd = random.Random(1)
out, uids, points = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
res, types = {}, {}
for u in range(uids):
    uid = f"SLList_op_{u}(SLList*, int)"
    key = uid + "#0"
    xs = [rnd.randrange(1, 1000000) for _ in range(points)]
    k = u % 7 + 1
    ys = [x * k // 3 + (x * x // 100000000 if u % 2 else 0) + rnd.randrange(1, 100000)
          for x in xs]
    res[key] = {"amount": ys, "structure-unit-size": xs}
    types[key] = {"subtype": "time delta", "uid": uid, "time": "6.8e-05s", "type": "mixed"}
json.dump({"origin": "f7f3dcea69b97f2b03c421a223a770917149cfae",
           "header": {"workload": "", "type": "mixed", "units": {"mixed(time delta)": "us"},
                      "params": "", "cmd": "../stap-collector/tst"},
           "collector_info": {"name": "complexity", "params": {"method": "custom"}},
           "postprocessors": [], "models": [], "resources": res, "resource_type_map": types},
          open(out, "w"))
PY
mkdir "$tmp/proj"
cd "$tmp/proj"
"$veles" init -q
# The two contenders take turns, TURNS times, so load drift on a shared
# machine hits both alike; the ratio is the median of per-turn ratios.
"$py" - "$f" "$tmp" "$veles" "$ref" "$py" "${TURNS:-7}" <<'PY' >"$tmp/times"
import statistics, subprocess, sys, time
f, tmp, veles, ref, py, turns = sys.argv[1:6] + [int(sys.argv[6])]
cmds = {"numpy": [py, ref, f, tmp + "/ref.json"],
        "veles": [veles, "postprocess", "-o", tmp + "/out.json", f, "regression-analysis"]}
got = {k: [] for k in cmds}
for turn in range(turns + 1):
    for k, cmd in cmds.items():
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if turn:  # the first turn warms the caches
            got[k].append(time.perf_counter() - t)
ratio = statistics.median(n / v for n, v in zip(got["numpy"], got["veles"]))
print(statistics.median(got["veles"]), statistics.median(got["numpy"]), ratio, turns)
PY
"$py" "$ref" --compare "$tmp/ref.json" "$tmp/out.json"
rss_kb=$(/usr/bin/time -f %M "$veles" postprocess -o "$tmp/out.json" "$f" regression-analysis \
	2>&1 >/dev/null | tail -1)
"$py" - "$tmp/times" "$(stat -c %s "$f")" "$rss_kb" "$((uids * points))" "$perun_s" \
	"$tmp/out.json" <<'PY'
import json, sys
ve, py, ratio, turns = (float(v) for v in open(sys.argv[1]).read().split())
size, rss_kb, n, perun = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
nmodels = len(json.load(open(sys.argv[6]))["models"])
mb = size / 1e6
print(f"regression-analysis full, 6 models, {n} points ({mb:.1f} MB, {nmodels} models): "
      f"veles {ve * 1e3:.0f} ms, numpy {py * 1e3:.0f} ms -> {ratio:.1f}x faster "
      f"(target >= 5x; medians of {turns:.0f} alternating turns); models agree to 1e-6")
print(f"  Perun's postprocessor: {perun:.1f} s (stated) -> {perun / ve:.0f}x faster (target >= 50x)")
rss = rss_kb * 1024 / 1e6
print(f"  peak RSS: veles {rss:.1f} MB = {rss / mb:.2f}x the JSON size (target < 1.5x; "
      f"Perun 556 MB)")
PY
