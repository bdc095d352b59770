#!/bin/bash
# veles collect trace -t/--timeout on a program that never ends: the
# command is stopped (SIGTERM; the runtime ends its records first) and the
# profile holds the calls it finished until then, entries and returns
# paired, in each mode; a notice on stderr, exit status 0. A program that
# ignores SIGTERM outlives the grace period: SIGKILL, and one error line.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
data=$VELES_SRCDIR/tests/data/trace

ok veles collect trace --help
has "$T/out" "--timeout S +stop COMMAND after S seconds"

# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace) -o endless_fi "$data/endless.c" -lpthread ||
	fail "build endless_fi"
# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace --pg) -o endless_pg "$data/endless.c" -lpthread ||
	fail "build endless_pg"
${CC:-cc} -O2 -o endless_plain "$data/endless.c" -lpthread || fail "build endless_plain"


# paired PROFILE THREADS: in each of THREADS threads, work and leaf calls,
# as many of each or one leaf more (the work call open at the end is
# dropped); main and spin never return, so they have none. With more than
# one thread, one leaf fewer too: a thread that was not running when the
# records were written (docs/collect-trace.md, Timeout) may have reserved
# its last record without storing it (seen under ASan on 2 cores).
paired() {
	$py - "$(json_of "$1")" "$2" <<'PY'
import json, sys, collections
p = json.load(open(sys.argv[1]))
r = {p["resource_type_map"][k]["uid"]: v for k, v in p["resources"].items()}
assert set(r) == {"work", "leaf"}, r.keys()
work = collections.Counter(r["work"]["thread"])
leaf = collections.Counter(r["leaf"]["thread"])
assert len(work) == int(sys.argv[2]) and set(leaf) == set(work), (work, leaf)
ok = (0, 1) if len(work) == 1 else (-1, 0, 1)
for t in work:
    assert work[t] > 0 and leaf[t] - work[t] in ok, (t, work[t], leaf[t])
for k, v in r.items():
    for a, e in zip(v["amount"], v["exclusive"]):
        assert 0 <= e <= a, (k, a, e)
PY
}

# Instrumented, both builds: one thread that spends nearly all its time in
# the hooks (the signal often comes inside one, and the next hook ends the
# records), and three (the other threads' buffers are written as they run).
for b in "fi" pg; do
	for args in "0 30" "2 1000"; do
		threads=${args% *}
		rm -f .veles/jobs/*.perf
		# shellcheck disable=SC2086
		ok veles collect trace --instrumented -t 0.2 -- "./endless_$b" $args
		has "$T/err" "^Warning: './endless_$b' stopped by --timeout after 0.2 s \(killed by signal 15"
		[ "$(grep -vc "^profile written" "$T/err")" -eq 1 ] || fail "more than the notice: $(cat "$T/err")"
		has "$T/out" "in $((threads + 1)) threads of 1 processes"
		paired "$(newest)" $((threads + 1)) || fail "endless_$b $threads: calls not paired"
	done
done

# Aggregate sums too: each function's calls per thread.
ok veles collect trace --instrumented --aggregate -t 0.3 -- ./endless_fi 1
$py - "$(json_of "$(newest)")" <<'PY' || fail "aggregate after --timeout"
import json, sys
p = json.load(open(sys.argv[1]))
r = {p["resource_type_map"][k]["uid"]: v for k, v in p["resources"].items()}
assert set(r) == {"work", "leaf"}, r.keys()
assert len(r["work"]["calls"]) == 2 and min(r["work"]["calls"]) > 0, r["work"]
PY

# SIGKILL after the grace period: the runtime could not end its records.
cat >ignore.c <<'C'
#include <signal.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long i) { sink += i; }
int main(void) { signal(SIGTERM, SIG_IGN); for (unsigned long i = 0; i < 100000000; i++) leaf(i); return 0; }
C
# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace) -o ignore ignore.c || fail "build ignore"
fails 1 veles collect trace --instrumented --aggregate -t 0.2 -- ./ignore
has "$T/err" "stopped by --timeout after 0.2 s before the runtime could end its records"

# Dynamic mode, where perf_event_open allows uprobes (else the one line
# that says so): the samples read until the end are paired the same way.
veles collect trace -d -f leaf -t 0.2 -- ./endless_plain >"$T/out" 2>"$T/err"
if grep -q "needs root" "$T/err"; then
	echo "dynamic mode not allowed here: skipped"
else
	for threads in 0 2; do
		ok veles collect trace -d -f work -f leaf -t 0.3 -- ./endless_plain $threads
		has "$T/err" "^Warning: './endless_plain' stopped by --timeout after 0.3 s"
		paired "$(newest)" $((threads + 1)) || fail "dynamic $threads: calls not paired"
	done
fi
