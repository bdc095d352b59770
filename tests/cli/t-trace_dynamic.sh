#!/bin/bash
# veles collect trace --dynamic: uprobes on the unmodified program, where
# perf_event_open allows them (root, or CAP_PERFMON); skipped (77) with the
# reason where it does not. Exact counts across threads and a fork, the
# structure size from an argument, a whole-program strategy with sampling,
# counts equal to uftrace's, the unprivileged error line, recursion deeper
# than the kernel's return probes, and --timeout on a program that never
# ends.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
ds=$VELES_SRCDIR/examples/ds
data=$VELES_SRCDIR/tests/data/trace

${CC:-cc} -O2 -o ds_plain "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "build ds_plain"
cp ds_plain ds_stripped && strip ds_stripped
${CC:-cc} -O2 -o endless_plain "$data/endless.c" -lpthread || fail "build endless_plain"

rm -f .veles/jobs/*.perf
dyn() { veles collect trace --dynamic "$@"; }
if ! dyn -f SLList_insert -- ./ds_plain 10 >"$T/out" 2>"$T/err"; then
	has "$T/err" "needs root|no uprobe PMU"
	echo "skipped: the dynamic mode cannot be used here: $(cat "$T/err")" >&2
	exit 77
fi

if command -v uftrace >/dev/null; then
	uftrace_calls "$T/ureport"
fi

ok dyn -f SLList_insert -f SLList_search -f SLList_destroy -- ./ds_plain -t 2 -f 120 30
has "$T/out" "in 6 threads of 2 processes"
$py - "$(json_of "$(newest)")" <<'PY' || fail "dynamic"
import json, sys, collections
p = json.load(open(sys.argv[1]))
r = p["resources"]
assert p["collector_info"]["params"]["dynamic"] is True
assert collections.Counter(r["SLList_insert#0"]["tid"]).most_common()[0][1] == 120
assert len(r["SLList_insert#0"]["amount"]) == 720 and len(r["SLList_search#0"]["amount"]) == 180
assert len(r["SLList_destroy#0"]["amount"]) == 6 and len(set(r["SLList_destroy#0"]["pid"])) == 2
for a, e in zip(r["SLList_search#0"]["amount"], r["SLList_search#0"]["exclusive"]):
    assert 0 < e <= a
PY
# The structure size from an argument: insertion_sort(keys, n).
ok dyn --size insertion_sort:2 -- ./ds_plain -t 1 37 5
$py - "$(json_of "$(newest)")" <<'PY' || fail "dynamic --size"
import json, sys
p = json.load(open(sys.argv[1]))
assert list(p["resources"]) == ["insertion_sort#0"], p["resources"].keys()
assert p["resources"]["insertion_sort#0"]["structure-unit-size"] == [37, 37]
PY
# Every function of the program, SLList_insert's calls sampled.
ok dyn -s userspace -f 'SLList_insert#10' -- ./ds_plain 100 50
trace_counts "$(newest)" >"$T/counts"
for want in "SLList_insert 10" "SLList_search 50" "BTree_insert 100" "insertion_sort 1" \
	"main 1"; do
	has "$T/counts" "^$want\$"
done
hasnt "$T/counts" "^_start|^frame_dummy"
# The dynamic mode's counts agree with uftrace's too.
if [ -s "$T/ureport" ]; then
	${CC:-cc} -O2 -fno-inline -o ds_noinl_plain "$ds/ds_driver.c" "$ds/ds.c" -lpthread
	ok dyn -s userspace --no-usdt -- ./ds_noinl_plain 200 60
	trace_counts "$(newest)" >"$T/dcounts"
	uftrace_agree "$T/ureport" "$T/dcounts" "dynamic counts differ from uftrace's"
fi
# Without the privileges: one line naming perf_event_paranoid.
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ]; then
	nb=$(mktemp -d "${TMPDIR:-/tmp}/veles-nobody.XXXXXX")
	chmod 777 "$nb" && cp ds_plain "$nb/"
	as_nobody() {
		(cd "$nb" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all --bounding-set=-all env HOME="$nb" "$@")
	}
	as_nobody git init -q . && as_nobody "$VELES" init -q || fail "init as nobody"
	as_nobody "$VELES" collect trace -f SLList_insert -- ./ds_plain 10 >"$T/out" 2>"$T/err"
	rc=$?
	rm -rf "$nb"
	[ "$rc" -eq 2 ] || fail "unprivileged dynamic trace: exit $rc, not 2"
	has "$T/err" "needs root \\(or CAP_PERFMON with kernel.perf_event_paranoid at [0-9]\\): use --instrumented"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "more than one line"
fi
# Recursion past the 64 nested returns the kernel probes: each return
# closes its own entry (by the stack pointer), the deeper calls are
# dropped with a warning, and the depths stay right.
${CC:-cc} -O0 -o deep "$VELES_SRCDIR/tests/data/trace/deep.c" || fail "build deep"
ok dyn -f rec -- ./deep 100
has "$T/err" "Warning: 37 calls nested deeper than the kernel probes returns"
$py - "$(json_of "$(newest)")" <<'PY' || fail "dynamic recursion"
import json, sys
r = json.load(open(sys.argv[1]))["resources"]["rec#0"]
assert sorted(r["depth"]) == list(range(64)), r["depth"]
by = sorted(zip(r["depth"], r["amount"]))
assert all(a[1] >= b[1] for a, b in zip(by, by[1:])), by
PY
ok dyn -f rec -- ./deep 50
hasnt "$T/err" "Warning"
trace_counts "$(newest)" >"$T/counts"
has "$T/counts" "^rec 51$"
fails 2 dyn -f no_such_function -- ./ds_plain 10
has "$T/err" "no function 'no_such_function' in"
fails 2 dyn -f SLList_insert -- ./ds_stripped 10
has "$T/err" "no symbol table"

# --timeout: the samples read until the end are paired as in the
# instrumented mode (t-trace_timeout.sh).
for threads in 0 2; do
	ok veles collect trace -d -f work -f leaf -t 0.3 -- ./endless_plain $threads
	has "$T/err" "^Warning: './endless_plain' stopped by --timeout after 0.3 s"
	trace_paired "$(newest)" $((threads + 1)) loose || fail "dynamic $threads: calls not paired"
done
