#!/bin/bash
# veles collect memory: counts, leaks, threads, fork, crash, _exit, C++,
# source lines, an empty run and a static binary, on the programs in
# tests/data/memory (each says in its comment what it allocates).
. "$(dirname "$0")/lib.sh"
memory_test_setup
for prog in basic threads forks crash quick_exit nothing exec_self reallocs; do
	cc $CFLAGS -pthread -o "$T/$prog" "$D/$prog.c" || fail "cc $prog"
done

# counts NAME: the newest profile's events per site, into $T/counts.
counts() {
	local f
	f=$(ls -t .veles/jobs/*.perf | head -1)
	/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$f")" >"$T/counts" ||
		fail "cannot read $f"
}
want() { grep -qxF -- "$1" "$T/counts" || { cat "$T/counts" >&2; fail "no line '$1'"; }; }

ok veles collect memory -- "$T/basic"
# The totals show memory gives below: a realloc's old block is a release.
has "$T/out" "^130 allocations \(17110 bytes\), 120 releases in 1 process"
counts
want "main malloc 110 6790"
want "main calloc 10 320"
want "main realloc 10 10000"
want "main free 110 0"
# The malloc's own line, as the -g binary's line table has it.
line=$(grep -n "the malloc line" "$D/basic.c" | cut -d: -f1)
want "line basic.c:main:$line"
f=$(ls -t .veles/jobs/*.perf | head -1)
/usr/bin/python3 - "$(json_of "$f")" <<'EOS' || fail "seed layout"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["type"] == "memory" and p["header"]["units"] == {"memory": "B"}
assert p["collector_info"]["name"] == "memory"
params = p["collector_info"]["params"]
assert params == {"all": False, "sampling": 0.025, "no_func": None, "no_source": None}, params
for key, t in p["resource_type_map"].items():
    assert t["type"] == "memory" and set(t["uid"]) == {"source", "function", "line"}
    assert t["trace"][0]["function"] == t["subtype"], t["trace"][0]
    assert t["trace"][0]["source"] == "unreachable"
    assert isinstance(t["snapshot"], int) and float(t["time"]) > 0
    assert set(p["resources"][key]) >= {"amount", "address"}
EOS

# The summary a heaptrack user reads: known totals, peak, leaks, sites.
ok veles show "$f" memory
has "$T/out" "Total allocated: +17.11 kB in 130 allocations"
has "$T/out" "Temporary allocations: 10 "
has "$T/out" "Peak heap: +16.34 kB at 0.025000 s"
has "$T/out" "Leaked: +240 B in 10 blocks"
has "$T/out" "basic.c:main:20"
ok veles show memory "$f" --format json
/usr/bin/python3 - "$T/out" <<'EOS' || fail "show memory json"
import json, sys
s = json.load(open(sys.argv[1]))
# 100 malloc + 10 calloc + 10 realloc + 10 kept; the reallocs each grow a
# block of 16..25 bytes to 1000 after the 100 mallocs of 16..115 bytes.
assert (s["allocations"], s["releases"], s["bytes"]) == (130, 120, 17110), s
assert (s["temporary"], s["leaked"], s["leaked_blocks"]) == (10, 240, 10), s
assert s["peak"] == 6550 - 205 + 10000, s["peak"]
assert s["leaks"][0]["uid"].endswith("basic.c:main:20")
assert s["by_count"][0]["allocations"] == 100
assert s["by_bytes"][0]["bytes"] == 10000
assert s["by_peak"][0]["peak"] == 10000 and s["by_peak"][1]["peak"] == 6345
EOS
# One definition of a release, in the summary line and in show memory: a
# block that ended, by free or by a realloc (moved or to size 0); a
# realloc of NULL only allocates. Allocations less releases are live.
ok veles collect memory -- "$T/reallocs"
has "$T/out" "^4 allocations \(1048640 bytes\), 3 releases in 1 process"
ok veles show "$(newest)" memory --format json
/usr/bin/python3 - "$T/out" <<'EOS' || fail "show memory json reallocs"
import json, sys
s = json.load(open(sys.argv[1]))
assert (s["allocations"], s["releases"], s["bytes"]) == (4, 3, 1048640), s
assert (s["leaked"], s["leaked_blocks"]) == (16, 1), s
EOS
# The seed's example profile: one malloc of 4 bytes, then its free.
ok veles show "$VELES_SRCDIR/tests/data/profiles/memory.perf" memory
has "$T/out" "Total allocated: +4 B in 1 allocations"
has "$T/out" "Peak heap: +4 B at 0.025000 s"
has "$T/out" "Leaked: +0 B in 0 blocks"
fails 1 veles show "$VELES_SRCDIR/tests/data/profiles/time.perf" memory
has "$T/err" "needs a memory profile"

# Filters leave the named site out; --all keeps the runtime's frames.
ok veles collect memory -q --no-func main -- "$T/basic"
counts
hasnt "$T/counts" "^main "
ok veles collect memory -q --no-source basic.c -a -s 0.5 -- "$T/basic"
counts
hasnt "$T/counts" "^main "
f=$(ls -t .veles/jobs/*.perf | head -1)
fj=$(json_of "$f")
has "$fj" '"sampling":0.5'
has "$fj" '"all":true'
has "$fj" '"no_source":"basic.c"'

# A release records its caller only, unless -a asks for its whole stack.
depth() {
	/usr/bin/python3 - "$(json_of "$(ls -t .veles/jobs/*.perf | head -1)")" <<'EOS'
import json, sys
p = json.load(open(sys.argv[1]))
print(max(len(t["trace"]) for t in p["resource_type_map"].values() if t["subtype"] == "free"))
EOS
}
ok veles collect memory -q -- "$T/basic"
[ "$(depth)" -eq 2 ] || fail "a free's trace: $(depth) frames, not the allocator and its caller"
ok veles collect memory -q -a -- "$T/basic"
[ "$(depth)" -gt 2 ] || fail "-a: a free's trace has only $(depth) frames"

# Threads: every thread's events, each thread named.
ok veles collect memory -q -- "$T/threads"
counts
want "worker malloc 4000 252080"
want "worker free 4000 0"
grep -Eq "^threads ([5-9]|[1-9][0-9])$" "$T/counts" || fail "threads: $(cat "$T/counts")"

# fork: the child's events are its own process's.
ok veles collect memory -q -- "$T/forks"
counts
want "child_work malloc 7 700"
want "parent_work malloc 5 1000"
want "pids 2"
merged=$(newest)
ok veles collect memory -q --children follow -- "$T/forks"
counts
want "child_work malloc 7 700"
want "pids 2"
for opt in --no-children "--children none"; do
	# shellcheck disable=SC2086
	ok veles collect memory -q $opt -- "$T/forks"
	counts
	want "parent_work malloc 5 1000"
	want "pids 1"
	hasnt "$T/counts" "child_work"
done
fails 2 veles collect memory --children twice -- "$T/forks"
has "$T/err" "--children takes follow, separate or none, not 'twice'"

# --children separate: a profile per process, the parent's as the merged
# one is named, the child's NAME-pidPID, each with its pid in its header;
# together they hold the merged profile's events.
ls .veles/jobs/*.perf | sort >"$T/before"
ok veles collect memory --children separate -- "$T/forks"
has "$T/out" "^12 allocations \(1700 bytes\), 0 releases in 2 processes, a profile each;"
ls .veles/jobs/*.perf | sort | comm -13 "$T/before" - >"$T/new"
[ "$(wc -l <"$T/new")" -eq 2 ] || fail "--children separate: $(cat "$T/new")"
child=$(grep -E -- '-pid[0-9]+\.perf$' "$T/new") || fail "no NAME-pidPID profile"
parent=$(grep -vE -- '-pid[0-9]+\.perf$' "$T/new") || fail "no parent profile"
has "$T/err" "profile written to .*${child##*/}"
/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$parent")" >"$T/counts"
want "parent_work malloc 5 1000"
want "pids 1"
hasnt "$T/counts" "child_work"
/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$child")" >"$T/counts"
want "child_work malloc 7 700"
want "pids 1"
hasnt "$T/counts" "parent_work"
/usr/bin/python3 - "$(json_of "$parent")" "$(json_of "$child")" "$(json_of "$merged")" \
	"$child" <<'EOS' || fail "separate profiles"
import json, re, sys
from collections import Counter
def load(f):
    p = json.load(open(f))
    n = Counter()
    pids = set()
    for key, res in p["resources"].items():
        t = p["resource_type_map"][key]
        n[(t["uid"]["function"], t["subtype"])] += len(res["amount"])
        n[(t["uid"]["function"], t["subtype"], "bytes")] += sum(res["amount"])
        pids.update(res["pid"])
    return p, n, pids
par, npar, ppar = load(sys.argv[1])
chi, nchi, pchi = load(sys.argv[2])
_, nmer, pmer = load(sys.argv[3])
assert ppar == {par["header"]["pid"]}, (ppar, par["header"])
assert pchi == {chi["header"]["pid"]}, (pchi, chi["header"])
assert chi["header"]["ppid"] == par["header"]["pid"], chi["header"]
assert sys.argv[4].endswith("-pid%d.perf" % chi["header"]["pid"]), sys.argv[4]
assert npar + nchi == nmer, (npar, nchi, nmer)
assert par["header"]["cmd"] == chi["header"]["cmd"]
EOS

# exec: the new image of the same process records as well.
ok veles collect memory -- "$T/exec_self"
has "$T/out" " in 1 process;" # two images, one process
counts
want "before_exec malloc 2 20"
want "after_exec malloc 4 80"
want "pids 1"
# The exec ends the old image's heap: its blocks are neither leaks nor
# part of the new image's peak.
veles show "$(ls -t .veles/jobs/*.perf | head -1)" memory --format json >"$T/json" ||
	fail "show memory exec_self"
/usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(s["peak"], s["leaked"])' \
	"$T/json" >"$T/sum"
[ "$(cat "$T/sum")" = "80 80" ] || fail "exec_self: peak and leaked $(cat "$T/sum"), not 80 80"

# Stacks through a shared library: the site is the library's own line.
cc $CFLAGS -shared -fPIC -o "$T/liballoc.so" "$D/liballoc.c" || fail "cc liballoc"
cc $CFLAGS -o "$T/uses_lib" "$D/uses_lib.c" "$T/liballoc.so" -Wl,-rpath,"$T" || fail "cc uses_lib"
ok veles collect memory -q -- "$T/uses_lib"
counts
want "lib_make malloc 6 288"
want "lib_make calloc 1 48"
line=$(grep -n "the library's malloc line" "$D/liballoc.c" | cut -d: -f1)
want "line liballoc.c:lib_make:$line"
f=$(ls -t .veles/jobs/*.perf | head -1)
/usr/bin/python3 - "$(json_of "$f")" <<'EOS' || fail "no main under lib_make"
import json, sys
p = json.load(open(sys.argv[1]))
traces = [t["trace"] for t in p["resource_type_map"].values() if t["uid"]["function"] == "lib_make"]
assert traces and all([f["function"] for f in t[1:3]] == ["lib_make", "main"] for t in traces), traces
EOS

# Code without frame pointers: auto finds that the program lacks them and
# walks it by its unwind tables, which see every frame; frame pointers
# alone do not.
cc -g -O2 -fomit-frame-pointer -o "$T/nofp" "$D/nofp.c" || fail "cc nofp"
chain() {
	/usr/bin/python3 - "$(json_of "$(ls -t .veles/jobs/*.perf | head -1)")" <<'EOS'
import json, sys
p = json.load(open(sys.argv[1]))
for t in p["resource_type_map"].values():
    if t["subtype"] in ("malloc", "calloc") and t["uid"]["function"] == "inner":
        print(" ".join(f["function"] for f in t["trace"][1:5]))
EOS
}
ok veles collect memory -q -- "$T/nofp"
[ "$(chain | sort -u)" = "inner middle outer main" ] || fail "auto on nofp: $(chain)"
counts
want "inner malloc 5 320"
want "inner calloc 5 160"
ok veles collect memory -q --unwind fp -- "$T/nofp"
[ "$(chain | sort -u)" != "inner middle outer main" ] || fail "--unwind fp walked past no frame pointers"
ok veles collect memory -q --unwind libunwind -- "$T/uses_lib"
counts
want "lib_make malloc 6 288"
fails 2 veles collect memory --unwind dwarf -- "$T/nofp"
has "$T/err" "auto, cfi, fp or libunwind"

# A crash keeps what happened before it, and says what happened.
ok veles collect memory -q -- "$T/crash"
has "$T/err" "signal 11"
counts
want "before_crash malloc 50 3200"

# _exit skips the destructors: the events are there all the same.
ok veles collect memory -q -- "$T/quick_exit"
counts
want "main malloc 3 24"

# Time from the driver's clock page: events 300 ms apart lie about 12
# snapshots of 25 ms apart (the page ticks every 2 ms).
cc $CFLAGS -o "$T/sleepy" "$D/sleepy.c" || fail "cc sleepy"
ok veles collect memory -- "$T/sleepy"
has "$T/out" "the command used [0-9.]+ s CPU"
/usr/bin/python3 - "$(json_of "$(ls -t .veles/jobs/*.perf | head -1)")" <<'EOS' || fail "snapshots of sleepy"
import json, sys
p = json.load(open(sys.argv[1]))
snap = {}
for key, t in p["resource_type_map"].items():
    if t["subtype"] == "malloc" and t["uid"]["function"] in ("early", "late"):
        snap.setdefault(t["uid"]["function"], set()).add(t["snapshot"])
gap = min(snap["late"]) - max(snap["early"])
assert 8 <= gap <= 40, snap
EOS

# A program that allocates nothing gives a valid, empty profile.
ok veles collect memory -q -- "$T/nothing"
counts
want "pids 0"

# C++: operator new and delete, names demangled.
if command -v c++ >/dev/null; then
	c++ $CFLAGS -o "$T/objects" "$D/objects.cc" || fail "c++"
	ok veles collect memory -q -- "$T/objects"
	counts
	want "make_node(int) new 20 320"
	want "main delete 20 0"
	want "main new[] 1 40"
	ok veles show "$(ls -t .veles/jobs/*.perf | head -1)" memory
	has "$T/out" "40 B in 1 block .*objects.cc:main:22"
fi

# A static binary cannot be interposed: one clear line, no profile.
n=$(npending)
if cc -static -o "$T/static" "$D/nothing.c" 2>/dev/null; then
	fails 2 veles collect memory -- "$T/static"
	has "$T/err" "statically linked"
	[ "$(npending)" -eq "$n" ] || fail "profile written for a static binary"
fi

# fexecve and execveat end the image as execve does: what it recorded goes
# out first. The program they run here is static, which the preload cannot
# follow: a wrapper (a script, a program) running one is said on stderr.
if [ -f "$T/static" ]; then
	cc $CFLAGS -o "$T/fexec" "$D/fexec.c" || fail "cc fexec"
	for how in fexecve execveat; do
		ok veles collect memory -q -- "$T/fexec" "$T/static" $([ $how = execveat ] && echo at)
		counts
		want "main malloc 9 495"
		has "$T/err" "$T/static is statically linked: its allocations are not recorded"
	done
	printf '#!/bin/sh\nexec "%s"\n' "$T/static" >"$T/wrap.sh" && chmod +x "$T/wrap.sh"
	ok veles collect memory -q -- "$T/wrap.sh"
	has "$T/err" "$T/static is statically linked: its allocations are not recorded"
fi

# Bad options.
fails 2 veles collect memory -s 0 -- "$T/basic"
has "$T/err" "sampling"
fails 2 veles collect memory
exit 0
