#!/bin/bash
# bench/monitor.sh BUILD_DIR: what `veles monitor` costs beside vmstat
# (procps), sar (sysstat) and collectl, measured in the same run:
#  - cpu time per sample, all four sampling cpu, disks, memory and network
#    at a 1-second interval for 60 samples (SAMPLES=N for fewer: the
#    interval stays 1 s, since vmstat and sar take whole seconds only);
#  - start-up: the cpu of a one-sample run less one sample, and the wall
#    time of `veles monitor -c 0` beside `veles --version` and /bin/true;
#  - playback: samples a second played into plot format, beside collectl's
#    playback of its own recording, then into brief, verbose and an lexpr
#    export.
#
# CPU time comes from each process's rusage (wait4: a tool's helpers, such
# as sar's sadc, count against it). Start-up is taken out by running each
# tool for 1 (the median of 5 such runs) and for N+1 samples and dividing
# the difference by N. All the runs go side by side (so they share the machine's load and the whole
# takes N+1 seconds, not twice that).
set -eu
build=$(cd "${1:-build}" && pwd)
veles=$build/src/cli/veles
n=${SAMPLES:-60}
[ -x "$veles" ] || { echo "monitor: build $veles first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "monitor: needs python3" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

python3 - "$veles" "$n" <<'EOS'
import glob, os, shutil, subprocess, sys, time
veles, n = sys.argv[1], int(sys.argv[2])

def cmd(tool, count, interval="1"):
    c = str(count)
    return {
        "veles": [veles, "monitor", "-s", "cdmn", "-i", interval, "-c", c, "-P"],
        # vmstat's first line is the average since boot: count + 1 lines
        "vmstat": ["vmstat", "-n", interval, str(count + 1)],
        "sar": ["sar", "-u", "-r", "-d", "-n", "DEV", interval, c],
        "collectl": ["collectl", "-scdmn", "-i", interval, "-c", c],
    }[tool]

tools = [t for t in ["veles", "vmstat", "sar", "collectl"]
         if t == "veles" or shutil.which(t)]
missing = [t for t in ["vmstat", "sar", "collectl"] if t not in tools]

def run_all(cmds):
    """Starts every command at once; their cpu seconds (user + system)."""
    procs = {}
    for key, c in cmds.items():
        p = subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs[p.pid] = key
    cpu = {}
    while procs:
        pid, status, ru = os.wait4(-1, 0)
        if pid in procs:
            cpu[procs.pop(pid)] = ru.ru_utime + ru.ru_stime
    return cpu

def ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "n/a"

# ---- cpu per sample at 1 s, start-up excluded
# One-sample runs vary by a millisecond or two (the dynamic loader, page
# faults): their median of 5, run beside the long one, is what is taken out.
shorts = 5
cmds = {(t, 1, i): cmd(t, 1) for t in tools for i in range(shorts)}
cmds.update({(t, n + 1, 0): cmd(t, n + 1) for t in tools})
cpu = run_all(cmds)
one = {t: sorted(cpu[(t, 1, i)] for i in range(shorts))[shorts // 2] for t in tools}
ms = {t: (cpu[(t, n + 1, 0)] - one[t]) / n * 1e3 for t in tools}
start = {t: max(one[t] * 1e3 - ms[t], 0) for t in tools}
print(f"cpu time per sample, cpu+disk+memory+network (-scdmn) at a 1 s interval over "
      f"{n} samples ({n} s), start-up excluded:")
for t in tools:
    r = "" if t == "veles" else f"   veles/{t} = {ratio(ms['veles'], ms[t])}"
    print(f"  {t:9s} {ms[t]:7.3f} ms/sample{r}")
if missing:
    print(f"  (not installed here: {', '.join(missing)})")
print(f"  veles target: <= 0.15 ms/sample -> {'met' if ms['veles'] <= 0.15 else 'NOT met'}")

print("start-up cpu (a one-sample run less one sample):")
for t in tools:
    r = "" if t == "veles" else f"   veles/{t} = {ratio(start['veles'], start[t])}"
    print(f"  {t:9s} {start[t]:7.1f} ms{r}")

# Start-up wall time: one sample and no output (-c 0), beside the same
# binary doing nothing (--version: loading its shared libraries) and
# /bin/true, taking turns; medians of 5 rounds of 20.
def wall(args, reps=20):
    t0 = time.perf_counter()
    for _ in range(reps):
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) / reps * 1e3
walls = {"monitor": [], "version": [], "true": []}
for _ in range(5):
    walls["monitor"].append(wall([veles, "monitor", "-s", "cdmn", "-c", "0"]))
    walls["version"].append(wall([veles, "--version"]))
    walls["true"].append(wall(["/bin/true"]))
med = {k: sorted(v)[len(v) // 2] for k, v in walls.items()}
print(f"veles monitor start-up wall (-c 0): {med['monitor']:.2f} ms "
      f"({'met' if med['monitor'] < 5 else 'NOT met'}: target < 5 ms); veles --version "
      f"{med['version']:.2f} ms; /bin/true {med['true']:.2f} ms "
      f"(monitor over --version: {med['monitor'] - med['version']:+.2f} ms)")

# ---- playback: veles records samples back to back, then plays them into
# plot format (best of 3 by cpu time).
def cpu_of(args):
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime

count = 100000
subprocess.run([veles, "monitor", "-s", "cdmn", "-i", "0", "-c", str(count), "-f", "rec"],
               check=True)
best = min(cpu_of([veles, "monitor", "-p", "rec", "-s", "cdmn", "-P"]) for _ in range(3))
rate = count / best if best > 0 else float("inf")
print(f"playback into plot format: veles {rate:,.0f} cdmn samples/s "
      f"(target >= 1,000,000: {'met' if rate >= 1e6 else 'NOT met'}; "
      f"recording {os.path.getsize('rec') / count:.0f} bytes/sample)")
# The target holds for any output format: brief, verbose and an lexpr
# export too (the same recording, best of 3).
for name, extra in [("brief", []), ("verbose", ["--verbose"]),
                    ("lexpr export", ["--export", "lexpr"])]:
    b = min(cpu_of([veles, "monitor", "-p", "rec", "-s", "cdmn"] + extra) for _ in range(3))
    r = count / b if b > 0 else float("inf")
    print(f"playback into {name}: veles {r:,.0f} cdmn samples/s "
          f"(target >= 1,000,000: {'met' if r >= 1e6 else 'NOT met'})")

# collectl plays back its own recordings: of 30 and of 600 samples (taken
# at 0.01 s), so its start-up is taken out the same way.
if "collectl" in tools:
    def collectl_rec(count):
        d = f"cl{count}"
        os.mkdir(d)
        subprocess.run(["collectl", "-scdmn", "-i", "0.01", "-c", str(count), "-f", d],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return glob.glob(f"{d}/*.raw.gz")[0]
    small, big = collectl_rec(30), collectl_rec(600)
    play = lambda f: min(cpu_of(["collectl", "-p", f, "-P", "-scdmn"]) for _ in range(2))
    crate = (600 - 30) / max(play(big) - play(small), 1e-9)
    print(f"  collectl  {crate:,.0f} cdmn samples/s (start-up excluded)   "
          f"veles/collectl = {ratio(rate, crate)}")
EOS
