#!/bin/bash
# bench/fuzz.sh [BUILD_DIR]: does `veles fuzz` find the planted quadratic
# path of bench/fuzz_planted.c (a word counter whose hash table keys long
# words by their first four bytes) within the time given, and how does a
# plain random mutation of the same seeds fare in the same time?
#
# Contenders, each RUNS times (default 5) for TIME seconds (default 300),
# with seeds 1..RUNS, taking turns so that the machine's load drifts over
# all of them alike:
#   edges     veles fuzz on a build with `veles cflags fuzz --link`
#   cost      veles fuzz on a plain build: the measured cost alone
#   random    veles fuzz --no-feedback on a plain build: every mutant is
#             made from a seed, nothing is kept (the baseline)
# A run succeeds when its costliest input, measured again (median of 5),
# costs at least 10 times the costliest seed, by the metric veles chose
# (instructions:u, or task-clock without a PMU). Perun's own fuzzer cannot
# be installed from a package registry here, so the baseline is ours with
# the feedback off.
#   RUNS=2 TIME=60 bench/fuzz.sh     a short version, a few minutes
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${RUNS:-5}
secs=${TIME:-300}
veles=$build/src/cli/veles
src=$(cd "$(dirname "$0")" && pwd)/fuzz_planted.c
[ -x "$veles" ] || { echo "fuzz: build $veles first" >&2; exit 1; }
for tool in cc python3; do
	command -v $tool >/dev/null || { echo "fuzz: needs $tool" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

cc -O2 -o plain "$src"
contenders="cost random"
if command -v clang >/dev/null; then
	# shellcheck disable=SC2046
	clang -O2 $("$veles" cflags fuzz --link) -o edges "$src"
	contenders="edges $contenders"
else
	echo "fuzz: no clang, so no edge counts: the edges contender is left out" >&2
fi
# Three seeds of ordinary text, a kilobyte each.
python3 - <<'EOS'
import os, random
random.seed(7)
words = """time person year way day thing man world life hand part child eye woman
place work week case point government company number group problem fact be have
do say get make go know take see come think look want give use find tell ask
seem feel try leave call good new first last long great little own other old
right big high different small large next early young important few public bad
same able to of in for on with at by from up about into over after the and a
that it not he as you this but his they her she or an will my one all would
there their""".split()
os.mkdir("seeds")
for k in range(3):
    lines = [" ".join(random.choice(words) for _ in range(random.randint(6, 12)))
             for _ in range(20)]
    open("seeds/s%d.txt" % k, "w").write("\n".join(lines) + "\n")
EOS

for i in $(seq 1 "$runs"); do
	for c in $contenders; do
		case $c in
		edges) prog=./edges opts= ;;
		cost) prog=./plain opts= ;;
		random) prog=./plain opts=--no-feedback ;;
		esac
		# The same limit for all: room for some 1,500 words.
		# shellcheck disable=SC2086
		"$veles" fuzz -q -o "out-$c-$i" -i seeds --seed "$i" --time "$secs" -N 16384 \
			--no-profile --format json $opts -- $prog @@ >"$c-$i.json"
		echo "fuzz: $c run $i: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%.1fx after %d runs" % (r["worst"][0]["ratio"], r["session_runs"]))' "$c-$i.json")" >&2
	done
done

python3 - "$runs" "$secs" $contenders <<'EOS'
import json, statistics, sys
runs, secs, names = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
label = {"edges": "veles fuzz, edge counts (PerfFuzz-style)",
         "cost": "veles fuzz, measured cost only",
         "random": "random mutation (--no-feedback)"}
metric = None
print("fuzz: planted quadratic path, %d runs of %d s each, -N 16384" % (runs, secs))
print("%-42s %9s %12s %14s %10s" % ("contender", ">= 10x", "worst ratio", "runs to 10x", "runs/s"))
for n in names:
    rs = [json.load(open("%s-%d.json" % (n, i))) for i in range(1, runs + 1)]
    metric = rs[0]["metric"]
    best = [r["worst"][0]["ratio"] for r in rs]
    # Per session, the earliest run that found an input of 10x or more.
    found = []
    for r in rs:
        at = [w["found_run"] for w in r["worst"] if w["ratio"] >= 10]
        if at:
            found.append(min(at))
    rate = [r["session_runs"] / r["session_elapsed"] for r in rs]
    print("%-42s %6d/%-2d %11.1fx %14s %10.0f" % (
        label[n], sum(b >= 10 for b in best), runs, statistics.median(best),
        "%d" % statistics.median(found) if found else "-", statistics.median(rate)))
print("(worst ratio: median over runs of the costliest input's cost over the costliest "
      "seed's, by %s, each measured 5 times)" % metric)
EOS
