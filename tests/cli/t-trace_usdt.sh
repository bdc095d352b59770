#!/bin/bash
# veles collect trace, dynamic mode beyond functions: USDT probes (pairs by
# name and by A#B, hit to hit, semaphores, arguments as the structure size
# from registers and from the stack), --size through DWARF members, the
# strategies, libraries, sampling that keeps pairs, and the seed's other
# options (-b, -l, -t, -k, -z, -w, -i, -np).
. "$(dirname "$0")/lib.sh"
with_tracefs "$@"
new_git_project p
py=/usr/bin/python3
ds=$VELES_SRCDIR/examples/ds
cc=${CC:-cc}

echo '#include <sys/sdt.h>' | $cc -E - >/dev/null 2>&1 ||
	fail "no <sys/sdt.h>: install systemtap-sdt-dev (scripts/deps.sh)"
$cc -O2 -g -o ds_usdt "$ds/ds_usdt.c" "$ds/ds.c" || fail "build ds_usdt"
$cc -O0 -g -o ds_usdt0 "$ds/ds_usdt.c" "$ds/ds.c" || fail "build ds_usdt -O0"
$cc -O2 -g -o ds_dbg "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "build ds_dbg"
$cc -O2 -o ds_nodbg "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "build ds_nodbg"
$cc -O2 -g -shared -fPIC -o libds.so "$ds/ds.c" || fail "build libds.so"
$cc -O2 -g -o ds_shared "$ds/ds_driver.c" -L. -lds -Wl,-rpath,"$PWD" -lpthread ||
	fail "build ds_shared"

ok veles collect trace --help
for o in "--usdt" "--with-usdt" "--binary" "--libs" "--watchdog" "--diagnostics" \
	"--no-profile" "u_sampled" "ARG->member" "--timeout"; do
	has "$T/out" -- "$o"
done

# sizes PROFILE NAME: the structure-unit-size of NAME's calls, one line.
sizes() {
	$py - "$(json_of "$1")" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
print(*p["resources"][sys.argv[2] + "#0"].get("structure-unit-size", []))
PY
}

if ! veles collect trace -u search -- ./ds_usdt 1 1 >"$T/out" 2>"$T/err"; then
	has "$T/err" "needs root|no uprobe PMU"
	echo "skipped: uprobes cannot be used here: $(cat "$T/err")" >&2
	exit 77
fi

# Pairs by name (search/search_end, sort_begin/sort_end), by A#B, an
# unpaired probe from hit to hit, whose semaphore the kernel sets.
ok veles collect trace -u search -u sort_begin -u 'grow_go#grow_done' -u round -- ./ds_usdt 20 100
has "$T/out" "ds:round enabled in 20 of 20 rounds"
trace_counts "$(newest)" >"$T/counts"
for want in "search 20" "sort 20" "grow_go 20" "round 19"; do
	has "$T/counts" "^$want\$"
done
want=$(seq -s ' ' 100 100 2000)
[ "$(sizes "$(newest)" search)" = "$want" ] || fail "search sizes: $(sizes "$(newest)" search)"
[ "$(sizes "$(newest)" sort)" = "$want" ] || fail "sort sizes"
[ "$(sizes "$(newest)" round)" = "$(seq -s ' ' 1 19)" ] || fail "round sizes"
[ "$(sizes "$(newest)" grow_go)" = "$(printf '0 %.0s' $(seq 20) | sed 's/ $//')" ] ||
	fail "grow_go has no argument: the seed's size 0"
$py - "$(json_of "$(newest)")" <<'PY' || fail "usdt layout"
import json, sys
p = json.load(open(sys.argv[1]))
t = p["resource_type_map"]["sort#0"]
assert t == {"uid": "sort", "type": "mixed", "subtype": "time delta", "location": "ds_usdt"}, t
# Sorting 2000 keys takes longer than sorting 100: the pair spans the sort.
a = p["resources"]["sort#0"]["amount"]
assert a[-1] > 5 * a[0], a
PY
# Without the probe attached, its semaphore stays 0.
ok veles collect trace -u search -- ./ds_usdt 5 10
has "$T/out" "enabled in 0 of 5 rounds"
# -O0 keeps the arguments in the frame: read from the sampled stack.
ok veles collect trace -u search -u sort_begin -- ./ds_usdt0 4 50
[ "$(sizes "$(newest)" search)" = "50 100 150 200" ] || fail "-O0 sizes"
# --size picks another argument; one the probe has not gives no size.
ok veles collect trace -u round --size round:2 -- ./ds_usdt 3 10
[ "$(sizes "$(newest)" round)" = "0 0" ] || fail "round has one argument"
# Sampling per rule: every 5th pair.
ok veles collect trace -u 'search#5' -- ./ds_usdt 20 10
has <(trace_counts "$(newest)") "^search 4$"

# A strategy probes every function and, unless --no-usdt, every probe.
ok veles collect trace -s userspace -- ./ds_usdt 10 10
trace_counts "$(newest)" >"$T/counts"
for want in "SLList_insert 100" "SLList_search 10" "insertion_sort 10" "main 1" "search 10" \
	"sort 10" "round 9" "grow_go 9" "grow_done 9"; do
	has "$T/counts" "^$want\$"
done
hasnt "$T/counts" "^search_end|^sort_end"
# A function or probe named twice, or by a rule and the strategy, is
# probed once: every call counts once.
ok veles collect trace -s userspace -u search -f SLList_search -- ./ds_usdt 10 10
trace_counts "$(newest)" >"$T/counts"
has "$T/counts" "^search 10$"
has "$T/counts" "^SLList_search 10$"
ok veles collect trace -f SLList_search -f SLList_search -u search -u search -- ./ds_usdt 10 10
trace_counts "$(newest)" >"$T/counts"
has "$T/counts" "^search 10$"
has "$T/counts" "^SLList_search 10$"
for order in "--size insertion_sort:2 -f insertion_sort" "-f insertion_sort --size insertion_sort:2"; do
	# shellcheck disable=SC2086
	ok veles collect trace $order -- ./ds_dbg 37 5
	has <(trace_counts "$(newest)") "^insertion_sort 1$"
	[ "$(sizes "$(newest)" insertion_sort)" = "37" ] || fail "$order: size"
done
# C++: mangled functions are probed and named demangled; a name without
# its parameters names every overload.
if command -v "${CXX:-c++}" >/dev/null; then
	"${CXX:-c++}" -O2 -g -o poly "$VELES_SRCDIR/tests/data/trace/poly.cc" || fail "build poly"
	ok veles collect trace -s userspace --no-usdt -- ./poly 7
	trace_counts "$(newest)" >"$T/counts"
	for want in "geo::Poly::area\(\) const 21" "geo::Poly::area\(int\) const 14" \
		"total\(geo::Poly const&\) 7" "main 1"; do
		has "$T/counts" "^$want\$"
	done
	ok veles collect trace -f geo::Poly::area -f '_Z5totalRKN3geo4PolyE' -- ./poly 7
	trace_counts "$(newest)" >"$T/counts"
	has "$T/counts" "^geo::Poly::area\(\) const 21$"
	has "$T/counts" "^geo::Poly::area\(int\) const 14$"
	has "$T/counts" "^total\(geo::Poly const&\) 7$"
	fails 2 veles collect trace -f 'geo::Poly::volume' -- ./poly 7
	has "$T/err" "no function 'geo::Poly::volume'"
	# -s all leaves the C++ runtime's thousands of functions out, as the C one's.
	ok veles collect trace -s all --no-usdt -- ./poly 7
	trace_counts "$(newest)" >"$T/counts"
	has "$T/counts" "^geo::Poly::area\(\) const 21$"
	[ "$(wc -l <"$T/counts")" -lt 10 ] || fail "-s all probed the C++ runtime"
fi
ok veles collect trace -s userspace --no-usdt -- ./ds_usdt 10 10
hasnt <(trace_counts "$(newest)") "^search "
ok veles collect trace -s u_sampled --no-usdt -- ./ds_usdt 10 20
has <(trace_counts "$(newest)") "^SLList_insert 10$"

# Sampling keeps pairs: a kept call has its entry and its return, and the
# calls around it still count it (run_workload encloses every insert).
ok veles collect trace -g 3 -f 'SLList_insert#7' -f run_workload -f main -- ./ds_dbg 200 10
$py - "$(json_of "$(newest)")" <<'PY' || fail "sampling pairs"
import json, sys
p = json.load(open(sys.argv[1]))
r = p["resources"]
ins = r["SLList_insert#0"]
assert len(ins["amount"]) == 29, len(ins["amount"])
assert all(d == 2 for d in ins["depth"]), ins["depth"]
assert all(0 < e <= a for a, e in zip(ins["amount"], ins["exclusive"]))
run = r["run_workload#0"]
assert run["exclusive"][0] < run["amount"][0] <= r["main#0"]["amount"][0]
PY

# --size through DWARF: the list's length from SLList_search's list->size.
ok veles collect trace --size 'SLList_search:list->size' -- ./ds_dbg -t 1 150 20
[ "$(sizes "$(newest)" SLList_search)" = "$(printf '150 %.0s' $(seq 40) | sed 's/ $//')" ] ||
	fail "list->size: $(sizes "$(newest)" SLList_search)"
# ... and from a list on the heap, which the kernel reads at each hit.
$cc -O2 -g -I"$ds" -o heaplist "$VELES_SRCDIR/tests/data/trace/heaplist.c" "$ds/ds.c" ||
	fail "build heaplist"
ok veles collect trace --size 'SLList_search:list->size' -f SLList_insert -- ./heaplist 37 4
[ "$(sizes "$(newest)" SLList_search)" = "37 37 37 37" ] ||
	fail "heap list->size: $(sizes "$(newest)" SLList_search)"
has <(trace_counts "$(newest)") "^SLList_insert 37$"
hasnt /sys/kernel/tracing/uprobe_events "veles_"
fails 2 veles collect trace --size 'SLList_search:list->nope' -- ./ds_dbg 10
has "$T/err" "no member 'nope'"
fails 2 veles collect trace --size 'SLList_search:key->size' -- ./ds_dbg 10
has "$T/err" "not a pointer to a structure"
fails 2 veles collect trace --size 'SLList_search:lst->size' -- ./ds_dbg 10
has "$T/err" "has no parameter 'lst'"
fails 2 veles collect trace --size 'SLList_search:list->size' -- ./ds_nodbg 10
has "$T/err" "no debug information|no function 'SLList_search' in .*DWARF"
fails 2 veles collect trace --size insertion_sort:7 -- ./ds_dbg 10
has "$T/err" "a function's ARGN is 1 to 6"

# Libraries: -f LIB#FUNC, -s all (the binary's own libraries, not libc's).
ok veles collect trace -f 'libds.so#SLList_search' -- ./ds_shared 30 12
has <(trace_counts "$(newest)") "^SLList_search 12$"
ok veles collect trace -s all --no-usdt -- ./ds_shared 30 12
trace_counts "$(newest)" >"$T/counts"
has "$T/counts" "^SLList_insert 30$"
has "$T/counts" "^run_workload 1$"
hasnt "$T/counts" "^malloc |^printf "
ok veles collect trace -s userspace -l ./libds.so --no-usdt -- ./ds_shared 30 12
has <(trace_counts "$(newest)") "^BTree_insert 30$"
# -f FUNC that the binary lacks is looked for in the -l libraries.
ok veles collect trace -l ds -f BTree_search -f run_workload -- ./ds_shared 30 12
trace_counts "$(newest)" >"$T/counts"
has "$T/counts" "^BTree_search 12$"
has "$T/counts" "^run_workload 1$"
# A library found where the binary's RUNPATH or RPATH ($ORIGIN) says.
mkdir -p rp/lib rp/bin
$cc -O2 -g -shared -fPIC -o rp/lib/libds.so "$ds/ds.c" || fail "build rp/lib/libds.so"
for tags in --enable-new-dtags --disable-new-dtags; do
	# shellcheck disable=SC2016
	$cc -O2 -g -o rp/bin/ds_rp "$ds/ds_driver.c" -Lrp/lib -lds -Wl,$tags,-rpath,'$ORIGIN/../lib' \
		-lpthread || fail "build rp/bin/ds_rp $tags"
	ok veles collect trace -f 'ds#SLList_search' -- ./rp/bin/ds_rp 30 12
	has <(trace_counts "$(newest)") "^SLList_search 12$"
done
fails 2 veles collect trace -f 'libnope.so#f' -- ./ds_shared 1
has "$T/err" "library 'libnope.so' not found"

# A stripped library still names its exported functions; a static one is
# not there, and the error says why.
mkdir -p s && cp libds.so s/ && strip s/libds.so
$cc -O2 -o ds_shared_s "$ds/ds_driver.c" -Ls -lds -Wl,-rpath,"$PWD/s" -lpthread ||
	fail "build ds_shared_s"
ok veles collect trace -f "$PWD/s/libds.so#SLList_search" -- ./ds_shared_s 30 12
has <(trace_counts "$(newest)") "^SLList_search 12$"
fails 2 veles collect trace -f "$PWD/s/libds.so#free_nodes" -- ./ds_shared_s 1
has "$T/err" "no function 'free_nodes' in .*/s/libds.so \\(stripped: only its exported functions have names\\)"

# -b: the command is a script; the binary it runs is probed.
printf '#!/bin/sh\nexec ./ds_usdt "$@"\n' >run.sh && chmod +x run.sh
ok veles collect trace -b ./ds_usdt -u search -- ./run.sh 6 10
has <(trace_counts "$(newest)") "^search 6$"

# -np: the summary, no profile; -k and -z keep the calls; -w and -i log.
rm -f .veles/jobs/*.perf
ok veles collect trace -np -u search -- ./ds_usdt 3 10
has "$T/out" "Traced 3 calls"
[ -z "$(ls .veles/jobs/*.perf 2>/dev/null)" ] || fail "-np wrote a profile"
ok veles collect trace -k -u search -- ./ds_usdt 3 10
dir=$(sed -n 's/^  Raw records kept in //p' "$T/out")
has "$dir/calls.txt" "^search [0-9]+ [0-9]+ 0 0 [0-9]+ [0-9]+ 10$"
rm -rf "$dir"
ok veles collect trace -i -u search -- ./ds_usdt 3 10
dir=$(sed -n 's/^  Raw records kept in //p' "$T/out")
log=$(sed -n 's/^  Watchdog log: //p' "$T/out")
[ -f "$dir/calls.txt.gz" ] || fail "-i: no compressed calls in '$dir'"
has "$log" "probe usdt start search at .*ds_usdt\+0x[0-9a-f]+ \(with a semaphore\)"
has "$log" "command ended \(status 0\)"
has "${log%.watchdog.log}.log" "ds:round enabled in 0 of 3 rounds"
rm -rf "$dir"
ok veles collect trace -q -o suppress -u search -- ./ds_usdt 3 10
hasnt "$T/out" "Traced|enabled"
fails 1 veles collect trace -t 1 -b ./ds_dbg -f SLList_insert -- sh -c 'sleep 5'
has "$T/err" "'sh' was stopped by --timeout after 1 s before it returned from any of the functions traced"

# The profile records its options as options, so check --collect-missing
# makes the parent's profile the same way: the rules, their sampling, the
# size, -b and -l (--yes: the recipe is the profile's, not a matrix job's).
parent=$(git rev-parse HEAD)
commit_change "next"
cat >>.veles/config.yml <<YML
execute:
  pre_run:
    - $cc -O2 -g -o ds_dbg $ds/ds_driver.c $ds/ds.c -lpthread
YML
rm -f .veles/jobs/*.perf
ok veles collect trace -g 2 -f 'SLList_insert#10' -f BTree_search -l ds \
	--size 'SLList_search:list->size' -b ./ds_dbg -- ./ds_dbg -t 1 50 10
# Added, the pending profile leaves jobs/: compare with a copy.
mine="$T/mine.perf"
cp "$(newest)" "$mine"
ok veles add -q "$(newest)"
veles check head --collect-missing --yes >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err" >&2; fail "check --collect-missing"; }
has "$T/err" "^check: collecting .* on ${parent:0:7}$"
ok veles show 0@i raw -m "$parent"
$py - "$(json_of "$mine")" "$T/out" <<'PY' || fail "the trace recipe"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
pa, pb = a["collector_info"]["params"], b["collector_info"]["params"]
assert pa == pb, (pa, pb)
assert pa["func"] == ["SLList_insert#10", "BTree_search"] and pa["libs"] == ["ds"], pa
assert pa["size"] == ["SLList_search:list->size"] and pa["binary"] == "./ds_dbg", pa
count = lambda p: {k: len(v["amount"]) for k, v in p["resources"].items()}
assert count(a) == count(b) == {"SLList_insert#0": 10, "BTree_search#0": 10,
                                "SLList_search#0": 10}, (count(a), count(b))
PY

# Errors, one line each.
fails 2 veles collect trace -u nosuch -- ./ds_usdt 1 1
has "$T/err" "no USDT probe 'nosuch' in .*ds_usdt"
fails 2 veles collect trace -u 'search#nosuch_end' -- ./ds_usdt 1 1
has "$T/err" "no USDT probe 'nosuch_end'"
fails 2 veles collect trace --instrumented -u search -- ./ds_usdt 1 1
has "$T/err" "need --dynamic"
