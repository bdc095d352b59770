#!/bin/bash
# bench/regex.sh BUILD_DIR: how fast `veles collect regex` reads a
# program's output. A file of 1,000,000 "bench_N: 12.345 ms" lines is
# printed by cat and read through a pattern with uid, amount and unit
# groups, the profile written (start-up included); beside it, in turns,
# grep -P counting the matches of the same pattern (the floor: no groups
# kept, nothing written) and a Python re loop that keeps what Veles keeps.
# Target: 1,000,000 lines a second or more.
set -eu
build=$(cd "${1:-build}" && pwd)
veles=$build/src/cli/veles
turns=${TURNS:-5}
lines=${LINES_N:-1000000}
for tool in grep python3; do
	command -v $tool >/dev/null || { echo "regex: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "regex: build $veles first" >&2; exit 1; }
echo x | grep -qP 'x' 2>/dev/null || { echo "regex: grep has no -P here" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/p"
(cd "$tmp/p" && "$veles" init -q)

python3 - "$veles" "$tmp" "$turns" "$lines" <<'EOS'
import random, statistics, subprocess, sys, time
veles, tmp, turns, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
path = f"{tmp}/out.txt"
random.seed(1)
with open(path, "w") as f:
    for i in range(n):
        f.write("bench_%d: %.3f ms\n" % (i % 1000, random.uniform(1, 100)))
pattern = r"(?<uid>\w+): (?<amount>[\d.]+) (?<unit>ms)"
loop = r'''
import re, sys
rx = re.compile(r"(?P<uid>\w+): (?P<amount>[\d.]+) (?P<unit>ms)")
kept = []
with open(sys.argv[1]) as f:
    for line in f:
        m = rx.search(line)
        if m:
            kept.append((m["uid"], float(m["amount"]) / 1e3))
print(len(kept))
'''
cmds = {
    "veles": [veles, "collect", "regex", "-q", "-o", "suppress", "-e", pattern, "--", "cat", path],
    "grep -P": ["grep", "-cP", pattern, path],
    "python re": ["python3", "-c", loop, path],
}

def run(name):
    t = time.perf_counter()
    # To a pipe: GNU grep stops at the first match when its output is /dev/null.
    subprocess.run(cmds[name], cwd=f"{tmp}/p", check=True, capture_output=True)
    return time.perf_counter() - t

got = {k: [] for k in cmds}
for _ in range(turns):
    for k in cmds:
        got[k].append(run(k))
med = {k: statistics.median(v) for k, v in got.items()}
for k in cmds:
    print(f"{k:10s} {med[k] * 1e3:8.1f} ms  {n / med[k] / 1e6:6.2f} M lines/s  (median of {turns})")
rate = n / med["veles"]
print(f"veles / grep -P: {med['veles'] / med['grep -P']:.2f}x the time; "
      f"veles / python re: {med['veles'] / med['python re']:.2f}x the time")
print(f"target 1,000,000 lines/s: {rate:,.0f} lines/s ({'ok' if rate >= 1e6 else 'MISSED'})")
EOS
