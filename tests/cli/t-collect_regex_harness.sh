#!/bin/bash
# veles collect regex on the real harnesses: a Google Benchmark program
# built here (console table and JSON), hyperfine and pytest-benchmark, and
# `check` flagging a slowdown planted in the Google Benchmark program.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
for need in g++ hyperfine; do
	command -v $need >/dev/null || { echo "needs $need (scripts/deps.sh)" >&2; exit 77; }
done
[ -f /usr/include/benchmark/benchmark.h ] ||
	{ echo "needs libbenchmark-dev (scripts/deps.sh)" >&2; exit 77; }
$py -c 'import pytest_benchmark' 2>/dev/null ||
	{ echo "needs python3-pytest-benchmark (scripts/deps.sh)" >&2; exit 77; }
new_git_project p
src=$VELES_SRCDIR/tests/cli/gbench.cc
g++ -O2 -o fast "$src" -lbenchmark -lpthread || fail "building the Google Benchmark program"
g++ -O2 -DSLOW=1 -o slow "$src" -lbenchmark -lpthread || fail "building it slow"
gb="--benchmark_min_time=0.01"

# The console table: real and cpu time of every benchmark, its counters.
ok veles collect regex --format gbench -r 2 -- ./fast $gb
has "$T/out" "^BM_memcpy/4096 "
has "$T/out" "^  2 runs, 12 lines read: 6 matched, 6 ignored$"
has "$T/out" "^    BM_memcpy/8 \[real\] +n=2 "
$py - "$(json_of "$(newest)")" <<'PY' || fail "gbench console profile"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["type"] == "time" and p["header"]["units"] == {"time": "ns"}
assert p["collector_info"]["params"] == {"repeat": 2, "warmup": 0, "format": "gbench"}
got = {(t["uid"], t["subtype"]): p["resources"][k] for k, t in p["resource_type_map"].items()}
assert set(got) == {(u, s) for u in ["BM_StringCreation", "BM_memcpy/8", "BM_memcpy/4096"]
                    for s in ["real", "cpu"]}, got
real = got[("BM_memcpy/4096", "real")]
assert len(real["amount"]) == 2 and all(a > 0 for a in real["amount"]), real
assert real["widgets"] == [3, 3] and all(b > 1e6 for b in real["bytes_per_second"]), real
assert real["order"] == [1, 2] and all(i > 0 for i in real["iterations"])
PY
# JSON with repetitions: the repetitions measured, the aggregates not.
ok veles collect regex -q -o suppress --format gbench-json -- ./fast $gb \
	--benchmark_repetitions=3 --benchmark_format=json
$py - "$(json_of "$(newest)")" <<'PY' || fail "gbench json profile"
import json, sys
p = json.load(open(sys.argv[1]))
l = p["header"]["lines"]
assert l["matched"] == 9 and l["ignored"] == 12 and l["unmatched"] == 0, l
for k, t in p["resource_type_map"].items():
    assert len(p["resources"][k]["amount"]) == 3, (t, p["resources"][k])
PY
# --benchmark_out=FILE in the command: that file is read.
ok veles collect regex -q -o suppress --format gbench-json -- ./fast $gb --benchmark_out=gb.json
has "$(json_of "$(newest)")" '"files_read":1'

# check: the memcpy benchmarks 20 times slower in the next version.
printf 'fast\nslow\ngb.json\n' >.gitignore
git add .gitignore && git commit -qm "ignore builds" || fail commit
rm -f .veles/jobs/*.perf
collect() { veles collect regex -q -o suppress --format gbench -r 5 -- ./bench $gb || fail collect; }
cp fast bench && collect && ok veles add -q 0@p
commit_change "memcpy twenty times"
cp slow bench && collect && ok veles add -q 0@p
veles check head >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { cat "$T/out" "$T/err"; fail "check must flag the slow memcpy"; }
has "$T/out" "[├└]─ BM_memcpy/4096 \[cpu\]$"
grep -A1 "BM_memcpy/4096 \[cpu\]$" "$T/out" | grep -Eq "(Severe|Total)Degradation" ||
	{ cat "$T/out"; fail "BM_memcpy/4096 [cpu] not a severe degradation"; }

# hyperfine --export-json: every run's time, its user and system means.
ok veles collect regex --format hyperfine -o suppress -- hyperfine -N -r 4 -w 1 \
	--export-json hf.json 'sleep 0.01' 'true'
has "$T/out" "^    sleep 0.01 \[real\] +n=4 "
has "$T/out" "^    true \[sys\] +n=1 "
$py -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["lines"]["files_read"] == 1
r = {(t["uid"], t.get("subtype")): p["resources"][k] for k, t in p["resource_type_map"].items()}
assert all(0.009 < a < 1 for a in r[("sleep 0.01", "real")]["amount"]), r
assert r[("true", "real")]["exit-status"] == [0] * 4
' "$(json_of "$(newest)")" || fail "hyperfine profile"

# pytest-benchmark --benchmark-json=FILE.
cat >test_fib.py <<'EOS'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def test_fib(benchmark):
    assert benchmark(fib, 12) == 144
EOS
ok veles collect regex --format pytest-benchmark -o suppress -- $py -m pytest -q \
	-p no:cacheprovider --benchmark-min-rounds=5 --benchmark-max-time=0.01 \
	--benchmark-json=pb.json test_fib.py
has "$T/out" "^    test_fib.py::test_fib +n=[0-9]+ "
has "$T/out" "1 line read: 1 matched$"
