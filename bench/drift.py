"""The drift study of bench/drift.sh (read its header first).

python3 drift.py VELES TMPDIR: builds the history in TMPDIR/project, runs
the trials under a drifting background load and prints the tables.
"""
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

VELES, TMP = sys.argv[1], sys.argv[2]
ENV = os.environ
TRIALS = int(ENV.get("TRIALS", 20))
BISECT_TRIALS = int(ENV.get("BISECT_TRIALS", 10))
N = int(ENV.get("N", 30))
CV_RUNS = int(ENV.get("CV_RUNS", 30))
MAX_ROUNDS = int(ENV.get("MAX_ROUNDS", 100))
UNITS = int(ENV.get("UNITS", 4000))
HOG_MIN, HOG_MAX = float(ENV.get("HOG_MIN", 10)), float(ENV.get("HOG_MAX", 60))
MIN_EFFECT = float(ENV.get("MIN_EFFECT", 0.01))
SEED = int(ENV.get("SEED", int(time.time())))
NULL = subprocess.DEVNULL
BUILD = "cc -O2 -o prog prog.c"
# Commit k (1-based) multiplies the work by STEPS[k]; the others change a comment.
STEPS = {5: 1.02, 13: 1.05, 17: 1.10}
CONDITIONS = [(0, 3), (2, 5), (5, 13), (10, 17)]  # (planted %, the commit checked)
GOOD, BAD, PLANTED = 6, 16, 13

SOURCE = r"""/* The drift study's program: UNITS units of integer hashing, scaled. */
#include <stdint.h>
#include <stdio.h>
#define UNITS %d
#define SCALE %d /* the work, in 1/100000 of the first version's */
/* version %d */
static uint64_t unit(uint64_t h)
{
	for (int i = 0; i < 1000; i++)
		h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + (uint64_t)i;
	return h;
}
int main(void)
{
	long total = (long)((double)UNITS * SCALE / 100000 + 0.5);
	uint64_t h = 1;
	for (long i = 0; i < total; i++)
		h = unit(h);
	printf("%%llu\n", (unsigned long long)(h & 0xff));
	return 0;
}
"""


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=kw.pop("stdout", NULL), stderr=kw.pop("stderr", NULL),
                          **kw)


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def make_history():
    """20 commits; returns their ids (index 1..20) and a binary of each."""
    os.makedirs("project")
    os.chdir("project")
    git("init", "-q", "-b", "main", ".")
    git("config", "user.name", "bench")
    git("config", "user.email", "bench@example.com")
    run([VELES, "init", "-q"], check=True)
    with open(".veles/config.yml", "w") as f:
        f.write("cmds: [./prog]\ncollectors:\n  - name: time\n"
                "execute:\n  pre_run: [\"%s\"]\n" % BUILD)
    with open(".gitignore", "w") as f:
        f.write("prog\n")
    ids, scale = [None], 100000
    os.makedirs(TMP + "/bin")
    for k in range(1, 21):
        scale = round(scale * STEPS.get(k, 1.0))
        with open("prog.c", "w") as f:
            f.write(SOURCE % (UNITS, scale, k))
        git("add", "prog.c", ".gitignore")
        git("commit", "-qm", "version %d%s" % (k, " (+%g%%)" % ((STEPS[k] - 1) * 100)
                                               if k in STEPS else ""))
        ids.append(git("rev-parse", "HEAD"))
        run(["cc", "-O2", "-o", "%s/bin/v%d" % (TMP, k), "prog.c"], check=True)
    return ids


class Hog:
    """`yes` switched on and off at random intervals of HOG_MIN..HOG_MAX s."""

    def __init__(self, rng):
        self.rng, self.proc, self.stop = rng, None, threading.Event()
        self.switches = 0

    def on(self):
        if not self.proc:
            self.proc = subprocess.Popen(["yes"], stdout=NULL)

    def off(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()
            self.proc = None

    def loop(self):
        while not self.stop.wait(self.rng.uniform(HOG_MIN, HOG_MAX)):
            self.off() if self.proc else self.on()
            self.switches += 1

    def start(self):
        if self.rng.random() < 0.5:
            self.on()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def end(self):
        self.stop.set()
        self.thread.join()
        self.off()


def newest_profile(before):
    new = sorted(set(os.listdir(".veles/jobs")) - before)
    return [".veles/jobs/" + f for f in new]


def clear_jobs():
    for f in os.listdir(".veles/jobs"):
        os.unlink(".veles/jobs/" + f)


def collect(binary, runs, extra=(), side="_a"):
    """`veles collect time` of @binary run as ./prog from its own directory,
    so both sides' locations are named alike (./prog [cpu])."""
    before = set(os.listdir(".veles/jobs"))
    os.makedirs(side, exist_ok=True)
    shutil.copy(binary, side + "/prog")
    run([VELES, "collect", "time", "-q", "-o", "suppress", "-w", "1", "-r", str(runs),
         *extra, "--", "./prog"], check=True, cwd=side)
    return newest_profile(before)[0]


def values(path, subtype):
    """The amounts of @subtype in pending profile @path (compact: exported)."""
    out = TMP + "/export.json"
    run([VELES, "export", "-o", out, path], check=True)
    res = json.load(open(out))["global"]["resources"]
    return [r["amount"] for r in res if r.get("subtype") == subtype]


def rmit(rev, on):
    t = time.time()
    p = run([VELES, "check", "head", rev, "--remeasure", "-q", "--on", on,
             "--min-effect", str(MIN_EFFECT), "--max-rounds", str(MAX_ROUNDS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    clear_jobs()
    if p.returncode > 1:
        sys.exit("drift: check --remeasure failed: " + p.stderr)
    rounds = [int(x) for x in re.findall(r"(\d+) rounds, ", p.stderr)]
    return p.returncode == 1, rounds[0] if rounds else 0, time.time() - t


def blocks(parent, target, metrics):
    """Today's way: the parent's runs, then the target's, then check."""
    a = collect(parent, N, side="_a")
    b = collect(target, N, side="_b")
    got = {}
    for m in metrics:
        p = run([VELES, "check", "profiles", a, b, "--on", m, "--min-effect", str(MIN_EFFECT)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode > 1:
            sys.exit("drift: check profiles failed: " + p.stderr)
        got[m] = p.returncode == 1
    clear_jobs()
    return got


def welch_p(a, b):
    ma, mb = statistics.mean(a), statistics.mean(b)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    if va + vb == 0:
        return 1.0 if ma == mb else 0.0
    z = abs(mb - ma) / math.sqrt(va + vb)
    return math.erfc(z / math.sqrt(2))  # normal approximation: N >= 10 runs


def hyperfine_times(*binaries, runs=None):
    out = TMP + "/hf.json"
    run(["hyperfine", "-N", "-w", "1", "-r", str(runs or N), "--style", "none",
         "--export-json", out, *binaries], check=True)
    return [r["times"] for r in json.load(open(out))["results"]]


def hyperfine_check(parent, target):
    a, b = hyperfine_times(parent, target)
    return welch_p(a, b) < 0.05 and statistics.mean(b) / statistics.mean(a) - 1 > MIN_EFFECT


def check_study(ids, rng, cpu_ok):
    methods = (["rmit cpu"] if cpu_ok else []) + ["rmit real"] + \
        (["blocks cpu"] if cpu_ok else []) + ["blocks real", "hyperfine real"]
    flagged = {(c, m): 0 for c, _ in CONDITIONS for m in methods}
    rounds = {m: [] for m in methods if m.startswith("rmit")}
    for trial in range(TRIALS):
        order = list(CONDITIONS)
        rng.shuffle(order)
        for planted, k in order:
            parent, target = "%s/bin/v%d" % (TMP, k - 1), "%s/bin/v%d" % (TMP, k)
            tasks = ["rmit", "blocks", "hyperfine"]
            rng.shuffle(tasks)
            for task in tasks:
                if task == "rmit":
                    for on in (["cpu"] if cpu_ok else []) + ["real"]:
                        f, r, _ = rmit(ids[k], on)
                        flagged[(planted, "rmit " + on)] += f
                        rounds["rmit " + on].append(r)
                elif task == "blocks":
                    got = blocks(parent, target, (["cpu"] if cpu_ok else []) + ["real"])
                    for m, f in got.items():
                        flagged[(planted, "blocks " + m)] += f
                else:
                    flagged[(planted, "hyperfine real")] += hyperfine_check(parent, target)
        print("drift: check trial %d/%d done" % (trial + 1, TRIALS), file=sys.stderr,
              flush=True)
    return methods, flagged, rounds


def veles_bisect(ids, interleave):
    t = time.time()
    p = run([VELES, "bisect", "--good", ids[GOOD], "--bad", ids[BAD], "--build", BUILD, "-q",
             *([] if interleave else ["--no-interleave"]), "--", "./prog"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found = p.stdout.split(" ", 1)[0] if p.returncode == 0 else None
    return found == ids[PLANTED], time.time() - t


def hyperfine_bisect():
    """Good and bad once at the start, each candidate once: by hand."""
    t = time.time()
    bins = ["%s/bin/v%d" % (TMP, k) for k in range(21)]
    g, b = [statistics.mean(x) for x in hyperfine_times(bins[GOOD], bins[BAD])]
    mid = math.sqrt(g * b)
    lo, hi = GOOD + 1, BAD
    while lo < hi:
        m = (lo + hi) // 2
        if statistics.mean(hyperfine_times(bins[m])[0]) > mid:
            hi = m
        else:
            lo = m + 1
    return lo == PLANTED, time.time() - t


def bisect_study(ids, rng):
    names = ["veles bisect (interleaved)", "veles bisect --no-interleave",
             "hyperfine once per side"]
    found = {n: 0 for n in names}
    secs = {n: [] for n in names}
    for trial in range(BISECT_TRIALS):
        order = list(range(3))
        rng.shuffle(order)
        for i in order:
            ok, s = (veles_bisect(ids, True) if i == 0 else
                     veles_bisect(ids, False) if i == 1 else hyperfine_bisect())
            found[names[i]] += ok
            secs[names[i]].append(s)
        print("drift: bisect trial %d/%d done" % (trial + 1, BISECT_TRIALS), file=sys.stderr,
              flush=True)
    return names, found, secs


def cv(xs):
    m = statistics.mean(xs)
    return statistics.stdev(xs) / m if m > 0 and len(xs) > 1 else float("nan")


def cv_study(hog):
    binary = "%s/bin/v1" % TMP
    rows = {}
    for load in (False, True):
        hog.on() if load else hog.off()
        time.sleep(1 if load else 0)
        f = collect(binary, CV_RUNS)
        for m in ("real", "cpu", "user"):
            rows.setdefault(m, []).append(cv(values(f, m)) if values(f, m) else float("nan"))
        before = set(os.listdir(".veles/jobs"))
        p = run([VELES, "collect", "time", "-q", "-o", "suppress", "-w", "1", "-r",
                 str(CV_RUNS), "--metric", "instructions", "--", "./prog"],
                stderr=subprocess.PIPE, text=True, cwd="_a")
        how = "cachegrind" if "cachegrind" in (p.stderr or "") else "PMU"
        ins = values(newest_profile(before)[0], "instructions") if p.returncode == 0 else []
        rows.setdefault("instructions (%s)" % how, []).append(cv(ins) if ins else float("nan"))
        clear_jobs()
    hog.off()
    return rows


def pct(k, n):
    return "%d/%d %3.0f%%" % (k, n, 100.0 * k / n) if n else "-"


def main():
    rng = random.Random(SEED)
    os.chdir(TMP)
    start = time.time()
    ids = make_history()
    probe = collect("%s/bin/v1" % TMP, 2)
    cpu_ok = bool(values(probe, "cpu"))
    clear_jobs()
    hog = Hog(rng)
    cv_rows = cv_study(hog)
    hog.start()
    try:
        methods, flagged, rounds = check_study(ids, rng, cpu_ok)
        names, found, secs = bisect_study(ids, rng)
    finally:
        hog.end()
    print("drift study: %d check trials, %d bisect trials, N=%d runs a side, max %d rounds, "
          "%d units of work, min effect %g, seed %d; CPU hog on/off every %g-%g s (%d "
          "switches); %.0f s in all" % (TRIALS, BISECT_TRIALS, N, MAX_ROUNDS, UNITS,
                                        MIN_EFFECT, SEED, HOG_MIN, HOG_MAX, hog.switches,
                                        time.time() - start))
    print()
    print("check: flagged as a sure degradation (exit 1)")
    print("%-8s" % "planted" + "".join("%-16s" % m for m in methods) + "target")
    targets = {0: "<= 5%", 2: ">= 50%", 5: ">= 95%", 10: ""}
    for planted, _ in CONDITIONS:
        print("%-8s" % ("%d%%" % planted) +
              "".join("%-16s" % pct(flagged[(planted, m)], TRIALS) for m in methods) +
              targets[planted])
    print("rounds rmit used (median, max): " + ", ".join(
        "%s %g, %d" % (m, statistics.median(r), max(r)) for m, r in rounds.items() if r))
    print()
    print("bisect: found the planted 5%% commit (versions %d..%d, planted %d)" %
          (GOOD + 1, BAD, PLANTED))
    for n in names:
        print("%-32s %-12s median %.0f s" % (n, pct(found[n], BISECT_TRIALS),
                                             statistics.median(secs[n]) if secs[n] else 0))
    print("target: 9 of 10")
    print()
    print("coefficient of variation over %d runs (sd / mean)" % CV_RUNS)
    print("%-28s %-12s %s" % ("metric", "hog off", "hog on"))
    for m, (quiet, loaded) in cv_rows.items():
        print("%-28s %-12s %s" % (m, "%.3f%%" % (100 * quiet), "%.3f%%" % (100 * loaded)))


main()
