#!/bin/bash
# bench/bounds.sh BUILD_DIR: the bounds collector on its suite
# (tests/data/bounds/, programs with bounds derived by hand) beside LLVM's
# scalar evolution on the same programs.
#
# Per program it prints our bound of the function (the sum of its loops'),
# the hand bound, whether the classes are equal and the expressions equal
# (at every sample point of the parameters), and the time of the file's
# parse and analysis (the median of RUNS runs, default 5; libclang loaded
# beforehand); then what `opt -passes='print<scalar-evolution>'` finds for
# the same loops: how many it gives a backedge-taken count (per entry of
# the loop, once rotated), after `clang -O1 -Xclang -disable-llvm-passes`
# and sroa (plain -O1 folds many of the loops away before SCEV sees them).
# Targets: the class right on 90% of the programs at least, the exact
# expression on 70%, never finite where the truth is unbounded, the seed's
# partitioning example exact, under 50 ms a file.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
suite=$here/../tests/data/bounds
runs=${RUNS:-5}
tool=$build/tests/bounds/bounds-suite
veles=$build/src/cli/veles
for t in clang opt python3; do
	command -v $t >/dev/null || { echo "bounds: needs $t (scripts/deps.sh)" >&2; exit 1; }
done
[ -x "$tool" ] || { echo "bounds: build $tool first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$runs"); do
	"$tool" report "$suite"/*.c >"$tmp/ours.$i.tsv" 2>/dev/null || true
done

# The baseline: scalar evolution's backedge-taken count of each loop.
for f in "$suite"/*.c; do
	n=$(basename "$f" .c)
	start=$(date +%s%N)
	if clang -O1 -g0 -Xclang -disable-llvm-passes -S -emit-llvm "$f" -o "$tmp/$n.ll" 2>/dev/null; then
		opt -disable-output -passes='sroa,instcombine,simplifycfg,loop-simplify,lcssa,loop-rotate,print<scalar-evolution>' \
			"$tmp/$n.ll" 2>&1 | grep -E '^Loop %[^:]*: (<multiple exits> )?(backedge-taken count is|Unpredictable backedge-taken count)' \
			>"$tmp/$n.scev" || true
	fi
	echo "$n $(( ($(date +%s%N) - start) / 1000000 ))" >>"$tmp/scev_ms"
done

# End to end: one veles collect over the whole suite, libclang's load included.
mkdir "$tmp/p" && cd "$tmp/p" && git init -q && "$veles" init >/dev/null 2>&1
e2e=$(python3 - "$veles" "$suite" <<'EOS'
import statistics, subprocess, sys, time
veles, suite = sys.argv[1:3]
t = []
for _ in range(3):
    s = time.perf_counter()
    subprocess.run([veles, "collect", "bounds", "-q", "-d", suite], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t.append(time.perf_counter() - s)
print("%.1f" % (statistics.median(t) * 1e3))
EOS
)

python3 - "$tmp" "$runs" "$e2e" <<'EOS'
import collections, os, re, statistics, sys
tmp, runs, e2e = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rows = collections.OrderedDict()
ms = collections.defaultdict(list)
for i in range(1, runs + 1):
    for line in open(os.path.join(tmp, "ours.%d.tsv" % i)):
        f = line.rstrip("\n").split("\t")
        name = os.path.basename(f[0])[:-2]
        key = (name, f[1], int(f[2]))
        rows[key] = f
        if key[2] == 0:
            ms[name].append(float(f[10]))
scev_ms = dict(l.split() for l in open(os.path.join(tmp, "scev_ms")))

def scev(name):
    path = os.path.join(tmp, name + ".scev")
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    counts = [re.sub(r"^Loop %[^:]*: ", "", l) for l in lines]
    ok = [c[len("backedge-taken count is "):] for c in counts if c.startswith("backedge-taken count is")]
    return len(ok), len(counts), ok

totals = [r for k, r in rows.items() if k[2] == 0]
loops = [r for k, r in rows.items() if k[2] != 0]
print("%-20s %-34s %-34s %5s %5s %6s  %s" % ("program", "ours", "hand", "class", "exact", "ms",
                                            "LLVM SCEV (loops counted, first count)"))
def cut(s, n):
    return s if len(s) <= n else s[:n - 1] + "…"
for r in totals:
    name = os.path.basename(r[0])[:-2]
    k, m, ok = scev(name)
    print("%-20s %-34s %-34s %5s %5s %6.1f  %d/%d %s" % (
        cut(name, 20), cut(r[3], 34), cut(r[5], 34), "yes" if r[7] == "1" else "NO",
        "yes" if r[8] == "1" else "no", statistics.median(ms[name]), k, m,
        cut(ok[0], 40) if ok else ""))

def pct(a, b):
    return "%d/%d (%.0f%%)" % (a, b, 100.0 * a / b if b else 0)
n = len(totals)
cls = sum(r[7] == "1" for r in totals)
exact = sum(r[8] == "1" for r in totals)
unsound = [os.path.basename(r[0]) for r in totals + loops if r[9] != "1"]
inf_truth = [r for r in loops if r[5] == "∞"]
finite_wrong = [r for r in inf_truth if r[3] != "∞"]
seed = [r for r in totals if r[0].endswith("int_partitioning.c")]
times = [statistics.median(v) for v in ms.values()]
lcls = sum(r[7] == "1" for r in loops)
lexact = sum(r[8] == "1" for r in loops)
ours_finite = sum(r[3] != "∞" for r in loops)
scev_counted = scev_total = 0
scev_inf_finite = []
for name in sorted({os.path.basename(r[0])[:-2] for r in totals}):
    k, m, ok = scev(name)
    scev_counted += k
    scev_total += m
    mine = [r for r in loops if os.path.basename(r[0])[:-2] == name]
    # A program's one loop, which can run forever, counted by SCEV anyway
    # (C lets a compiler assume such a loop ends).
    if len(mine) == 1 and mine[0][5] == "∞" and k:
        scev_inf_finite.append(name)
print()
print("programs                   %d (%d loops)" % (n, len(loops)))
print("class right                %s    target 90%%" % pct(cls, n))
print("exact expression           %s    target 70%%" % pct(exact, n))
print("  per loop: class %s, exact %s" % (pct(lcls, len(loops)), pct(lexact, len(loops))))
print("finite where unbounded     %d of %d unbounded loops    target 0" % (len(finite_wrong), len(inf_truth)))
print("below the hand bound       %d%s" % (len(unsound), (": " + ", ".join(unsound)) if unsound else ""))
print("seed's partitioning        %s (%s)" % ("exact" if seed and seed[0][8] == "1" and seed[0][3] == "6 + 4 × max(0, (k + -1))" else "NOT exact", seed[0][3] if seed else "missing"))
print("time per file              median %.1f ms, max %.1f ms    target < 50 ms" % (statistics.median(times), max(times)))
print("veles collect -d (%d files) %.0f ms, libclang's load included (%.1f ms a file)" % (n, e2e, e2e / n))
print("loops bounded              Veles %d of %d (%d can run forever); LLVM SCEV counted %d of "
      "the %d it saw (per entry)" % (ours_finite, len(loops), len(inf_truth), scev_counted,
                                     scev_total))
print("SCEV finite, truth not     %d loops that can run forever: %s" % (
    len(scev_inf_finite), ", ".join(scev_inf_finite)))
print("clang + opt per file       median %.0f ms (two processes each)" % statistics.median(
    float(v) for v in scev_ms.values()))
EOS
