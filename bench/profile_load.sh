#!/bin/bash
# Profile load + re-write against python's json.load, peak memory, and
# yajl's bare parse time (why the reader is hand-written).
#
#   bench/profile_load.sh BUILD_DIR [RESOURCES]
#
# Needs hyperfine (Debian package), python3 and GNU time (/usr/bin/time).
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
python3 "$here/gen_profile.py" "$tmp/p.json" --uids "$uids" --points "$points"
size=$(stat -c %s "$tmp/p.json")

hyperfine -N --warmup 2 --runs 10 --export-json "$tmp/h.json" \
	"python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $tmp/p.json" \
	"$rt $tmp/p.json $tmp/out.json" >/dev/null

# The roundtrip output must read back in python as the same profile.
python3 - "$tmp/p.json" "$tmp/out.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if a["resources"] == b["resources"] else "profile_load.sh: round trip differs")
PY

rss_kb=$(/usr/bin/time -f %M "$rt" "$tmp/p.json" "$tmp/out.json" 2>&1 >/dev/null | tail -1)
yajl_ms=$("$yp" "$tmp/p.json")

python3 - "$tmp/h.json" "$size" "$rss_kb" "$yajl_ms" "$((uids * points))" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"]
size, rss_kb, yajl_ms, n = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
# The median is robust to a noisy neighbour on a shared machine.
py, ve = (r["median"] * 1e3 for r in h)
mb = size / 1e6
print(f"profile load+write, {n} resources ({mb:.1f} MB): veles {ve:.1f} ms, "
      f"python json.load {py:.0f} ms -> {py / ve:.1f}x faster (target >= 10x)")
rss = rss_kb * 1024 / 1e6
print(f"profile peak RSS: veles {rss:.1f} MB = {rss / mb:.2f}x the JSON size (target < 1.5x)")
print(f"yajl parse alone: {yajl_ms:.0f} ms (why the reader is hand-written)")
PY
