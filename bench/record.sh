#!/bin/bash
# bench/record.sh BUILD_DIR: how much `veles record -F 999 -g` slows a
# CPU-bound program, beside `perf record -F 999 -g` on the same program in
# the same run (target: no more than perf). The program (selftimed.c) times
# its own work, so the first figure is the slowdown of the program itself,
# apart from each recorder's start-up and exit; the second is the whole
# run's wall time, start-up, exit and file writing included. The three runs
# take turns, TURNS times (default 15); each figure is the median over the
# turns of the ratio to the bare run beside it.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
veles=$build/src/cli/veles
turns=${TURNS:-15}
for tool in perf cc python3; do
	command -v $tool >/dev/null || { echo "record: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "record: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O1 -fno-omit-frame-pointer -o "$tmp/selftimed" "$here/selftimed.c"
cd "$tmp"

python3 - "$veles" "$tmp/selftimed" "$turns" <<'EOS'
import statistics, subprocess, sys, time
veles, prog, turns = sys.argv[1], [sys.argv[2], "100"], int(sys.argv[3])
cmds = {
    "bare": prog,
    "veles": [veles, "record", "-F", "999", "-g", "-o", "v.data", "--"] + prog,
    "perf": ["perf", "record", "-q", "-F", "999", "-g", "-o", "p.data", "--"] + prog,
}
def timed(name):
    t = time.perf_counter()
    r = subprocess.run(cmds[name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       check=True, text=True)
    whole = time.perf_counter() - t
    return int(r.stdout.split()[-1]) / 1e9, whole
for name in cmds:
    timed(name)
own = {name: [] for name in cmds}
whole = {name: [] for name in cmds}
for _ in range(turns):
    for name in cmds:
        o, w = timed(name)
        own[name].append(o)
        whole[name].append(w)
def over(got, k):
    return statistics.median(v / b - 1 for v, b in zip(got[k], got["bare"])) * 100
def ms(got, k):
    return statistics.median(got[k]) * 1e3
o = {k: over(own, k) for k in ("veles", "perf")}
# veles against perf turn by turn: equal within the turns' spread counts as
# "no more than perf"; a middle half wholly above 1 is a miss.
pair = sorted(v / p for v, p in zip(own["veles"], own["perf"]))
q1, med, q3 = pair[len(pair) // 4], statistics.median(pair), pair[(3 * len(pair)) // 4]
verdict = "ok" if med <= 1 else "ok, within the noise" if q1 <= 1 else "MISSED"
w = {k: over(whole, k) for k in ("veles", "perf")}
print(f"record -F 999 -g, the program's own time (median of {turns}): bare {ms(own, 'bare'):.0f} ms, "
      f"veles {ms(own, 'veles'):.0f} ms ({o['veles']:+.1f}%), "
      f"perf {ms(own, 'perf'):.0f} ms ({o['perf']:+.1f}%) "
      f"(target: veles <= perf)")
print(f"  veles/perf turn by turn: median {med:.3f}, middle half {q1:.3f}..{q3:.3f} -> {verdict}")
print(f"record -F 999 -g, the whole run's wall time: bare {ms(whole, 'bare'):.0f} ms, "
      f"veles {ms(whole, 'veles'):.0f} ms ({w['veles']:+.1f}%), "
      f"perf {ms(whole, 'perf'):.0f} ms ({w['perf']:+.1f}%)")
EOS
