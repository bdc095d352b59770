#!/bin/bash
# bench/memory.sh BUILD_DIR: what recording every allocation costs.
#
# bench/memalloc.c makes N allocations (default 5,000,000) of varied sizes
# from three call sites, keeping a working set of 4096 blocks; it is built
# -O2 -fno-omit-frame-pointer, as collect memory asks. It runs plain, with
# libveles-memory.so preloaded (what `veles collect memory` runs: the
# records it writes, and the clock page a thread of this script ticks
# every 2 ms as the driver does), under heaptrack and under
# valgrind massif (once, it is slow), taking
# turns PAIRS times (default 3) so the load of a shared machine falls on
# all alike. Each slowdown is the median of the per-turn ratios of CPU time
# (user + sys, every process of the run) against the plain run beside it;
# wall times are printed too. The whole `veles collect memory` (run,
# symbolise, write the N-resource profile) and massif are timed once.
# Then the same on a real program: sqlite3 running a script, whose
# libsqlite3 and libc lack frame pointers, so that auto (the default)
# unwinds its events by their unwind tables: it runs with --unwind fp
# too, and the mean stack depth each records is printed beside the
# costs, with libunwind's, and how many of auto's stacks are the ones
# libunwind finds.
set -eu
build=$(cd "${1:-build}" && pwd)
n=${N:-5000000}
pairs=${PAIRS:-3}
veles=$build/src/cli/veles
rt=$build/runtime/libveles-memory.so
here=$(cd "$(dirname "$0")" && pwd)
for tool in cc python3 heaptrack valgrind zstd sqlite3 git; do
	command -v $tool >/dev/null || { echo "memory: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] && [ -f "$rt" ] || { echo "memory: build $veles and $rt first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cc -O2 -fno-omit-frame-pointer -o memalloc "$here/memalloc.c"
git init -q project && cd project
git -c user.name=bench -c user.email=bench@example.com commit -q --allow-empty -m init
"$veles" init >/dev/null
# The real program: sqlite3 building, indexing and querying a table.
cat >"$tmp/work.sql" <<'EOS'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
INSERT INTO t SELECT x, printf('name-%d-%s', x, hex(randomblob(8))), x * 0.5 FROM c;
CREATE INDEX t_name ON t(name);
SELECT count(*), sum(length(name)) FROM t WHERE name LIKE 'name-1%';
SELECT name, count(*) FROM t GROUP BY substr(name, 1, 7) ORDER BY 2 DESC LIMIT 5;
EOS

python3 - "$tmp" "$veles" "$rt" "$n" "$pairs" <<'EOS'
import ctypes, glob, mmap, os, re, shutil, statistics, subprocess, sys, threading, time
tmp, veles, rt, n, pairs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
null = subprocess.DEVNULL
rec = os.path.join(tmp, "rec")

# The clock page (docs/memory-format.md), ticked as `collect memory` does.
clock = os.path.join(tmp, "clock")
with open(clock, "wb") as f:
    f.write(bytes(4096))
page = mmap.mmap(os.open(clock, os.O_RDWR), 4096)
word = ctypes.c_uint64.from_buffer(page)
def tick():
    while True:
        word.value = time.monotonic_ns()  # one aligned 8-byte store
        time.sleep(0.002)
word.value = time.monotonic_ns()
threading.Thread(target=tick, daemon=True).start()

def run(cmd, env=None, stdin=None):
    """Wall and CPU (user + sys of the process and all it waited for)."""
    e = dict(os.environ, **(env or {}))
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=null, stderr=null, env=e,
                         stdin=open(stdin) if stdin else null)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"memory: {cmd[0]} failed ({status})")
    return wall, ru.ru_utime + ru.ru_stime

def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)

def veles_env(unwind):
    return {"LD_PRELOAD": rt, "VELES_MEMORY_CLOCK": clock, "VELES_MEMORY_OUT": rec + "/mem",
            "VELES_MEMORY_UNWIND": unwind}

def contenders(prog, stdin=None, with_fp=False):
    """veles is what `collect memory` runs (--unwind auto); veles-fp walks
    frame pointers only, for what unwinding code without them costs."""
    c = {"plain": lambda: run(prog, stdin=stdin)}
    if with_fp:
        c["veles-fp"] = lambda: (fresh(rec), run(prog, veles_env("fp"), stdin))[1]
    # After veles-fp: the records left for the sizes below are auto's.
    c["veles"] = lambda: (fresh(rec), run(prog, veles_env("auto"), stdin))[1]
    c["heaptrack"] = lambda: (fresh(tmp + "/ht"), run(["heaptrack", "-o", tmp + "/ht/out"] + prog,
                              stdin=stdin))[1]
    return c

# The record files, not the live files beside them (the threads' buffers,
# mapped: a fixed size per thread, whose records also go to the record
# file at exit).
def files(pattern):
    return [f for f in glob.glob(pattern) if not f.endswith(".live")]

def size_of(pattern):
    return sum(os.path.getsize(f) for f in files(pattern))

def unzstd_size(pattern):
    total = 0
    for f in glob.glob(pattern):
        out = subprocess.run(["zstd", "-dc", f], capture_output=True, check=True).stdout
        total += len(out)
    return total

def zstd_size(pattern):
    total = 0
    for f in files(pattern):
        out = subprocess.run(["zstd", "-3", "-c", f], capture_output=True, check=True).stdout
        total += len(out)
    return total

def measure(label, prog, allocs, stdin=None, with_fp=False):
    c = contenders(prog, stdin, with_fp)
    for name in c:  # warm-up
        c[name]()
    got = {name: [] for name in c}
    for _ in range(pairs):
        for name in c:
            got[name].append(c[name]())
    med = lambda k, i: statistics.median(v[i] for v in got[k])
    ratio = lambda k, i: statistics.median(v[i] / p[i] for v, p in zip(got[k], got["plain"]))
    print(f"{label}: {allocs:,} allocations, medians of {pairs} alternating turns")
    for name in c:
        cpu = med(name, 1)
        print(f"  {name:10s} {cpu * 1e9 / allocs:7.1f} ns/allocation CPU "
              f"({ratio(name, 1):5.2f}x plain; wall {med(name, 0):6.2f} s, {ratio(name, 0):5.2f}x)")
    return got

got = measure("memalloc", [tmp + "/memalloc", str(n)], n)
raw = size_of(rec + "/mem.*")
ht_file = glob.glob(tmp + "/ht/out*")
ht_packed = size_of(tmp + "/ht/out*")
ht_raw = unzstd_size(tmp + "/ht/out*.zst") if ht_file and ht_file[0].endswith(".zst") else ht_packed
print(f"  output per allocation: veles {raw / n:.2f} B raw ({zstd_size(rec + '/mem.*') / n:.2f} B "
      f"zstd -3); heaptrack {ht_raw / n:.2f} B raw ({ht_packed / n:.2f} B as it stores it)")
print(f"  veles CPU overhead {statistics.median(v[1] / p[1] for v, p in zip(got['veles'], got['plain'])):.2f}x "
      f"(target <= 1.5x)")

wall, cpu = run(["valgrind", "--tool=massif", "--massif-out-file=" + tmp + "/massif.out",
                 tmp + "/memalloc", str(n)])
plain = statistics.median(v[1] for v in got["plain"])
print(f"  massif     {cpu * 1e9 / n:7.1f} ns/allocation CPU ({cpu / plain:5.2f}x plain, once)")
os.chdir(tmp + "/project")
t = time.perf_counter()
out = subprocess.run([veles, "collect", "memory", "-o", "suppress", "--", tmp + "/memalloc", str(n)],
                     capture_output=True, text=True, check=True).stdout
wall = time.perf_counter() - t
cmd_cpu = float(re.search(r"the command used ([0-9.]+) s CPU", out).group(1))
prof = size_of(".veles/jobs/*.perf")
print(f"  under `veles collect memory` itself the command used {cmd_cpu:.2f} s CPU "
      f"({cmd_cpu / plain:.2f}x the plain median, one run)")
print(f"  whole `veles collect memory` (run, symbolise, write the profile): {wall:.2f} s wall, "
      f"profile {prof / 1e6:.0f} MB ({prof / n / 2:.0f} B per event)")
for f in glob.glob(".veles/jobs/*"):
    os.unlink(f)

import collections, json
def depth(unwind):
    """Allocations, their mean stack depth (frames below the allocator),
    the share with more than one frame, and how many of each stack, in a
    `collect memory` profile."""
    for f in glob.glob(".veles/jobs/*"):
        os.unlink(f)
    subprocess.run([veles, "collect", "memory", "-q", "-o", "suppress", "--unwind", unwind, "--",
                    "sqlite3", ":memory:"], stdin=open(tmp + "/work.sql"), stdout=null, check=True)
    prof = json.load(open(glob.glob(".veles/jobs/*.perf")[0]))
    kinds = prof["resource_type_map"]
    n = frames = deep = 0
    stacks = collections.Counter()
    for key, ev in prof["resources"].items():
        t = kinds[key]
        if t["subtype"] in ("free", "delete", "delete[]"):
            continue
        k = len(ev["amount"])
        d = len(t["trace"]) - 1
        n += k
        frames += k * d
        deep += k * (d > 1)
        stacks[tuple(f["function"] for f in t["trace"])] += k
    return n, frames / max(n, 1), 100 * deep / max(n, 1), stacks

allocs, depth_auto, deep_auto, stacks_auto = depth("auto")
_, depth_lu, deep_lu, stacks_lu = depth("libunwind")
_, depth_fp, deep_fp, _ = depth("fp")
got = measure("sqlite3 (200,000 rows inserted, indexed, queried)", ["sqlite3", ":memory:"], allocs,
              tmp + "/work.sql", with_fp=True)
same = sum((stacks_auto & stacks_lu).values())
print(f"  stacks recorded: veles (auto) {depth_auto:.1f} frames per allocation, {deep_auto:.1f}% "
      f"with more than one; --unwind libunwind {depth_lu:.1f} frames, {deep_lu:.1f}%; "
      f"veles-fp {depth_fp:.1f} frames, {deep_fp:.1f}%")
print(f"  auto's stacks are libunwind's for {100 * same / max(allocs, 1):.1f}% of the allocations")
wall, cpu = run(["valgrind", "--tool=massif", "--massif-out-file=" + tmp + "/massif.out",
                 "sqlite3", ":memory:"], stdin=tmp + "/work.sql")
plain = statistics.median(v[1] for v in got["plain"])
print(f"  massif     {cpu * 1e9 / allocs:7.1f} ns/allocation CPU ({cpu / plain:5.2f}x plain, once)")
print(f"  output per allocation: veles {size_of(rec + '/mem.*') / allocs:.2f} B raw "
      f"({zstd_size(rec + '/mem.*') / allocs:.2f} B zstd -3); heaptrack "
      f"{unzstd_size(tmp + '/ht/out*.zst') / allocs:.2f} B raw "
      f"({size_of(tmp + '/ht/out*') / allocs:.2f} B as it stores it)")
EOS
