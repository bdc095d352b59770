#!/bin/bash
# veles collect trace -t/--timeout on a program that never ends: the
# command is stopped (SIGTERM) and the profile holds the calls it finished
# until then, entries and returns paired, in each mode; a notice on
# stderr, exit status 0. The runtime's records are in its files as they
# are made, so a program that ignores SIGTERM and is killed with SIGKILL
# after the grace period keeps its calls too.
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
# the hooks (the signal often comes inside one), and three.
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

# SIGKILL after the grace period: the calls until then are kept all the
# same, records and sums, and the profile says how the program ended.
cat >ignore.c <<'C'
#include <signal.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long i) { sink += i; }
int main(void) { signal(SIGTERM, SIG_IGN); for (unsigned long i = 0; i < 1000; i++) leaf(i); for (;;) pause(); }
C
# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace) -o ignore ignore.c || fail "build ignore"
for mode in "" --aggregate; do
	# shellcheck disable=SC2086
	# A second: time to ignore SIGTERM however slowly it starts.
	ok veles collect trace --instrumented $mode -t 1 -- ./ignore
	has "$T/err" "stopped by --timeout after 1 s \(killed by signal 9"
	$py - "$(json_of "$(newest)")" <<'PY' || fail "calls of a program killed by SIGKILL ($mode)"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["killed_by"] == "SIGKILL", p["header"]
r = {p["resource_type_map"][k]["uid"]: v for k, v in p["resources"].items()}
assert set(r) == {"leaf"}, r.keys()
n = sum(r["leaf"]["calls"]) if "calls" in r["leaf"] else len(r["leaf"]["amount"])
assert n == 1000, n
PY
done

