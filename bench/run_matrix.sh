#!/bin/bash
# bench/run_matrix.sh BUILD_DIR: what `veles run matrix` costs per job,
# against the same commands in a shell loop. The matrix is 100 jobs of
# /bin/true under the time collector with one run each (repeat 1, warmup 0),
# so each job is one spawn plus one profile written durably to .veles/jobs/;
# the loop is `for i in 1..100; do /bin/true $i; done` in sh.
#
# The two take turns PAIRS times (default 15) and the ratio is the median of
# the per-turn ratios, since load on a shared machine drifts within seconds.
set -eu
build=$(cd "${1:-build}" && pwd)
jobs=100
pairs=${PAIRS:-15}
veles=$build/src/cli/veles
for tool in git python3; do
	command -v $tool >/dev/null || { echo "run_matrix: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "run_matrix: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q project && cd project
git -c user.name=bench -c user.email=bench@example.com commit -q --allow-empty -m init
"$veles" init >/dev/null
{
	echo "cmds: [/bin/true]"
	echo "workloads: [$(seq -s, $jobs)]"
	echo "collectors:"
	echo "  - {name: time, params: {repeat: 1, warmup: 0}}"
} >>.veles/config.yml

python3 - "$veles" "$jobs" "$pairs" <<'EOS'
import os, statistics, subprocess, sys, time
veles, jobs, pairs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
null = subprocess.DEVNULL
cmds = {
    "veles": [veles, "run", "matrix", "-q"],
    "shell": ["sh", "-c", f"for i in $(seq {jobs}); do /bin/true $i; done"],
}
def timed(name):
    t = time.perf_counter()
    subprocess.run(cmds[name], stdout=null, stderr=null, check=True)
    return time.perf_counter() - t
def clean():
    for f in os.listdir(".veles/jobs"):
        os.unlink(os.path.join(".veles/jobs", f))
for name in cmds:  # warm-up: caches, page cache, the jobs directory
    timed(name)
clean()
got = {name: [] for name in cmds}
for _ in range(pairs):
    for name in cmds:
        got[name].append(timed(name))
    made = len(os.listdir(".veles/jobs"))
    assert made == jobs, f"expected {jobs} profiles, got {made}"
    clean()
ratio = statistics.median(v / s for v, s in zip(got["veles"], got["shell"]))
ms = lambda k: statistics.median(got[k]) / jobs * 1e3
print(f"run matrix, {jobs} time jobs of /bin/true: veles {ms('veles'):.2f} ms/job, "
      f"shell loop {ms('shell'):.2f} ms/job -> {ratio:.2f}x (target <= 1.5x)")
sys.exit(0)
EOS
