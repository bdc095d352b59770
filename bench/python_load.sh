#!/bin/bash
# The Python binding against json + pandas: a 1,000,000-resource profile
# (bench/gen_profile.py, both layouts of bench/profile_load.sh) into a
# pandas DataFrame, one row per resource, by
#   veles:  veles.load(f).to_dataframe()
#   pandas: pandas.DataFrame(json.load(f)["global"]["resources"]) for the
#           seed's time layout; for the typed layout, a frame per resource
#           type (its columns plus its attributes), concatenated.
# The frames are compared before timing. The target (>= 5x) is the load
# itself, as an interactive session sees it: each side in its own python3
# with pandas imported, the best of 5 runs (best, as the machine may be
# shared). The whole command, interpreter start-up and `import pandas`
# included (the same ~0.4 s CPU on both sides), is printed beside it
# (hyperfine).
# usage: bench/python_load.sh BUILD_DIR [RESOURCES]
set -euo pipefail

build=$(cd "${1:?usage: python_load.sh BUILD_DIR [RESOURCES]}" && pwd)
n=${2:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
for tool in hyperfine $py; do
	command -v "$tool" >/dev/null || { echo "python_load.sh: $tool not found" >&2; exit 1; }
done
ls "$build"/python/veles/_veles*.so >/dev/null 2>&1 ||
	{ echo "python_load.sh: no Python binding in $build/python" >&2; exit 1; }
export PYTHONPATH=$build/python

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
points=1000
uids=$(( (n + points - 1) / points ))

cat >"$tmp/by_pandas.py" <<'PY'
import json, sys
import pandas as pd
def load(path):
    with open(path) as f:
        d = json.load(f)
    if "global" in d:
        return pd.DataFrame(d["global"]["resources"])
    types = d["resource_type_map"]
    return pd.concat([pd.DataFrame({**cols, **types[key]})
                      for key, cols in d["resources"].items()], ignore_index=True)
PY
cat >"$tmp/by_veles.py" <<'PY'
import pandas as pd  # noqa: F401 (imported before timing, as on the other side)
import veles
def load(path):
    return veles.load(path).to_dataframe()
PY
# run.py SIDE FILE [PICKLE | --time RUNS]: loads once (and pickles the
# frame), or prints the best and median wall and CPU seconds of RUNS loads.
cat >"$tmp/run.py" <<'PY'
import importlib, statistics, sys, time
side = importlib.import_module(sys.argv[1])
if len(sys.argv) > 3 and sys.argv[3] == "--time":
    wall, cpu = [], []
    for _ in range(int(sys.argv[4])):
        t, c = time.perf_counter(), time.process_time()
        side.load(sys.argv[2])
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    print(min(wall), statistics.median(wall), min(cpu))
else:
    df = side.load(sys.argv[2])
    if len(sys.argv) > 3:
        df.to_pickle(sys.argv[3])
PY
cd "$tmp"

for layout in time trace; do
	f=$tmp/$layout.json
	$py "$here/gen_profile.py" "$f" --layout "$layout" --uids "$uids" --points "$points"
	# The same rows and values, whatever the dtypes (categoricals, int32).
	$py run.py by_pandas "$f" "$tmp/peer.pkl"
	$py run.py by_veles "$f" "$tmp/veles.pkl"
	$py - "$tmp/peer.pkl" "$tmp/veles.pkl" <<'PY'
import sys
import pandas as pd
a, b = (pd.read_pickle(p) for p in sys.argv[1:3])
assert len(a) == len(b) and sorted(a.columns) == sorted(b.columns), (a.columns, b.columns)
for c in a.columns:
    if not (a[c].astype(object) == b[c].astype(object)).all():
        sys.exit(f"python_load.sh: column {c} differs")
PY
	read -r pd_best pd_med pd_cpu < <($py run.py by_pandas "$f" --time 5)
	read -r ve_best ve_med ve_cpu < <($py run.py by_veles "$f" --time 5)
	hyperfine -N --warmup 1 --runs 3 --export-json "$tmp/h.json" \
		"$py run.py by_pandas $f" "$py run.py by_veles $f" >/dev/null 2>&1
	$py - "$tmp/h.json" "$(stat -c %s "$f")" "$((uids * points))" "$layout" \
		"$pd_best" "$pd_med" "$pd_cpu" "$ve_best" "$ve_med" "$ve_cpu" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"]
size, n, layout = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pd_best, pd_med, pd_cpu, ve_best, ve_med, ve_cpu = (float(x) * 1e3 for x in sys.argv[5:11])
pd_run, ve_run = (r["median"] * 1e3 for r in h)
print(f"profile into a DataFrame, {layout} layout, {n} resources ({size / 1e6:.1f} MB): "
      f"veles {ve_best:.0f} ms (median {ve_med:.0f}, cpu {ve_cpu:.0f}), "
      f"pandas.DataFrame(json.load) {pd_best:.0f} ms (median {pd_med:.0f}, cpu {pd_cpu:.0f}) "
      f"-> {pd_best / ve_best:.1f}x faster (target >= 5x); whole python3 runs: "
      f"veles {ve_run:.0f} ms, pandas {pd_run:.0f} ms -> {pd_run / ve_run:.1f}x")
PY
done
