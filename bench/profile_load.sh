#!/bin/bash
# Profile load + write against python's json.load of the same file, and
# peak memory against the file's size. Two generated profiles of RESOURCES
# (default 1,000,000) measurements each:
#   trace: the typed layout (arrays of integers per function), what the
#          trace collector writes and regression analysis reads;
#   time:  the seed's time layout (one object per measurement), what the
#          time collector writes.
# usage: bench/profile_load.sh BUILD_DIR [RESOURCES]
set -euo pipefail

build=${1:?usage: profile_load.sh BUILD_DIR [RESOURCES]}
n=${2:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
rt=$build/bench/profile_roundtrip
yp=$build/bench/yajl_parse
for tool in hyperfine python3 /usr/bin/time "$rt" "$yp"; do
	command -v "$tool" >/dev/null || { echo "profile_load.sh: $tool not found" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
points=1000
uids=$(( (n + points - 1) / points ))

for layout in trace time; do
	f=$tmp/$layout.json
	python3 "$here/gen_profile.py" "$f" --layout "$layout" --uids "$uids" --points "$points"
	# The previous run's output is removed untimed: truncating 87 MB of
	# it took 25 ms, which is not writing this profile.
	hyperfine -N --warmup 2 --runs 10 --export-json "$tmp/h.json" \
		--prepare "true" --prepare "rm -f $tmp/out.json" \
		"python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $f" \
		"$rt $f $tmp/out.json" >/dev/null 2>&1
	# The round trip must give back the same profile.
	python3 - "$f" "$tmp/out.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = "resources" if "resources" in a else "global"
sys.exit(0 if a[key] == b[key] else "profile_load.sh: round trip differs")
PY
	rss_kb=$(/usr/bin/time -f %M "$rt" "$f" "$tmp/out.json" 2>&1 >/dev/null | tail -1)
	yajl_ms=$("$yp" "$f")
	python3 - "$tmp/h.json" "$(stat -c %s "$f")" "$rss_kb" "$yajl_ms" "$((uids * points))" \
		"$layout" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"]
size, rss_kb, yajl_ms, n = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
layout = sys.argv[6]
py, ve = (r["median"] * 1e3 for r in h)
mb = size / 1e6
print(f"profile load+write, {layout} layout, {n} resources ({mb:.1f} MB): veles {ve:.1f} ms, "
      f"python json.load {py:.0f} ms -> {py / ve:.1f}x faster (target >= 10x)")
rss = rss_kb * 1024 / 1e6
print(f"  peak RSS: veles {rss:.1f} MB = {rss / mb:.2f}x the JSON size (target < 1.5x); "
      f"yajl's parse alone: {yajl_ms:.0f} ms (why the reader is hand-written)")
PY
done
