#!/bin/bash
# veles collect trace --instrumented on programs built with
# `veles cflags trace --pg` (mcount's __fentry__ hook and the runtime's
# return trampoline), and with plain -pg (mcount after the prologue): the
# same exact call counts per function as the -finstrument-functions build,
# threads, a fork, --size read from the arguments, return values intact in every
# register class, longjmp and C++ exceptions, and no gprof gmon.out left
# behind.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
ds=$VELES_SRCDIR/examples/ds
data=$VELES_SRCDIR/tests/data/trace

ok veles cflags trace --pg
has "$T/out" "^-pg -mfentry"
pg=$(cat "$T/out")
ok veles cflags trace
fi=$(cat "$T/out")
ok veles cflags trace --pg --link
has "$T/out" "^-pg -mfentry .*-lveles-trace"
fails 2 veles cflags trace --pgx
ok veles cflags --help
has "$T/out" "--pg"

# Inlining apart (-finstrument-functions traces inlined functions, -pg
# does not), the three builds make the same calls. -pg on the link line
# too: gcrt1.o's gprof start and end.
# shellcheck disable=SC2086
${CC:-cc} -O2 -fno-inline $fi -o ds_fi "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "build ds_fi"
# shellcheck disable=SC2086
${CC:-cc} -O2 -fno-inline $pg -o ds_fentry "$ds/ds_driver.c" "$ds/ds.c" -lpthread ||
	fail "build ds_fentry"
${CC:-cc} -O2 -fno-inline -g -pg -o ds_mcount "$ds/ds_driver.c" "$ds/ds.c" -lpthread ||
	fail "build ds_mcount"


# Three threads besides the main one: every function's calls, exactly.
for b in "fi" fentry mcount; do
	ok veles collect trace --instrumented -- "./ds_$b" -t 3 200 60
	has "$T/out" "in 4 threads of 1 processes"
	trace_counts "$(newest)" >"$T/counts.$b"
	[ ! -e gmon.out ] || fail "ds_$b left gmon.out"
done
for want in "SLList_insert 800" "SLList_search 240" "BTree_insert 800" "BTree_search 240" \
	"insertion_sort 4" "next_key 800" "run_workload 4" "main 1"; do
	has "$T/counts.fentry" "^$want\$"
done
cmp "$T/counts.fi" "$T/counts.fentry" || fail "-pg -mfentry counts differ from -finstrument-functions'"
cmp "$T/counts.fi" "$T/counts.mcount" || fail "-pg counts differ from -finstrument-functions'"
# Times nest: a caller's inclusive time covers its callees'.
$py - "$(json_of "$(newest)")" <<'PY' || fail "-pg times"
import json, sys
p = json.load(open(sys.argv[1]))
for k, r in p["resources"].items():
    for a, e in zip(r["amount"], r["exclusive"]):
        assert 0 <= e <= a, (k, a, e)
main = p["resources"]["main#0"]["amount"][0]
assert main >= max(p["resources"]["run_all#0"]["amount"]) > 0
PY

# --size: the entry hook reads the argument registers. insertion_sort(keys,
# n) on one list per thread; SLList_search(list, key) through DWARF, the
# list's length, 37 on each thread. --size gives the function its size and
# keeps every other function recorded (their size 0); -f still narrows.
ok veles collect trace --instrumented --size insertion_sort:2 -- ./ds_fentry -t 1 37 5
$py - "$(json_of "$(newest)")" <<'PY' || fail "--size ARGN"
import json, sys
p = json.load(open(sys.argv[1]))
r = {p["resource_type_map"][k]["uid"]: v for k, v in p["resources"].items()}
assert r["insertion_sort"]["structure-unit-size"] == [37, 37], r["insertion_sort"]
assert len(r["SLList_insert"]["amount"]) == 74 and len(r["main"]["amount"]) == 1, r.keys()
for f, v in r.items():
    if f != "insertion_sort":
        assert set(v["structure-unit-size"]) == {0}, (f, v["structure-unit-size"])
assert p["collector_info"]["params"]["size"] == ["insertion_sort:2"]
assert "func" not in p["collector_info"]["params"], p["collector_info"]["params"]
PY
ok veles collect trace --instrumented --size insertion_sort:2 -f insertion_sort -f main \
	-- ./ds_fentry -t 1 37 5
$py - "$(json_of "$(newest)")" <<'PY' || fail "--size ARGN with -f"
import json, sys
p = json.load(open(sys.argv[1]))
assert sorted(p["resources"]) == ["insertion_sort#0", "main#0"], p["resources"].keys()
assert p["resources"]["insertion_sort#0"]["structure-unit-size"] == [37, 37]
PY
ok veles collect trace --instrumented --size 'SLList_search:list->size' -- ./ds_mcount -t 1 37 5
$py - "$(json_of "$(newest)")" <<'PY' || fail "--size member"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["resources"]["SLList_search#0"]["structure-unit-size"] == [37] * 10, p["resources"]
PY
# The -finstrument-functions build is refused before it runs: no job's
# profile, no trace left behind.
before=$(ls .veles/jobs 2>/dev/null | wc -l)
fails 2 veles collect trace --instrumented --size insertion_sort:2 -- ./ds_fi 10
has "$T/err" "ds_fi is built with -finstrument-functions"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more than one line: $(cat "$T/err")"
[ "$(ls .veles/jobs 2>/dev/null | wc -l)" -eq "$before" ] || fail "a profile of the refused run"
fails 2 veles collect trace --instrumented --aggregate --size insertion_sort:2 -- ./ds_fentry 10
has "$T/err" "not with --aggregate"

# Without the collector the program runs as built: gprof's gmon.out.
./ds_mcount 10 >/dev/null || fail "ds_mcount alone"
[ -e gmon.out ] || fail "ds_mcount alone wrote no gmon.out"
rm -f gmon.out

# A fork: the child returns from the calls it inherited through the
# runtime too (its shadow stack is the parent's copy), and counts its own.
ok veles collect trace --instrumented -f SLList_insert -f main -f run_all -- ./ds_fentry -f -t 1 50
has "$T/out" "in 4 threads of 2 processes"
$py - "$(json_of "$(newest)")" <<'PY' || fail "-pg fork"
import json, sys, collections
r = json.load(open(sys.argv[1]))["resources"]
per = collections.Counter(r["SLList_insert#0"]["pid"])
assert len(per) == 2 and set(per.values()) == {100}, per
assert len(r["run_all#0"]["amount"]) == 2 and len(r["main#0"]["amount"]) == 1
PY

# Aggregate sums through the trampoline.
ok veles collect trace --instrumented --aggregate -- ./ds_fentry -t 1 100 30
$py - "$(json_of "$(newest)")" <<'PY' || fail "-pg aggregate"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["resources"]["SLList_insert#0"]["calls"] == [100, 100], p["resources"]["SLList_insert#0"]
assert p["resources"]["SLList_search#0"]["calls"] == [30, 30]
PY

# Signal handlers that call traced functions, interrupting the hooks and
# the trampoline at any instruction: every call is kept.
# shellcheck disable=SC2086
${CC:-cc} -O2 $pg -o sigcalls "$data/sigcalls.c" -lpthread || fail "build sigcalls"
trace_sigcalls 2

# Values come back intact through the trampoline: doubles, two doubles,
# a two-word structure, one returned through memory, a long double, eight
# double arguments; and longjmp out of four nested calls.
for flags in "$pg" "-g -pg"; do
	# shellcheck disable=SC2086
	${CC:-cc} -O2 $flags -o retvals "$data/retvals.c" || fail "build retvals"
	ok veles collect trace --instrumented -- ./retvals 3000
	has "$T/out" "^ok 3000$"
	trace_counts "$(newest)" >"$T/counts"
	for f in half dswap pswap bigfill ldsum fsum8; do
		has "$T/counts" "^$f 3000\$"
	done
	# jump_down never returns: no call of it is timed.
	hasnt "$T/counts" "^jump_down"
	has "$T/counts" "^main 1$"
done

# C++ exceptions: the unwinder reads the real return addresses, and the
# frames that survive a catch (or a rethrow's) return through the
# trampoline again.
if command -v "${CXX:-c++}" >/dev/null; then
	# shellcheck disable=SC2086
	${CXX:-c++} -O2 $pg -o throws "$data/throws.cc" || fail "build throws"
	ok veles collect trace --instrumented -- ./throws 500
	has "$T/out" "^caught 1000$"
	trace_counts "$(newest)" >"$T/counts"
	has "$T/counts" "^catcher\(int\) 500$"
	has "$T/counts" "^main 1$"
fi
