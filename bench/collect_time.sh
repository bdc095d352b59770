#!/bin/bash
# bench/collect_time.sh BUILD_DIR: what `veles collect time` costs per run
# over the floor (a bare posix_spawn + wait4 loop, bench/spawn_floor.c) and
# against hyperfine -N, all timing 200 runs of /bin/true.
#
# Each contender is one process that runs /bin/true 200 times, so Veles's
# start-up and its profile write count against it. On a shared machine the
# load drifts within seconds, so the contenders are not timed in blocks:
# they take turns, PAIRS times (default 15), and each ratio is the median of
# the per-turn ratios against the floor run right beside it.
set -eu
build=$(cd "${1:-build}" && pwd)
runs=200
pairs=${PAIRS:-15}
floor=$build/bench/spawn_floor
veles=$build/src/cli/veles
for tool in hyperfine git python3; do
	command -v $tool >/dev/null || { echo "collect_time: needs $tool" >&2; exit 1; }
done
[ -x "$floor" ] || { echo "collect_time: build $floor first" >&2; exit 1; }
[ -x "$veles" ] || { echo "collect_time: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q project && cd project
git -c user.name=bench -c user.email=bench@example.com commit -q --allow-empty -m init
"$veles" init >/dev/null

python3 - "$floor" "$veles" "$runs" "$pairs" <<'EOS'
import os, statistics, subprocess, sys, time
floor, veles, runs, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
null = subprocess.DEVNULL
cmds = {
    "floor": [floor, str(runs), "/bin/true"],
    # -w 0: the same spawns as the others (the default adds a warm-up run)
    "veles": [veles, "collect", "time", "-q", "-o", "suppress", "-w", "0", "-r", str(runs),
              "--", "/bin/true"],
    "hyperfine": ["hyperfine", "-N", "--runs", str(runs), "--style", "none", "/bin/true"],
    "floor1": [floor, "1", "/bin/true"],
    "veles1": [veles, "collect", "time", "-q", "-o", "suppress", "-w", "0", "-r", "1",
               "--", "/bin/true"],
}
def timed(name):
    t = time.perf_counter()
    subprocess.run(cmds[name], stdout=null, stderr=null, check=True)
    return time.perf_counter() - t
for name in cmds:  # warm-up: caches, page cache, the jobs directory
    timed(name)
got = {name: [] for name in cmds}
for _ in range(pairs):
    for name in cmds:
        got[name].append(timed(name))
    for f in os.listdir(".veles/jobs"):
        os.unlink(os.path.join(".veles/jobs", f))
turns = lambda k: [(v / f - 1) * 100 for v, f in zip(got[k], got["floor"])]
rel = lambda k: statistics.median(turns(k))
def spread(k):
    # The middle half of the per-turn ratios: how far one turn can be trusted.
    q = statistics.quantiles(turns(k), n=4) if pairs >= 2 else [rel(k)] * 3
    return f"middle half {q[0]:+.1f}%..{q[2]:+.1f}%"
us = lambda k: statistics.median(got[k]) / runs * 1e6
fixed = statistics.median(v - f for v, f in zip(got["veles1"], got["floor1"])) * 1e3
print(f"collect time -r {runs} -- /bin/true: veles {us('veles'):.0f} µs/run, "
      f"bare spawn+wait4 {us('floor'):.0f} µs/run -> {rel('veles'):+.1f}% (target <= +3%); "
      f"hyperfine -N {us('hyperfine'):.0f} µs/run ({rel('hyperfine'):+.1f}%)")
print(f"  medians of {pairs} alternating turns, each against the floor run beside it "
      f"(veles: {spread('veles')}; hyperfine: {spread('hyperfine')})")
print(f"  start-up and profile write: {fixed:.1f} ms once "
      f"({fixed * 1e3 / runs / us('floor') * 100:+.1f}% at {runs} runs)")
EOS
