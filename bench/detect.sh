#!/bin/bash
# bench/detect.sh BUILD_DIR: how well `veles check` finds planted slowdowns.
#
# bench/knob does a fixed amount of work plus PERCENT more. Each trial
# measures a baseline (0%) and targets with 0, 2, 5, 10 and 50% more work,
# N runs each with `veles collect time`, in a shuffled order so that drift
# on the machine hits both sides alike; then `veles check profiles` judges
# every target against the baseline with each method. Over TRIALS trials
# (default 20) it prints, per method and planted change, how often the
# CPU time ([user]) and the wall-clock time ([real]) were called a
# degradation (Degradation, Severe or Total: what makes `veles check` exit
# 1; its MaybeDegradations are counted apart): at 0% that is the
# false-positive rate, elsewhere the
# detection rate. Targets for stat at N=30: false positives at most 5%, at
# least 95% of 5% slowdowns found. Wall-clock time also measures waiting
# for a CPU, so on a busy machine [real] is the harder of the two.
# The methods: stat with its default Mann-Whitney U test, stat with
# Welch's t (welch), and aat, the other tools' default. The model methods
# (int, bmoe, loc, fast, lreg, preg) compare regression models, which a
# time profile of one workload has none of, and eto ranks locations
# against each other; tests/cli/t-check.sh checks those on profiles that
# suit them.
set -eu
build=$(cd "${1:-build}" && pwd)
trials=${TRIALS:-20}
n=${N:-30}
veles=$build/src/cli/veles
knob=$build/bench/knob
[ -x "$knob" ] || { echo "detect: build $knob first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-detect.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q project && cd project
git -c user.name=bench -c user.email=bench@example.com commit -q --allow-empty -m init
"$veles" init >/dev/null

python3 - "$veles" "$knob" "$trials" "$n" <<'EOS'
import json, os, random, subprocess, sys
veles, knob, trials, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
levels = [0, 2, 5, 10, 50]
methods = ["stat", "welch", "aat"]
method_args = {"stat": ["--method", "stat"], "welch": ["--method", "stat", "--test", "welch"],
               "aat": ["--method", "aat"]}
locations = ["user", "real"]
rng = random.Random(7)

def collect(percent):
    before = set(os.listdir(".veles/jobs"))
    subprocess.run([veles, "collect", "time", "-q", "-o", "suppress", "-w", "1",
                    "-r", str(n), "--", knob, str(percent)], check=True)
    (new,) = set(os.listdir(".veles/jobs")) - before
    return ".veles/jobs/" + new

def verdict(base, target, method):
    out = subprocess.run([veles, "check", "profiles", *method_args[method], "--format", "json",
                          base, target], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit("detect: check failed: " + out.stderr.strip())
    res = json.loads(out.stdout)["results"]
    return {loc: [r for r in res if r["location"].endswith(f"[{loc}]")][0]["result"]
            for loc in locations}

hits = {(m, l, loc): 0 for m in methods for l in levels for loc in locations}
maybe = {(m, l, loc): 0 for m in methods for l in levels for loc in locations}
for t in range(trials):
    order = [None] + levels
    rng.shuffle(order)
    paths = {}
    for what in order:
        paths[what] = collect(0 if what is None else what)
    for l in levels:
        for m in methods:
            for loc, v in verdict(paths[None], paths[l], m).items():
                if v.endswith("Degradation") and v != "MaybeDegradation":
                    hits[(m, l, loc)] += 1
                if v == "MaybeDegradation":
                    maybe[(m, l, loc)] += 1
    for p in paths.values():
        os.unlink(p)
    print(f"\rtrial {t + 1}/{trials}", end="", file=sys.stderr, flush=True)
print(file=sys.stderr)

def pct(count):
    return f"{100.0 * count / trials:>8.0f}%"

print(f"planted slowdowns found, {trials} trials, N={n} runs per side (0% = false positives)")
for loc in locations:
    print(f"\n[{loc}]    " + "".join(f"{str(l) + '%':>9}" for l in levels))
    for m in methods:
        print(f"{m:<10}" + "".join(pct(hits[(m, l, loc)]) for l in levels))
    print(f"{'(maybe)':<10}" + "".join(pct(maybe[('stat', l, loc)]) for l in levels)
          + "   stat's MaybeDegradation besides (no exit 1)")
print()
for loc in locations:
    print(f"stat [{loc}]: false positives {100.0 * hits[('stat', 0, loc)] / trials:.0f}% "
          f"(target <= 5%), 5% slowdowns found {100.0 * hits[('stat', 5, loc)] / trials:.0f}% "
          f"(target >= 95%); welch finds {100.0 * hits[('welch', 5, loc)] / trials:.0f}%, "
          f"aat {100.0 * hits[('aat', 5, loc)] / trials:.0f}% of them")
EOS
