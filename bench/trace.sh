#!/bin/bash
# bench/trace.sh BUILD_DIR: the instrumented trace's cost per call of a
# small function (bench/trace_calls.c, 10,000,000 calls) and its raw bytes
# per call, in its builds (-finstrument-functions, the mcount build of
# `veles cflags trace --pg` and plain -pg), beside uftrace recording the
# same program built with -pg, and the bare hooks: -finstrument-functions calling glibc's empty ones, and -pg
# calling glibc's mcount (gprof's), and the floor of any cycle-counter
# trace on this machine: hooks that only read the counter twice per call
# (bench/trace_floor.c). Each is the run's time less the
# uninstrumented program's, divided by the calls; the contenders take
# turns ROUNDS times (default 5) and each figure is the median. Then the
# call counts: veles's (records, --aggregate and the mcount build) must equal
# uftrace's.
# Last the dynamic mode (root only): ns and bytes per traced call of the
# plain program over DYN_CALLS calls (default 200,000), veles collect trace
# -d end to end beside perf probe + perf record and bpftrace counting the
# same probes; its call count must equal uftrace's of the same calls.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
calls=${CALLS:-10000000}
rounds=${ROUNDS:-5}
veles=$build/src/cli/veles
lib=$build/runtime/libveles-trace.so
for tool in uftrace python3 git perf bpftrace; do
	command -v $tool >/dev/null || { echo "trace: needs $tool (scripts/deps.sh)" >&2; exit 1; }
done
[ -f "$lib" ] || { echo "trace: build $lib first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cc=${CC:-cc}
$cc -O2 -o plain "$here/trace_calls.c"
# shellcheck disable=SC2046
$cc -O2 $("$veles" cflags trace) -o instr "$here/trace_calls.c"
# shellcheck disable=SC2046
$cc -O2 $("$veles" cflags trace --pg) -o instr_pg "$here/trace_calls.c"
# Plain -pg too (mcount after the prologue, its return address replaced).
$cc -O2 -pg -o instr_mcount "$here/trace_calls.c"
$cc -O2 -pg -o pg "$here/trace_calls.c"
$cc -O2 -shared -fPIC -o floor.so "$here/trace_floor.c"

python3 - "$calls" "$rounds" "$lib" <<'EOS'
import glob, os, shutil, statistics, subprocess, sys, time
calls, rounds, lib = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
null = subprocess.DEVNULL
def run(cmd, env=None):
    e = dict(os.environ, **(env or {}))
    t = time.perf_counter()
    subprocess.run(cmd, stdout=null, stderr=null, check=True, env=e)
    return time.perf_counter() - t
def veles():
    shutil.rmtree("vt", ignore_errors=True)
    os.mkdir("vt")
    return run(["./instr", str(calls)], {"LD_PRELOAD": lib, "VELES_TRACE_DIR": "vt"})
def veles_pg():
    shutil.rmtree("vp", ignore_errors=True)
    os.mkdir("vp")
    return run(["./instr_pg", str(calls)], {"LD_PRELOAD": lib, "VELES_TRACE_DIR": "vp"})
def veles_mcount():
    shutil.rmtree("vm", ignore_errors=True)
    os.mkdir("vm")
    return run(["./instr_mcount", str(calls)], {"LD_PRELOAD": lib, "VELES_TRACE_DIR": "vm"})
def veles_agg():
    shutil.rmtree("va", ignore_errors=True)
    os.mkdir("va")
    return run(["./instr", str(calls)], {"LD_PRELOAD": lib, "VELES_TRACE_DIR": "va",
                                         "VELES_TRACE_MODE": "aggregate"})
def uftrace():
    shutil.rmtree("ut", ignore_errors=True)
    return run(["uftrace", "record", "-d", "ut", "./pg", str(calls)])
tools = {
    "plain": lambda: run(["./plain", str(calls)]),
    "stub": lambda: run(["./instr", str(calls)]),
    "mcount": lambda: run(["./pg", str(calls)]),
    "floor": lambda: run(["./instr", str(calls)], {"LD_PRELOAD": "./floor.so"}),
    "veles": veles,
    "veles_pg": veles_pg,
    "veles_mcount": veles_mcount,
    "aggregate": veles_agg,
    "uftrace": uftrace,
}
got = {k: [] for k in tools}
for _ in range(rounds):
    for k, f in tools.items():
        got[k].append(f())
ns = {k: statistics.median((v - p) / calls * 1e9 for v, p in zip(got[k], got["plain"]))
      for k in tools}
size = lambda pattern: sum(os.path.getsize(f) for f in glob.glob(pattern, recursive=True))
vb, ub = size("vt/*.vtr") / calls, size("ut/**/*.dat") / calls
pb, mb = size("vp/*.vtr") / calls, size("vm/*.vtr") / calls
print(f"trace, {calls:,} calls of a small function (ns per call over the plain program; "
      f"median of {rounds} turns):")
print(f"  veles --instrumented {ns['veles']:6.1f} ns  {vb:5.1f} bytes/call "
      f"(targets <= 15 ns, <= 16 bytes)")
print(f"  veles --instrumented, the --pg build (-pg -mfentry) {ns['veles_pg']:6.1f} ns  {pb:5.1f} "
      f"bytes/call")
print(f"  veles --instrumented, plain -pg (mcount)             {ns['veles_mcount']:6.1f} ns  "
      f"{mb:5.1f} bytes/call")
print(f"  veles --aggregate     {ns['aggregate']:6.1f} ns  {size('va/*.agg') / calls:5.1f} "
      f"bytes/call (sums and histograms per function, nothing per call)")
print(f"  uftrace record (-pg) {ns['uftrace']:6.1f} ns  {ub:5.1f} bytes/call "
      f"-> veles takes {ns['veles'] / ns['uftrace']:.2f}x uftrace's time, "
      f"{vb / ub:.2f}x its bytes")
print(f"  -finstrument-functions, glibc's empty hooks {ns['stub']:6.1f} ns; "
      f"-pg, glibc's mcount {ns['mcount']:6.1f} ns")
print(f"  the cycle counter read twice, nothing kept {ns['floor']:6.1f} ns "
      f"(no counter-based trace goes below): veles adds {ns['veles'] - ns['floor']:.1f} ns, "
      f"its --pg build {ns['veles_pg'] - ns['floor']:.1f} ns")
EOS

# Call counts: uftrace's report against veles's profile, records and sums.
git init -q p && cd p
git -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m init
"$veles" init >/dev/null
count_calls=$((calls / 10))
uftrace record -d ../uc ../pg "$count_calls" >/dev/null
uftrace report -d ../uc -f call -s call --no-pager >../ureport 2>/dev/null ||
	uftrace report -d ../uc -f call >../ureport
"$veles" collect trace --instrumented -q -- ../instr "$count_calls" >/dev/null
"$veles" collect trace --instrumented --aggregate -q -- ../instr "$count_calls" >/dev/null
"$veles" collect trace --instrumented -q -- ../instr_pg "$count_calls" >/dev/null
python3 - ../ureport .veles/jobs/*.perf <<'EOS'
import json, re, sys
want = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\d+)\s+(\S+)\s*$", line)
    if m:
        want[m.group(2)] = int(m.group(1))
ok = True
for path in sys.argv[2:]:
    p = json.load(open(path))
    agg = p["collector_info"]["params"].get("aggregate") is True
    kind = "aggregate" if agg else ("--pg build" if "instr_pg" in path else "records")
    got = {}
    for k, r in p["resources"].items():
        uid = p["resource_type_map"][k]["uid"]
        got[uid] = got.get(uid, 0) + (sum(r["calls"]) if agg else len(r["amount"]))
    for f in ("main", "small"):
        same = got.get(f) == want.get(f)
        ok &= same
        print(f"  calls of {f}: uftrace {want.get(f)}, veles ({kind}) "
              f"{got.get(f)} {'agree' if same else 'DIFFER'}")
sys.exit(0 if ok else 1)
EOS

[ "$(id -u)" -eq 0 ] || { echo "  dynamic mode: needs root, not measured"; exit 0; }
dyn_calls=${DYN_CALLS:-200000}
python3 - "$dyn_calls" "$rounds" "$veles" "$tmp/plain" "$tmp/pg" <<'EOS'
import glob, json, os, re, statistics, subprocess, sys, time
calls, rounds, veles, prog, pg = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4],
                                  sys.argv[5])
null = subprocess.DEVNULL
def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=null, stderr=null, check=True)
    return time.perf_counter() - t
subprocess.run(["perf", "probe", "-q", "-x", prog, "small"], check=True, stderr=null)
subprocess.run(["perf", "probe", "-q", "-x", prog, "small%return"], check=True, stderr=null)
try:
    tools = {
        "plain": [prog, str(calls)],
        "veles": [veles, "collect", "trace", "-d", "-q", "-f", "small", "--", prog, str(calls)],
        "perf": ["perf", "record", "-q", "-o", "../perf.data", "-e", "probe_plain:small",
                 "-e", "probe_plain:small__return", prog, str(calls)],
        "bpftrace": ["bpftrace", "-e", f"uprobe:{prog}:small {{ @e = count(); }} "
                     f"uretprobe:{prog}:small {{ @r = count(); }}", "-c", f"{prog} {calls}"],
    }
    got = {k: [] for k in tools}
    for _ in range(rounds):
        for k, cmd in tools.items():
            got[k].append(run(cmd))
finally:
    subprocess.run(["perf", "probe", "-q", "-d", "probe_plain:*"], stderr=null)
ns = {k: statistics.median((v - p) / calls * 1e9 for v, p in zip(got[k], got["plain"]))
      for k in tools}
out = subprocess.run(tools["veles"][:4] + tools["veles"][5:], capture_output=True, text=True,
                     check=True).stdout
vb = float(re.search(r"Probe samples: ([0-9.]+) bytes per call", out).group(1))
pb = os.path.getsize("../perf.data") / calls
print(f"dynamic mode, {calls:,} calls, end to end (ns per call over the plain program):")
print(f"  veles collect trace -d {ns['veles']:7.0f} ns {vb:5.1f} bytes/call "
      f"(probe samples; profile of every call written)")
print(f"  perf probe + record    {ns['perf']:7.0f} ns {pb:5.1f} bytes/call (perf.data) "
      f"-> veles {ns['veles'] / ns['perf']:.2f}x the time")
print(f"  bpftrace, counts only  {ns['bpftrace']:7.0f} ns   0.0 bytes/call (kernel maps) "
      f"-> veles {ns['veles'] / ns['bpftrace']:.2f}x the time")
# The same calls counted by uftrace and by the dynamic mode's profile.
subprocess.run(["uftrace", "record", "-d", "../ud", pg, str(calls)], stdout=null, check=True)
rep = subprocess.run(["uftrace", "report", "-d", "../ud", "-f", "call", "--no-pager"],
                     capture_output=True, text=True, check=True).stdout
want = int(re.search(r"^\s*(\d+)\s+small\s*$", rep, re.M).group(1))
latest = max(glob.glob(".veles/jobs/*.perf"), key=os.path.getmtime)
got = len(json.load(open(latest))["resources"]["small#0"]["amount"])
print(f"  calls of small: uftrace {want}, veles -d {got} {'agree' if want == got else 'DIFFER'}")
sys.exit(0 if want == got else 1)
EOS
