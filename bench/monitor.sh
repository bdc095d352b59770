#!/bin/bash
# bench/monitor.sh BUILD_DIR: what `veles monitor` costs per sample beside
# vmstat (procps), sar (sysstat) and collectl, all sampling cpu, disks,
# memory and network at a 1-second interval in the same run; then what a
# sample costs at -i 0.05 (many samples, a steadier number), the start-up,
# and playback speed.
#
# CPU time comes from each process's rusage (wait4: a tool's helpers, such
# as sar's sadc, count against it). Start-up is taken out by running each
# tool twice, for 1 and for N+1 samples, and dividing the difference by N.
# The tools run side by side, so they share the machine's load.
set -eu
build=$(cd "${1:-build}" && pwd)
veles=$build/src/cli/veles
n=${SAMPLES:-20}
[ -x "$veles" ] || { echo "monitor: build $veles first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "monitor: needs python3" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

python3 - "$veles" "$n" <<'EOS'
import os, shutil, subprocess, sys, time
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

def run_all(cmds):
    """Starts every command at once; their cpu seconds (user + system)."""
    procs = {}
    for name, c in cmds.items():
        p = subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs[p.pid] = name
    cpu = {}
    while procs:
        pid, status, ru = os.wait4(-1, 0)
        if pid in procs:
            cpu[procs.pop(pid)] = ru.ru_utime + ru.ru_stime
    return cpu

def per_sample(count, interval):
    short = run_all({t: cmd(t, 1, interval) for t in tools})
    long = run_all({t: cmd(t, count + 1, interval) for t in tools})
    return {t: (long[t] - short[t]) / count * 1e3 for t in tools}, short

ms, start = per_sample(n, "1")
print(f"cpu time per sample, cpu+disk+memory+network at 1 s, {n} samples "
      "(start-up excluded):")
for t in tools:
    ratio = "" if t == "veles" else f"  (veles/{t} = {ms['veles'] / ms[t]:.2f})" if ms[t] > 0 else ""
    print(f"  {t:9s} {ms[t]:7.3f} ms/sample, one-sample run {start[t] * 1e3:6.1f} ms cpu{ratio}")
print(f"  veles target: <= 0.15 ms/sample -> {'met' if ms['veles'] <= 0.15 else 'NOT met'}")

# A steadier figure for veles alone: 200 samples at 0.05 s.
short = run_all({"veles": cmd("veles", 1, "0.05")})["veles"]
long = run_all({"veles": cmd("veles", 201, "0.05")})["veles"]
print(f"veles at -i 0.05 -c 200: {(long - short) / 200 * 1e3:.3f} ms/sample")

# Start-up: wall time of one sample and no output (-c 0), beside the same
# binary doing nothing (--version: loading its shared libraries) and
# /bin/true, taking turns.
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
print(f"veles monitor start-up (-c 0): {med['monitor']:.2f} ms; veles --version "
      f"{med['version']:.2f} ms; /bin/true {med['true']:.2f} ms "
      f"(monitor over --version: {med['monitor'] - med['version']:+.2f} ms; target < 5 ms)")

# Playback: record samples back to back, then play them into plot format.
count = 100000
subprocess.run([veles, "monitor", "-s", "cdmn", "-i", "0", "-c", str(count), "-f", "rec"],
               check=True)
best = None
for _ in range(3):
    p = subprocess.Popen([veles, "monitor", "-p", "rec", "-s", "cdmn", "-P"],
                         stdout=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    cpu = ru.ru_utime + ru.ru_stime
    best = cpu if best is None else min(best, cpu)
rate = count / best if best > 0 else float("inf")
print(f"playback of {count} cdmn samples into plot format: {rate:,.0f} samples/s "
      f"(target >= 1,000,000: {'met' if rate >= 1e6 else 'NOT met'}; "
      f"recording {os.path.getsize('rec') / count:.0f} bytes/sample)")
EOS
