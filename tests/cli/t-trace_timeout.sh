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
		trace_paired "$(newest)" $((threads + 1)) || fail "endless_$b $threads: calls not paired"
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

