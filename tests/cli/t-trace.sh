#!/bin/bash
# veles collect trace --instrumented: the examples/ds library traced with
# the runtime; exact call counts per function, threads, a fork, aggregate
# sums, sampling, raw records kept, errors; and regression analysis over
# growing lists (the job matrix's generator) picks the linear model for
# SLList_search.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
ds=$VELES_SRCDIR/examples/ds

ok veles cflags trace
has "$T/out" "^-finstrument-functions"
flags=$(cat "$T/out")
fails 2 veles cflags nothing
ok veles collect trace --help
has "$T/out" "--instrumented"
has "$T/out" "--global-sampling N"

# shellcheck disable=SC2086
${CC:-cc} -O2 $flags -o ds_driver "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "build ds_driver"
${CC:-cc} -O2 -o ds_plain "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "build ds_plain"


# One workload of 200 keys and 60 searches: the driver's documented counts.
ok veles collect trace --instrumented -- ./ds_driver 200 60
has "$T/out" "Traced [0-9]+ calls in 1 threads of 1 processes"
# One word per entry or return, once the functions are defined.
has "$T/out" "Records: ([89]|1[0-6])\.[0-9] bytes per call"
trace_counts "$(newest)" >"$T/counts"
for want in "SLList_init 2" "SLList_insert 200" "SLList_search 60" "SLList_destroy 1" \
	"BTree_init 2" "BTree_insert 200" "BTree_search 60" "BTree_destroy 1" \
	"insertion_sort 1" "next_key 200" "run_workload 1" "main 1"; do
	has "$T/counts" "^$want\$"
done
# The seed's layout: uid#0 keys, type mixed, subtype time delta, units us;
# inclusive time covers exclusive time, SLList_destroy's includes SLList_init.
$py - "$(json_of "$(newest)")" <<'PY' || fail "trace profile layout"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["type"] == "mixed", p["header"]
assert p["header"]["units"] == {"mixed(time delta)": "us"}, p["header"]
assert p["collector_info"]["name"] == "trace"
t = p["resource_type_map"]["SLList_search#0"]
assert t == {"uid": "SLList_search", "type": "mixed", "subtype": "time delta",
             "location": "ds_driver"}, t
for k, r in p["resources"].items():
    assert set(r) >= {"amount", "exclusive", "order", "tid", "pid", "depth", "call-order"}, r.keys()
    for a, e in zip(r["amount"], r["exclusive"]):
        assert 0 <= e <= a, (k, a, e)
main = p["resources"]["main#0"]
assert main["depth"] == [0] and main["order"] == [0], main
run = p["resources"]["run_workload#0"]
total = sum(sum(r["amount"]) for k, r in p["resources"].items() if k != "main#0")
assert main["amount"][0] > run["amount"][0] > 0
ins = p["resources"]["SLList_insert#0"]
assert sorted(ins["order"]) == ins["order"] and len(set(ins["order"])) == 200
PY

# The call counts agree exactly with uftrace's on the same program (built
# without inlining, which -pg and -finstrument-functions treat apart): every
# function veles names has uftrace's count, and every one of the program's
# functions uftrace saw is named.
if command -v uftrace >/dev/null; then
	# shellcheck disable=SC2086
	${CC:-cc} -O2 -fno-inline $flags -o ds_noinl "$ds/ds_driver.c" "$ds/ds.c" -lpthread
	uftrace_calls "$T/ureport"
	ok veles collect trace --instrumented -- ./ds_noinl 200 60
	trace_counts "$(newest)" >"$T/vcounts"
	uftrace_agree "$T/ureport" "$T/vcounts" "counts differ from uftrace's" \
		SLList_insert BTree_search insertion_sort next_key run_workload
fi

# Threads: the main thread's workload and one on each of 3 threads.
ok veles collect trace --instrumented -f SLList_insert -f SLList_search -- ./ds_driver -t 3 100 10
has "$T/out" "in 4 threads of 1 processes"
$py - "$(json_of "$(newest)")" <<'PY' || fail "threads"
import json, sys, collections
p = json.load(open(sys.argv[1]))
assert sorted(p["resources"]) == ["SLList_insert#0", "SLList_search#0"], p["resources"].keys()
per = collections.Counter(p["resources"]["SLList_insert#0"]["tid"])
assert len(per) == 4 and set(per.values()) == {100}, per
assert len(p["resources"]["SLList_search#0"]["amount"]) == 40
PY

# Signal handlers that call traced functions, interrupting the hooks at
# any instruction and filling the buffer themselves: every call is kept.
# shellcheck disable=SC2086
${CC:-cc} -O2 $flags -o sigcalls "$VELES_SRCDIR/tests/data/trace/sigcalls.c" -lpthread ||
	fail "build sigcalls"
trace_sigcalls 3

# The views of a trace profile: a flame graph of inclusive time built from
# each call's thread, order and depth (main's frame is main's time, the
# second thread's workload a root of its own), and scatter, bars, flow.
ok veles collect trace --instrumented -- ./ds_driver -t 1 300 100
prof=$(newest)
ok veles show "$prof" flamegraph -o fg.svg
$py - "$(json_of "$prof")" fg.svg <<'PY' || fail "trace flame graph"
import json, re, sys
p = json.load(open(sys.argv[1]))
frames = re.findall(r'<g class="f"[^>]* data-v="([0-9.e+-]+)"[^>]*><title>([^\n<]+)\n',
                    open(sys.argv[2]).read())
frames = [(name, v) for v, name in frames]
val = {}
for name, v in frames:
    val.setdefault(name, []).append(float(v))
main = p["resources"]["main#0"]["amount"][0]
assert abs(val["main"][0] - main) <= 0.01 * main, (val["main"], main)
assert len(val["run_workload"]) == 2, val["run_workload"]
total = sum(a for r in p["resources"].values() for a in r["exclusive"])
assert abs(val["all"][0] - total) <= 0.01 * total, (val["all"], total)
PY
for v in scatter bars flow; do
	ok veles show "$prof" $v
	has "$T/out" "SLList_search"
done

# A fork: the child's calls are its own, none counted twice or lost.
ok veles collect trace --instrumented -f SLList_insert -f main -f run_all -- ./ds_driver -f -t 1 50
has "$T/out" "in 4 threads of 2 processes"
$py - "$(json_of "$(newest)")" <<'PY' || fail "fork"
import json, sys, collections
p = json.load(open(sys.argv[1]))
r = p["resources"]
per = collections.Counter(r["SLList_insert#0"]["pid"])
assert len(per) == 2 and set(per.values()) == {100}, per
assert len(r["run_all#0"]["amount"]) == 2, r["run_all#0"]
# main was entered before the fork: only the parent returns from it timed.
assert len(r["main#0"]["amount"]) == 1
PY

# Aggregate mode: one resource per function and thread, with the sums.
ok veles collect trace --instrumented --aggregate -- ./ds_driver -t 1 100 30
has "$T/out" "sums only"
$py - "$(json_of "$(newest)")" <<'PY' || fail "aggregate"
import json, sys
p = json.load(open(sys.argv[1]))
r = p["resources"]["SLList_insert#0"]
assert r["calls"] == [100, 100], r
assert len(set(r["tid"])) == 2
s = p["resources"]["SLList_search#0"]
assert s["calls"] == [30, 30] and all(a >= e > 0 for a, e in zip(s["amount"], s["exclusive"])), s
assert p["collector_info"]["params"]["aggregate"] is True
PY

# Sampling: every 10th insert by its own rule, every 4th call otherwise.
ok veles collect trace --instrumented -g 4 -f 'SLList_insert#10' -f SLList_search -- ./ds_driver 200 100
trace_counts "$(newest)" >"$T/counts"
has "$T/counts" "^SLList_insert 20$"
has "$T/counts" "^SLList_search 25$"

# Raw records kept, and kept compressed.
ok veles collect trace --instrumented -k -- ./ds_driver 10
dir=$(sed -n 's/^  Raw records kept in //p' "$T/out")
[ -n "$(ls "$dir"/*.vtr 2>/dev/null)" ] || fail "no records kept in '$dir'"
has "$dir"/*.meta "^clock [0-9]+ [0-9.]+ [0-9]+ [0-9.]+$"
rm -rf "$dir"
ok veles collect trace --instrumented -z -- ./ds_driver 10
dir=$(sed -n 's/^  Raw records kept in //p' "$T/out")
[ -n "$(ls "$dir"/*.vtr.gz 2>/dev/null)" ] || fail "no compressed records in '$dir'"
gzip -dc "$dir"/*.meta.gz | grep -q "^mode records" || fail "compressed meta"
rm -rf "$dir"

# Errors: one line each.
fails 2 veles collect trace -- ./ds_driver 10
has "$T/err" "choose --instrumented"
fails 2 veles collect trace --instrumented -- ./ds_plain 10
has "$T/err" "recorded no calls: was it built with .veles cflags trace."
cp ds_driver ds_stripped && strip ds_stripped
fails 2 veles collect trace --instrumented -- ./ds_stripped 10
has "$T/err" "ds_stripped has no symbol table"
fails 2 veles collect trace --instrumented -f 'x#0' -- ./ds_driver 10
fails 2 veles collect trace --instrumented -f SLList_search -f no_such_function -- ./ds_driver 10
has "$T/err" "^veles: collect trace: no function 'no_such_function' in ./ds_driver or the libraries"
# C++ functions by their demangled names, overloads by the name alone.
if command -v "${CXX:-c++}" >/dev/null; then
	# shellcheck disable=SC2086
	"${CXX:-c++}" -O2 $flags -o poly_i "$VELES_SRCDIR/tests/data/trace/poly.cc" || fail "build poly_i"
	ok veles collect trace --instrumented -f geo::Poly::area -f 'total(geo::Poly const&)' -- ./poly_i 7
	trace_counts "$(newest)" >"$T/counts"
	has "$T/counts" "^geo::Poly::area\(\) const 21$"
	has "$T/counts" "^geo::Poly::area\(int\) const 14$"
	has "$T/counts" "^total\(geo::Poly const&\) 7$"
	fails 2 veles collect trace --instrumented -f 'geo::Poly::volume' -- ./poly_i 7
fi
fails 1 veles collect trace --instrumented -- ./no-such-program

# Regression analysis over list lengths 200..2000 from the job matrix's
# generator: every search misses (-m), so SLList_search walks the list, and
# the linear model fits it best. A call during which the process was
# preempted (milliseconds, on a loaded machine) says nothing about the
# function: the filter drops calls over 20 µs (the longest takes 4).
cat >>.veles/config.yml <<'YML'
cmds: [./ds_driver]
args: [-m]
workloads: [lengths]
generators:
  workload:
    - {id: lengths, type: integer, min_range: 200, max_range: 2000, step: 200}
collectors:
  - name: trace
    params: {instrumented: true, func: SLList_search}
postprocessors:
  - name: filter
    params: {where: amount<20}
  - name: regression-analysis
    params: {regression_models: [constant, logarithmic, linear, exponential]}
YML
rm -f .veles/jobs/*.perf
ok veles run matrix
has "$T/out" "1 job: 1 ok"
$py - "$(json_of "$(newest)")" <<'PY' || fail "regression over list lengths"
import json, sys, collections
p = json.load(open(sys.argv[1]))
r = p["resources"]["SLList_search#0"]
# The size of each call is its list's length, each length searched that often.
per = collections.Counter(r["structure-unit-size"])
assert set(per) == set(range(200, 2001, 200)), per
assert all(n * 0.95 <= per[n] <= n for n in per), per
fits = {m["model"]: m["r_square"] for m in p["models"] if m["uid"] == "SLList_search"}
best = max(fits, key=fits.get)
# Linear wins on a quiet machine. When load from other processes grows
# during the matrix, the later (longer) lists run slower and bend the cloud
# upward, and a gently curved exponential can edge ahead by a hair; the
# linear fit must then still be within 0.02 of it, and far above the
# constant and logarithmic ones.
assert best == "linear" or (best == "exponential" and fits[best] - fits["linear"] < 0.02), fits
assert fits["linear"] > fits["constant"] + 0.2 and fits["linear"] > fits["logarithmic"], fits
# A call preempted by another process scatters a point here and there on
# a busy machine; the medians per length lie on a line all the same (r^2
# of at least 0.8: a whole run slowed by another process's load moves its
# length's median by a third on a shared host).
med = collections.defaultdict(list)
for a, n in zip(r["amount"], r["structure-unit-size"]):
    med[n].append(a)
xs = sorted(med)
ys = [sorted(med[n])[len(med[n]) // 2] for n in xs]
mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
b1 = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
sse = sum((y - my - b1 * (x - mx)) ** 2 for x, y in zip(xs, ys))
assert b1 > 0 and sse < 0.2 * sum((y - my) ** 2 for y in ys), (xs, ys)
PY

fails 2 veles collect trace --dynamic -- ./ds_plain 10
has "$T/err" "--dynamic needs -f FUNC, -u PROBE or a -s strategy"
fails 2 veles collect trace --dynamic -s nothing -- ./ds_plain 10
has "$T/err" "--strategy is userspace, all, u_sampled, a_sampled or custom"
fails 2 veles collect trace --instrumented -s userspace -- ./ds_driver 10
fails 2 veles collect trace --dynamic --instrumented -f main -- ./ds_plain 10
fails 2 veles collect trace --instrumented --size insertion_sort:2 -- ./ds_driver 10
has "$T/err" "ds_driver is built with -finstrument-functions, whose hooks do not see arguments: build it with \`veles cflags trace --pg\`"
fails 2 veles collect trace --dynamic --size insertion_sort:13 -- ./ds_plain 10
has "$T/err" "ARGN from 1 to 6"
fails 2 veles collect trace --dynamic -u 'a#b#c#d#e' -- ./ds_plain 10
fails 2 veles collect trace -f 'a#b#c' -- ./ds_plain 10
has "$T/err" "--func is \\[LIB#\\]FUNC\\[#N\\], not 'a#b#c'"
fails 2 veles collect trace -f '' -- ./ds_plain 10
fails 2 veles collect trace -u 'a##b' -- ./ds_plain 10
has "$T/err" "--usdt is \\[LIB#\\]PROBE"
fails 2 veles collect trace --dynamic --size insertion_sort -- ./ds_plain 10
