#!/bin/bash
# bench/stat.sh BUILD_DIR: `veles stat` beside `perf stat` on the same
# workloads, in turns, so load drift hits both alike:
#  - page-faults of a program that touches 2000 fresh pages, with address
#    space randomisation off (setarch -R: otherwise where the stack and heap
#    fall moves the count by a fault or two from run to run): equal;
#  - task-clock of a program that burns 200 ms of CPU: within 1%;
#  - interval mode at 1 ms over `sleep 1`: the median spacing of the lines
#    and the drift (mean spacing over the run against the 1 ms asked).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
veles=$build/src/cli/veles
turns=${TURNS:-7}
for tool in perf cc python3 setarch; do
	command -v $tool >/dev/null || { echo "stat: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "stat: build $veles first" >&2; exit 1; }
perf stat -e task-clock true 2>/dev/null ||
	{ echo "stat: perf stat cannot count here (perf_event_paranoid?)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/touch" "$here/../tests/cli/touch_pages.c"

python3 - "$veles" "$tmp/touch" "$turns" <<'EOS'
import statistics, subprocess, sys
veles, touch, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
tools = {"veles": [veles, "stat"], "perf": ["perf", "stat"]}
fixed = ["setarch", "-R"]

def count(tool, event, args):
    r = subprocess.run(fixed + tools[tool] + ["-x", ",", "-e", event, "--"] + args,
                       capture_output=True, text=True, check=True)
    line = [l for l in r.stderr.splitlines() if l.strip()][-1]
    return float(line.split(",")[0])

def paired(event, args):
    got = {t: [] for t in tools}
    for _ in range(turns):
        for t in tools:
            got[t].append(count(t, event, args))
    return {t: statistics.median(v) for t, v in got.items()}

pf = paired("page-faults", [touch, "2000"])
print(f"page-faults of touch 2000, no ASLR (median of {turns}): veles {pf['veles']:.0f}, "
      f"perf {pf['perf']:.0f} -> ratio {pf['veles'] / pf['perf']:.4f} "
      f"({'equal' if pf['veles'] == pf['perf'] else 'differ by %+.0f' % (pf['veles'] - pf['perf'])})")
tc = paired("task-clock", [touch, "0", "200"])
dev = (tc["veles"] / tc["perf"] - 1) * 100
print(f"task-clock of a 200 ms CPU burn (median of {turns}): veles {tc['veles']:.2f} ms, "
      f"perf {tc['perf']:.2f} ms -> {dev:+.2f}% (target within 1%: "
      f"{'ok' if abs(dev) <= 1 else 'MISSED'})")

def spacing(tool):
    r = subprocess.run(tools[tool] + ["-I", "1", "-x", ",", "-e", "task-clock", "--",
                                      "sleep", "1"], capture_output=True, text=True, check=True)
    t = [float(l.split(",")[0]) for l in r.stderr.splitlines()
         if l.strip() and l.strip()[0].isdigit()]
    t = t[:-1]  # the last line covers the partial interval up to the exit
    gaps = [b - a for a, b in zip(t, t[1:])]
    return statistics.median(gaps) * 1e3, ((t[-1] - t[0]) / (len(t) - 1) * 1e3 - 1) * 100, len(t)

sp = {t: spacing(t) for t in tools}
for t in tools:
    print(f"stat -I 1 over sleep 1, {t}: {sp[t][2]} lines, median spacing {sp[t][0]:.4f} ms, "
          f"drift {sp[t][1]:+.2f}%")
print(f"interval drift: veles {sp['veles'][1]:+.2f}% vs perf {sp['perf'][1]:+.2f}% "
      f"(target within 1%: {'ok' if abs(sp['veles'][1]) <= 1 else 'MISSED'}); "
      f"median spacing ratio veles/perf {sp['veles'][0] / sp['perf'][0]:.3f}")
EOS
