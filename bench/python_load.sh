#!/bin/bash
# The Python binding against json + pandas: a 1,000,000-resource profile
# (bench/gen_profile.py, both layouts of bench/profile_load.sh) into a
# pandas DataFrame, one row per resource, by
#   veles:  veles.load(f).to_dataframe()
#   pandas: pandas.DataFrame(json.load(f)["global"]["resources"]) for the
#           seed's time layout; for the typed layout, a frame per resource
#           type (its columns plus its attributes), concatenated.
# Each command is a whole python3 run (start-up and `import pandas` in
# both). The frames are compared before timing.
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
with open(sys.argv[1]) as f:
    d = json.load(f)
if "global" in d:
    df = pd.DataFrame(d["global"]["resources"])
else:
    types = d["resource_type_map"]
    df = pd.concat([pd.DataFrame({**cols, **types[key]}) for key, cols in d["resources"].items()],
                   ignore_index=True)
if len(sys.argv) > 2:
    df.to_pickle(sys.argv[2])
PY
cat >"$tmp/by_veles.py" <<'PY'
import sys
import veles
df = veles.load(sys.argv[1]).to_dataframe()
if len(sys.argv) > 2:
    df.to_pickle(sys.argv[2])
PY

for layout in time trace; do
	f=$tmp/$layout.json
	$py "$here/gen_profile.py" "$f" --layout "$layout" --uids "$uids" --points "$points"
	# The same rows and values, whatever the dtypes (categoricals, int32).
	$py "$tmp/by_pandas.py" "$f" "$tmp/peer.pkl"
	$py "$tmp/by_veles.py" "$f" "$tmp/veles.pkl"
	$py - "$tmp/peer.pkl" "$tmp/veles.pkl" <<'PY'
import sys
import pandas as pd
a, b = (pd.read_pickle(p) for p in sys.argv[1:3])
assert len(a) == len(b) and sorted(a.columns) == sorted(b.columns), (a.columns, b.columns)
for c in a.columns:
    if not (a[c].astype(object) == b[c].astype(object)).all():
        sys.exit(f"python_load.sh: column {c} differs")
PY
	hyperfine -N --warmup 1 --runs 5 --export-json "$tmp/h.json" \
		"$py $tmp/by_pandas.py $f" "$py $tmp/by_veles.py $f" >/dev/null 2>&1
	$py - "$tmp/h.json" "$(stat -c %s "$f")" "$((uids * points))" "$layout" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"]
size, n, layout = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pd_ms, ve_ms = (r["median"] * 1e3 for r in h)
print(f"profile into a DataFrame, {layout} layout, {n} resources ({size / 1e6:.1f} MB): "
      f"veles {ve_ms:.0f} ms, pandas.DataFrame(json.load) {pd_ms:.0f} ms -> "
      f"{pd_ms / ve_ms:.1f}x faster (target >= 5x)")
PY
done
