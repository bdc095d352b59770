#!/bin/bash
# veles collect time: profiles, summary, failures, dirty-tree warning.
. "$(dirname "$0")/lib.sh"
new_git_project p
head=$(git rev-parse HEAD)

ok veles collect time -r 3 -- true
[ "$(npending)" -eq 1 ] || fail "expected one pending profile"
f=$(ls .veles/jobs/*.perf)
case "$(basename "$f")" in
true-time-*-20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.perf) ;;
*) fail "bad profile name $f" ;;
esac
has "$T/out" "Time \(mean ± σ\):"
has "$T/out" "Range \(min … max\):"
has "$T/err" "profile written to .*\.veles/jobs/"
hasnt "$T/err" "uncommitted"
python3 - "$(json_of "$f")" "$head" <<'EOS' || fail "profile content"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["origin"] == sys.argv[2], p["origin"]
assert p["header"]["type"] == "time" and p["header"]["cmd"] == "true"
assert p["collector_info"]["name"] == "time"
assert p["collector_info"]["params"]["repeat"] == 3
res = p["global"]["resources"]
for sub in ("real", "user", "sys"):
    orders = sorted(r["order"] for r in res if r.get("subtype") == sub and r["type"] == "time")
    assert orders == [1, 2, 3], (sub, orders)
assert all(r["amount"] >= 0 for r in res if r["type"] == "time")
EOS

# Warm-up runs are not recorded.
ok veles collect time -w 2 -r 2 -q -- true
[ "$(npending)" -eq 2 ] || fail "second profile"

# A failing command still gives a profile, with a warning.
ok veles collect time -r 2 -- sh -c 'exit 3'
grep -qi "status 3" "$T/out" "$T/err" || fail "no exit-status warning"
[ "$(npending)" -eq 3 ] || fail "failed command profile"

# A command that cannot start is an error and leaves nothing behind.
fails 1 veles collect time -r 2 -- /no/such/program
has "$T/err" "/no/such/program"
[ "$(npending)" -eq 3 ] || fail "profile written for a command that never ran"
ls .veles/jobs | grep -q tmp && fail "temporary file left behind"

# Uncommitted changes are warned about.
echo "/* local edit */" >>prog.c
ok veles collect time -r 1 -q -- true
has "$T/err" "uncommitted changes may skew the profile"
ok veles config set collect.warn_dirty false
ok veles collect time -r 1 -q -- true
hasnt "$T/err" "uncommitted"
git checkout -q prog.c

# Output handling and timeout.
ok veles collect time -r 1 -o suppress -- sh -c 'echo hidden-$((20+22))'
hasnt "$T/out" "hidden-42"
ok veles collect time -r 1 -o capture -- echo captured-text
has "$T/out" "captured-text"
grep -rq captured-text .veles/logs || fail "capture did not reach .veles/logs"
veles collect time -r 1 --timeout 0.3 -- sleep 20 >"$T/out" 2>"$T/err"
grep -qi "timed out\|timeout" "$T/out" "$T/err" || fail "no timeout message"

fails 2 veles collect time -r abc -- true
fails 2 veles collect nosuchcollector -- true
fails 2 veles collect time -r 2
ok veles collect time --help
has "$T/out" "--repeat"
ok veles collect --help
has "$T/out" "time"

# Stopped mid-collection (SIGTERM here: a background job of a script
# ignores SIGINT): the command is stopped, nothing is written.
before=$(npending)
"$VELES" collect time -r 50 -- sleep 0.217 >"$T/out" 2>"$T/err" &
pid=$!
sleep 0.7
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 143 ] || fail "interrupted collect exited $rc"
has "$T/err" "interrupted"
[ "$(npending)" -eq "$before" ] || fail "interrupted collect left a profile"
ls -a .veles/jobs | grep -q '\.tmp' && fail "temporary file left behind"
pgrep -f "sleep 0.217" >/dev/null && fail "the profiled command still runs"
true

# Each run's CPU time from the kernel's task clock ("cpu", not sampled at
# ticks), where the kernel lets us count it: every run has one, and over
# the runs it is about user + sys (the same scheduler clock, which
# getrusage splits at ticks). Loose bounds: timings are never asserted.
cat >spin.c <<'C'
#include <stdlib.h>
int main(int argc, char **argv) {
	volatile double x = 0;
	for (long i = 0; i < atol(argv[1]); i++) x += i * 0.5;
	return x < 0;
}
C
cc -O1 -o spin spin.c || fail "cc"
ok veles collect time -r 5 -o suppress -- ./spin 20000000
f=$(json_of "$(newest)")
if grep -q '"subtype": *"cpu"' "$f"; then
	has "$T/out" "CPU \(task-clock\):"
	python3 - "$f" <<'EOS' || fail "task-clock values"
import json, sys
res = json.load(open(sys.argv[1]))["global"]["resources"]
by = {}
for r in res:
    by.setdefault(r["subtype"], {})[r["order"]] = r["amount"]
assert sorted(by["cpu"]) == [1, 2, 3, 4, 5], by["cpu"]
assert all(v > 0 for v in by["cpu"].values()), by["cpu"]
cpu = sum(by["cpu"].values())
ticks = sum(by["user"].values()) + sum(by["sys"].values())
assert 0.5 * ticks <= cpu <= 2 * ticks + 0.05, (cpu, ticks)
assert all(by["cpu"][i] <= by["real"][i] * 2 + 0.01 for i in by["cpu"]), by
EOS
else
	echo "no task-clock here (perf_event_open refused it): cpu not checked" >&2
fi

# --metric instructions: the PMU's count where there is one, else
# cachegrind's, which is exact: the same in every run of a deterministic
# program, and said so in one line.
if command -v valgrind >/dev/null; then
	ok veles collect time -r 2 --metric instructions -o suppress -- ./spin 100000
	f1=$(json_of "$(newest)")
	ok veles collect time -r 2 --metric instructions -o suppress -- ./spin 100000
	f2=$(json_of "$(newest)")
	if grep -q cachegrind "$T/err"; then
		[ "$(grep -c 'cachegrind' "$T/err")" -eq 1 ] || fail "the fallback said more than once"
		has "$T/out" "Instructions: +[0-9]+ ± 0 \(cachegrind\)"
		python3 - "$f1" "$f2" <<'EOS' || fail "cachegrind counts"
import json, sys
counts = []
for f in sys.argv[1:]:
    p = json.load(open(f))
    assert p["collector_info"]["params"]["metric"] == "instructions"
    res = p["global"]["resources"]
    assert {r["subtype"] for r in res} == {"instructions"}, res
    counts += [r["amount"] for r in res]
assert len(counts) == 4 and len(set(counts)) == 1 and counts[0] > 100000, counts
EOS
	fi
else
	echo "valgrind missing: --metric instructions not checked" >&2
fi
fails 2 veles collect time --metric wall -- true
true
