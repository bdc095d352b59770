#!/bin/bash
# bench/profile_store.sh BUILD_DIR: what a profile costs to keep, beside the
# peers' own files of the same run (docs/profile-format.md, the compact form).
#
#  1. Memory: bench/memalloc.c making ALLOCS allocations (default 1,000,000)
#     and sqlite3 running a script, each under heaptrack and under `veles
#     collect memory`: bytes per allocation of the profile as the store keeps
#     it (the blob `veles add` writes) and as it waits in .veles/jobs/, against
#     heaptrack's file (zstd-compressed, as heaptrack writes it).
#  2. Trace: bench/trace_calls.c making CALLS calls (default 1,000,000) of a
#     small function under uftrace (built -pg) and `veles collect trace
#     --instrumented`: stored bytes per traced call against uftrace's data
#     directory.
#  3. Scale: a generated profile of RESOURCES resources (default 10,000,000;
#     bench/gen_profile.py, the time layout, one JSON object per resource)
#     added to a fresh store, wall time and peak RSS by /usr/bin/time
#     (median of RUNS, default 3), beside python's json.load of the same file;
#     then the stored profile read back by `veles show raw` and added again
#     from its compact form.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
allocs=${ALLOCS:-1000000}
calls=${CALLS:-1000000}
resources=${RESOURCES:-10000000}
runs=${RUNS:-3}
veles=$build/src/cli/veles
here=$(cd "$(dirname "$0")" && pwd)
for tool in cc python3 heaptrack uftrace sqlite3 git /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "profile_store: needs $tool" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "profile_store: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export VELES_MEMORY_LIB="$build/runtime/libveles-memory.so"
cc -O2 -fno-omit-frame-pointer -o memalloc "$here/memalloc.c"
cc -O2 $("$veles" cflags trace) -o instr "$here/trace_calls.c"
cc -O2 -pg -o pg "$here/trace_calls.c"
cat >work.sql <<'EOS'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)
INSERT INTO t SELECT x, printf('name-%d-%s', x, hex(randomblob(8))), x * 0.5 FROM c;
CREATE INDEX t_name ON t(name);
SELECT count(*), sum(length(name)) FROM t WHERE name LIKE 'name-1%';
EOS

# A fresh git project with Veles in $1, as cwd.
project() {
	rm -rf "$tmp/$1" && mkdir "$tmp/$1" && cd "$tmp/$1"
	git init -q
	git -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m init
	"$veles" init >/dev/null
}

# stored NAME: bytes of the newest pending profile as `veles add` stores it,
# then of it pending: "BLOB PENDING".
stored() {
	local f blob pending
	f=$(ls -t .veles/jobs/*.perf | head -1)
	pending=$(stat -c %s "$f")
	"$veles" add -q "$f"
	blob=$(git ls-tree -r refs/veles/ledger | awk -v n="$(basename "$f")" '$4 ~ n {print $3}')
	echo "$(git cat-file -s "$blob") $pending"
}

# memory LABEL ALLOCATIONS CMD...: heaptrack's and veles's bytes.
memory() {
	local label=$1 n=$2 ht veles_b
	shift 2
	rm -rf "$tmp/ht" && mkdir "$tmp/ht"
	heaptrack -o "$tmp/ht/out" "$@" <"$tmp/work.sql" >/dev/null 2>&1
	ht=$(cat "$tmp"/ht/out* | wc -c)
	"$veles" collect memory -q -o suppress -- "$@" <"$tmp/work.sql" >/dev/null
	if [ "$n" = count ]; then
		"$veles" show "$(ls -t .veles/jobs/*.perf | head -1)" memory --format json >"$tmp/s.json"
		n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["allocations"])' \
			"$tmp/s.json")
	fi
	veles_b=$(stored)
	python3 - "$label" "$n" "$ht" $veles_b <<'EOS'
import sys
label, n, ht, blob, pending = sys.argv[1], *map(int, sys.argv[2:])
print(f"memory, {label}: {n:,} allocations")
print(f"  veles stored {blob / n:.2f} B/allocation ({blob / 1e6:.2f} MB; pending file "
      f"{pending / n:.2f} B), heaptrack's file {ht / n:.2f} B/allocation "
      f"-> {blob / ht:.2f}x heaptrack's bytes (target <= 1)")
EOS
}

project mem
memory "bench/memalloc.c" count "$tmp/memalloc" "$allocs"
memory "sqlite3 (50,000 rows inserted, indexed, queried)" count sqlite3 :memory:

project trace
rm -rf "$tmp/ut"
uftrace record -d "$tmp/ut" "$tmp/pg" "$calls" >/dev/null 2>&1
ut=$(du -sb "$tmp/ut" | cut -f1)
"$veles" collect trace --instrumented -q -o suppress -- "$tmp/instr" "$calls" >/dev/null
n=$("$veles" export "$(ls -t .veles/jobs/*.perf | head -1)" |
	python3 -c 'import json,sys; p=json.load(sys.stdin); print(sum(len(r["amount"]) for r in p["resources"].values()))')
python3 - "$n" "$ut" $(stored) <<'EOS'
import sys
n, ut, blob, pending = map(int, sys.argv[1:])
print(f"trace, bench/trace_calls.c: {n:,} traced calls")
print(f"  veles stored {blob / n:.3f} B/call ({blob / 1e3:.0f} kB; pending file {pending / n:.3f} B), "
      f"uftrace's data directory {ut / n:.2f} B/call -> {blob / ut:.4f}x uftrace's bytes "
      f"(target <= 1)")
EOS

# The scale of issue 13: one profile of ten million resources.
cd "$tmp"
python3 "$here/gen_profile.py" big.json --layout time --uids $((resources / 1000)) --points 1000
# timed OUT CMD...: "SECONDS PEAK_KB CPU_SECONDS" of CMD, output to OUT.
timed() {
	local out=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$tmp/time" "$@" >"$out" 2>/dev/null
	cat "$tmp/time"
}
: >"$tmp/add" && : >"$tmp/py" && : >"$tmp/show" && : >"$tmp/readd"
for _ in $(seq "$runs"); do
	project scale
	timed /dev/null "$veles" add -q -f "$tmp/big.json" >>"$tmp/add"
	blob=$(git ls-tree -r refs/veles/ledger | awk '{print $3}')
	timed /dev/null "$veles" show "$blob" raw >>"$tmp/show"
	git cat-file -p "$blob" >"$tmp/big.perf"
	project again
	timed /dev/null "$veles" add -q -f "$tmp/big.perf" >>"$tmp/readd"
	timed /dev/null python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/big.json" \
		>>"$tmp/py"
done
python3 - "$tmp" "$(stat -c %s "$tmp/big.json")" "$(stat -c %s "$tmp/big.perf")" "$resources" <<'EOS'
import statistics, sys
tmp, size, packed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def runs(name):
    rows = [line.split() for line in open(f"{tmp}/{name}") if line.strip()]
    return (statistics.median(float(r[0]) for r in rows), max(int(r[1]) for r in rows) / 1024,
            statistics.median(float(r[2]) + float(r[3]) for r in rows))
add, py, show, readd = (runs(k) for k in ("add", "py", "show", "readd"))
print(f"scale: {n:,} resources, {size / 1e6:.0f} MB of JSON (time layout), stored as "
      f"{packed / 1e6:.1f} MB ({packed / n:.2f} B/resource)")
print(f"  veles add (JSON)     {add[0]:6.2f} s wall {add[2]:6.2f} s CPU {add[1]:7.0f} MB peak RSS "
      f"(targets < 3 s, < 300 MB)")
print(f"  python json.load     {py[0]:6.2f} s wall {py[2]:6.2f} s CPU {py[1]:7.0f} MB -> veles add "
      f"takes {add[0] / py[0]:.2f}x its time, {add[1] / py[1]:.2f}x its memory")
print(f"  veles add (compact)  {readd[0]:6.2f} s wall {readd[2]:6.2f} s CPU {readd[1]:7.0f} MB")
print(f"  veles show raw       {show[0]:6.2f} s wall {show[2]:6.2f} s CPU {show[1]:7.0f} MB "
      f"(the JSON written out, streamed)")
EOS
