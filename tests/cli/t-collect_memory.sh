#!/bin/bash
# veles collect memory: counts, leaks, threads, fork, crash, _exit, C++,
# source lines, an empty run and a static binary, on the programs in
# tests/data/memory (each says in its comment what it allocates).
. "$(dirname "$0")/lib.sh"
new_git_project p
D="$VELES_SRCDIR/tests/data/memory"
export VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so"
CFLAGS="-g -O0 -fno-omit-frame-pointer"
for prog in basic threads forks crash quick_exit nothing; do
	cc $CFLAGS -pthread -o "$T/$prog" "$D/$prog.c" || fail "cc $prog"
done

# counts NAME: the newest profile's events per site, into $T/counts.
counts() {
	local f
	f=$(ls -t .veles/jobs/*.perf | head -1)
	/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$f" >"$T/counts" ||
		fail "cannot read $f"
}
want() { grep -qxF -- "$1" "$T/counts" || { cat "$T/counts" >&2; fail "no line '$1'"; }; }

ok veles collect memory -- "$T/basic"
has "$T/out" "allocations \([0-9]+ bytes\), [0-9]+ releases in 1 process"
counts
want "main malloc 110 6790"
want "main calloc 10 320"
want "main realloc 10 10000"
want "main free 110 0"
# The malloc's own line, as the -g binary's line table has it.
line=$(grep -n "the malloc line" "$D/basic.c" | cut -d: -f1)
want "line basic.c:main:$line"
f=$(ls -t .veles/jobs/*.perf | head -1)
/usr/bin/python3 - "$f" <<'EOS' || fail "seed layout"
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

# Filters leave the named site out; --all keeps the runtime's frames.
ok veles collect memory -q --no-func main -- "$T/basic"
counts
hasnt "$T/counts" "^main "
ok veles collect memory -q --no-source basic.c -a -s 0.5 -- "$T/basic"
counts
hasnt "$T/counts" "^main "
f=$(ls -t .veles/jobs/*.perf | head -1)
has "$f" '"sampling":0.5'
has "$f" '"all":true'
has "$f" '"no_source":"basic.c"'

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

# A crash keeps what happened before it, and says what happened.
ok veles collect memory -q -- "$T/crash"
has "$T/err" "signal 11"
counts
want "before_crash malloc 50 3200"

# _exit skips the destructors: the events are there all the same.
ok veles collect memory -q -- "$T/quick_exit"
counts
want "main malloc 3 24"

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
fi

# A static binary cannot be interposed: one clear line, no profile.
n=$(npending)
if cc -static -o "$T/static" "$D/nothing.c" 2>/dev/null; then
	fails 2 veles collect memory -- "$T/static"
	has "$T/err" "statically linked"
	[ "$(npending)" -eq "$n" ] || fail "profile written for a static binary"
fi

# Bad options.
fails 2 veles collect memory -s 0 -- "$T/basic"
has "$T/err" "sampling"
fails 2 veles collect memory
exit 0
