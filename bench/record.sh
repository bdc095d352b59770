#!/bin/bash
# bench/record.sh BUILD_DIR: how much `veles record -F 999 -g` slows a
# CPU-bound program, beside `perf record -F 999 -g` on the same program in
# the same run (target: no more than perf). The three runs take turns,
# TURNS times (default 7); each overhead is the median over the turns of
# the wall time against the bare run beside it.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
veles=$build/src/cli/veles
turns=${TURNS:-7}
for tool in perf cc python3; do
	command -v $tool >/dev/null || { echo "record: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "record: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O1 -fno-omit-frame-pointer -o "$tmp/hot" "$here/../tests/cli/hot.c"
cd "$tmp"

python3 - "$veles" "$tmp/hot" "$turns" <<'EOS'
import statistics, subprocess, sys, time
veles, hot, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmds = {
    "bare": [hot],
    "veles": [veles, "record", "-F", "999", "-g", "-o", "v.data", "--", hot],
    "perf": ["perf", "record", "-q", "-F", "999", "-g", "-o", "p.data", "--", hot],
}
def timed(name):
    t = time.perf_counter()
    subprocess.run(cmds[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
for name in cmds:
    timed(name)
got = {name: [] for name in cmds}
for _ in range(turns):
    for name in cmds:
        got[name].append(timed(name))
over = {k: statistics.median(v / b - 1 for v, b in zip(got[k], got["bare"])) * 100
        for k in ("veles", "perf")}
print(f"record -F 999 -g of a {statistics.median(got['bare']) * 1e3:.0f} ms CPU-bound program "
      f"(median of {turns}): veles {statistics.median(got['veles']) * 1e3:.0f} ms "
      f"({over['veles']:+.1f}%), perf {statistics.median(got['perf']) * 1e3:.0f} ms "
      f"({over['perf']:+.1f}%) (target: veles <= perf: "
      f"{'ok' if over['veles'] <= over['perf'] else 'MISSED'})")
EOS
