#!/bin/bash
# Every kind of profile Veles writes reads in Perun: tests/cli/perun_format.py
# applies what Perun's loader, status, views, model records and eto check
# need (one of Perun's three types, a uid per resource, lists of one length,
# units naming the type, a trace's exclusive time, location, tid and
# call-order), to profiles of the time, memory, trace, monitor, regex, stat
# and record collectors, postprocessed ones, a stored one shown raw, and
# Veles still reads its own types back from them.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
# Pending and stored profiles are kept compact; Perun gets them as JSON,
# from `veles export` (json_of) or `veles show raw`.
check() { ok $py "$VELES_SRCDIR/tests/cli/perun_format.py" --eto "$(json_of "$1")"; }

export VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so"
cat >prog.c <<'EOF'
#include <stdlib.h>
/* fib recurses: its calls return innermost first. */
__attribute__((noinline)) static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	void *p = malloc((size_t)n * 16);
	free(p);
	return fib(n) < 0;
}
EOF
cc -g -O0 -o plain prog.c || fail "cc"
# shellcheck disable=SC2046
cc -O0 $(veles cflags trace) -o traced prog.c || fail "cc traced"

ok veles collect time -q --repeat 3 -- ./plain 5
time_p=$(newest)
ok veles collect memory -q -- ./plain 5
mem_p=$(newest)
ok veles collect trace --instrumented -q -- ./traced 6
trace_p=$(newest)
ok veles collect trace --instrumented --aggregate -q -- ./traced 6
agg_p=$(newest)
ok veles collect monitor -i 0.1 -q -- sleep 0.3
mon_p=$(newest)
ok veles collect regex -q -e '(?<uid>\w+): (?<amount>[\d.]+) (?<unit>ms)' -- \
	sh -c 'echo "a: 2 ms"; echo "b: 2.5 ms"; echo "a: 3 ms"'
regex_p=$(newest)
for f in "$time_p" "$mem_p" "$trace_p" "$agg_p" "$mon_p" "$regex_p"; do
	check "$f"
done
# Perun's types only; ours kept apart, and read back by Veles.
$py - "$(json_of "$mon_p")" <<'PY' || fail "monitor header"
import json, sys
h = json.load(open(sys.argv[1]))["header"]
assert h["type"] == "mixed" and h["veles_type"] == "monitor", h
assert h["units"]["mixed"] == h["units"]["monitor"], h["units"]
PY
ok veles status
has "$T/out" "[0-9]@p  monitor +sleep-monitor"
has "$T/out" "[0-9]@p  mixed +traced-trace"
ok veles show "$mon_p"
has "$T/out" "monitor"

# The trace: each function's location is its object, tid its thread, and
# call-order counts the thread's calls of that function by entry, so
# fib(6)'s 25 calls are 0..24 although they return innermost first.
$py - "$(json_of "$trace_p")" <<'PY' || fail "trace fields"
import json, sys
p = json.load(open(sys.argv[1]))
t = {v["uid"]: v for v in p["resource_type_map"].values()}
assert t["fib"]["location"] == "traced" and t["main"]["location"] == "traced", t["fib"]
key = [k for k, v in p["resource_type_map"].items() if v["uid"] == "fib"][0]
r = p["resources"][key]
assert sorted(r["call-order"]) == list(range(25)), r["call-order"]
assert "thread" not in r and len(set(r["tid"])) == 1, r["tid"]
by_entry = [c for _, c in sorted(zip(r["order"], r["call-order"]))]
assert by_entry == list(range(25)), by_entry
PY

# Whole numbers stay integers where a column mixes them with fractions.
ok $py "$VELES_SRCDIR/tests/cli/perun_format.py" --expect-int amount "$(json_of "$regex_p")"
has "$T/out" "ok "
cat >mixed.perf <<'EOF'
{"origin": "x", "header": {"type": "time", "cmd": "c", "args": "", "workload": "w",
 "units": {"time": "s"}}, "collector_info": {"name": "time", "params": {}},
 "postprocessors": [], "resource_type_map": {"f#0": {"uid": "f", "type": "time"}},
 "resources": {"f#0": {"amount": [2, 2.5, 3, 4.0, 5, 6.5, 7, 8.25],
                       "structure-unit-size": [1, 2, 3, 4, 5, 6, 7, 8]}}}
EOF
ok veles show mixed.perf raw
$py - "$T/out" <<'PY' || fail "integers written as floats"
import json, sys
r = json.load(open(sys.argv[1]))["resources"]["f#0"]
assert [type(v).__name__ for v in r["amount"][:4]] == ["int", "float", "int", "int"], r["amount"]
assert r["structure-unit-size"] == list(range(1, 9)), r
PY

# Postprocessed profiles: the models read as Perun's records.
ok veles postprocess mixed.perf regression-analysis
ok veles postprocess "$(newest)" moving-average
ok veles postprocess "$(newest)" regressogram
ok veles postprocess "$(newest)" kernel-regression
check "$(newest)"
has "$T/out" "[1-9][0-9]* models"

# Perun's check by eto, run on the pair: it groups by uid and location.
$py - "$(json_of "$trace_p")" "$(json_of "$agg_p")" <<'PY' || fail "eto groups"
import json, sys
for f in sys.argv[1:]:
    p = json.load(open(f))
    groups = set()
    for k, cols in p["resources"].items():
        t = p["resource_type_map"][k]
        for e in cols["exclusive"]:
            groups.add((t["uid"], t["location"]))
    assert ("fib", "traced") in groups, groups
PY

# A registered profile comes out of the store as Perun reads it.
ok veles add "$mon_p" "$trace_p"
ok veles show 0@i raw
cp "$T/out" shown.perf
check shown.perf

# Profiles from stat and record need perf events; a machine without them
# has checked the rest.
if veles stat --profile -e task-clock -- /bin/true >/dev/null 2>&1; then
	check "$(newest)"
	ok veles record --profile -o rec.data -- ./plain 30
	check "$(newest)"
else
	echo "no perf events here: stat and record profiles not checked" >&2
fi

# The bounds collector, where this build has it.
if veles collect bounds --help >/dev/null 2>&1; then
	cat >loop.c <<'C'
int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
C
	ok veles collect bounds -q -s loop.c
	check "$(newest)"
	$py - "$(json_of "$(newest)")" <<'PY' || fail "bounds header"
import json, sys
h = json.load(open(sys.argv[1]))["header"]
assert h["type"] == "mixed" and h["veles_type"] == "bound", h
PY
else
	echo "no bounds collector in this build: its profile not checked" >&2
fi
