#!/bin/bash
# bench/drift.sh BUILD_DIR: do `check` and `bisect` verdicts hold on a noisy
# machine whose load changes over time (issue 14)?
#
# A small C program does a fixed amount of work; a 20-commit history plants
# +2% at commit 5, +5% at commit 13 and +10% at commit 17 (the other commits
# change a comment). While the study runs, a CPU hog (`yes`) is switched on
# and off at random intervals of HOG_MIN..HOG_MAX seconds (10-60), so the
# load drifts between one measurement and the next. Then, per planted
# change (0% is commit 3, a comment), over TRIALS trials:
#
#   rmit      `veles check head REV --remeasure`: REV and its parent built
#             and measured now, in interleaved rounds, with the sequential
#             test (on cpu, the task clock, and on real, the wall time)
#   blocks    today's way: `veles collect time -r N` on the parent, then on
#             REV, then `veles check profiles` (same metrics)
#   hyperfine `hyperfine -N -r N parent REV` once, its wall times judged by
#             Welch's t-test (p < 0.05) and a mean ratio above MIN_EFFECT
#
# "flagged" is a sure degradation (what makes `veles check` exit 1): at 0%
# that is a false positive (target <= 5%), at 2% and 5% a detection
# (targets >= 50% and >= 95%). Every method is held to the same smallest
# change that counts, MIN_EFFECT (default 0.01: with 0.02, a true 2% change
# could be called sure at most half the time by construction).
#
# Then BISECT_TRIALS times, between commit 6 and commit 16, whether bisect
# finds commit 13 (target: 9 of 10): `veles bisect` (interleaved),
# `veles bisect --no-interleave` (good and bad measured once at the start,
# as before), and a bisect by hand with hyperfine measuring each version
# once (-r N), a candidate being like bad when its mean is above the
# geometric midpoint of good's and bad's.
#
# Last, per metric, the coefficient of variation (sd / mean) of CV_RUNS runs
# of the program with our hog off and on (the machine is shared: "off" is
# whatever the others run): real, cpu, user, and instructions (the PMU's,
# or cachegrind's where there is none).
#
# Knobs (environment): TRIALS (20), BISECT_TRIALS (10), N (30), CV_RUNS (30),
# MAX_ROUNDS (100), UNITS (4000: about 20 ms of work), HOG_MIN (10),
# HOG_MAX (60), MIN_EFFECT (0.01), SEED (the hog's and the order's).
# A short run: TRIALS=3 BISECT_TRIALS=2 N=10 CV_RUNS=10 MAX_ROUNDS=40.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
veles=$build/src/cli/veles
for tool in hyperfine git python3 cc; do
	command -v $tool >/dev/null || { echo "drift: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "drift: build $veles first" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-drift.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 "$here/drift.py" "$veles" "$tmp"
