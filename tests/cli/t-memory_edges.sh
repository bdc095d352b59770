#!/bin/bash
# veles collect memory at its edges: frees in another thread than the
# allocation, the aligned and array allocators, a program killed, vfork,
# and the views' modes (each program in tests/data/memory says what it does).
. "$(dirname "$0")/lib.sh"
memory_test_setup
summary() {
	veles show "$(newest)" memory --format json >"$T/json" || fail "show memory"
	/usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(s[sys.argv[2]])' \
		"$T/json" "$1"
}
# leaked_in FUNCTION: the bytes the newest profile's leaks in FUNCTION hold.
leaked_in() {
	veles show "$(newest)" memory --format json >"$T/json" || fail "show memory"
	/usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(sum(l["leaked"] for l in s["leaks"] if l["uid"].split(":")[-2] == sys.argv[2]))' \
		"$T/json" "$1"
}

# Frees in another thread: each waits for its own malloc, so the peak is
# the ring's 2 KiB plus stdio's buffer and the block kept, not every block.
cc $CFLAGS -pthread -o "$T/crossfree" "$D/crossfree.c" || fail "cc crossfree"
ok veles collect memory -q -- "$T/crossfree"
peak=$(summary peak)
[ "$peak" -le $((64 * 32 + 1000 + 8192)) ] || fail "crossfree: peak $peak"
[ "$(summary leaked)" -le $((1000 + 8192)) ] || fail "crossfree: leaked $(summary leaked)"
[ "$(summary releases)" -eq 100000 ] || fail "crossfree: releases $(summary releases)"

# The aligned and array allocators, counted once each (reallocarray calls
# realloc inside the C library), as the program itself counts them.
cc $CFLAGS -o "$T/allocators" "$D/allocators.c" || fail "cc allocators"
ok veles collect memory -q -- "$T/allocators"
grep -v '^free' "$T/out" | sed 's/^/main /' >"$T/expect"
grep '^free' "$T/out" | sed 's/^free \(.*\)/main free \1 0/' >>"$T/expect"
/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$(newest)")" | grep '^main ' >"$T/got"
sort "$T/expect" >"$T/e" && sort "$T/got" >"$T/g"
diff -u "$T/e" "$T/g" >&2 || fail "allocators: counts differ from the program's"
[ "$(leaked_in main)" -eq 30 ] || fail "allocators: main leaked $(leaked_in main), not 30"

# Killed by SIGTERM, mostly in the middle of recording a malloc, then by
# --timeout: every malloc that returned is there (one more at most, whose
# count the signal beat).
cc $CFLAGS -pthread -o "$T/spin" "$D/spin.c" || fail "cc spin"
for how in self self self self slow; do
	ok veles collect memory -q --timeout 1 -- "$T/spin" "$T/count" $how
	has "$T/err" "signal 15"
	want=$(od -An -tu8 -N8 "$T/count" | tr -d ' ')
	got=$(/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$(newest)")" |
		sed -n 's/^main malloc \([0-9]*\) .*/\1/p')
	[ "$got" -ge "$want" ] && [ "$got" -le $((want + 1)) ] ||
		fail "spin $how: $got mallocs recorded of $want"
done

# Killed by SIGKILL, which no handler sees, while it waits: the events its
# threads' buffers held are in the live file (docs/memory-format.md), so
# the profile has every allocation, each once (200000 fill the buffer more
# than once), and the driver's warning that they are kept is true; so
# for a forked child killed, whose buffer left the parent's at the fork.
# killed_run ARGS...: runs killed ARGS under collect memory and kills it.
cc $CFLAGS -pthread -o "$T/killed" "$D/killed.c" || fail "cc killed"
killed_run() {
	rm -f "$T/ready"
	veles collect memory -q -- "$T/killed" "$T/ready" "$@" >"$T/out" 2>"$T/err" &
	local driver=$! i=0
	while [ ! -s "$T/ready" ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -s "$T/ready" ] || { kill $driver; fail "killed $*: never ready"; }
	kill -9 "$(cat "$T/ready")"
	wait $driver || { cat "$T/out" "$T/err" >&2; fail "collect memory of killed $*"; }
	/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$(newest)")" >"$T/counts"
}
killed_run one
has "$T/err" "killed by signal 9.*the events up to then are kept"
grep -qx "main malloc 1000 16000" "$T/counts" || fail "killed one: $(cat "$T/counts")"
grep -qx "threads 1" "$T/counts" || fail "killed one: $(cat "$T/counts")"
killed_run thread
grep -qx "main malloc 1000 16000" "$T/counts" || fail "killed thread: $(cat "$T/counts")"
grep -qx "worker malloc 500 16000" "$T/counts" || fail "killed thread: $(cat "$T/counts")"
grep -qx "threads 2" "$T/counts" || fail "killed thread: $(cat "$T/counts")"
killed_run one 200000
grep -qx "main malloc 200000 3200000" "$T/counts" || fail "killed 200000: $(cat "$T/counts")"
# An exec that failed goes on in a new record file, with the same buffers.
killed_run badexec
grep -qx "before_fork malloc 10 80" "$T/counts" || fail "killed badexec: $(cat "$T/counts")"
grep -qx "main malloc 1000 16000" "$T/counts" || fail "killed badexec: $(cat "$T/counts")"
# A forked child killed: its buffer is its own, the parent's goes on.
killed_run fork
hasnt "$T/err" "signal"
grep -qx "before_fork malloc 10 80" "$T/counts" || fail "killed fork: $(cat "$T/counts")"
grep -qx "main malloc 1000 16000" "$T/counts" || fail "killed fork: $(cat "$T/counts")"
grep -qx "after_child malloc 3 192" "$T/counts" || fail "killed fork: $(cat "$T/counts")"
grep -qx "pids 2" "$T/counts" || fail "killed fork: $(cat "$T/counts")"

# vfork: a child that execs or calls _exit shares the parent's memory, and
# must leave its recording alone.
cc $CFLAGS -o "$T/vforks" "$D/vforks.c" || fail "cc vforks"
ok veles collect memory -q -- "$T/vforks"
/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$(newest)")" >"$T/counts"
grep -qx "before malloc 5 50" "$T/counts" || fail "vforks: $(cat "$T/counts")"
grep -qx "after malloc 7 140" "$T/counts" || fail "vforks: nothing after the children"
grep -qx "after free 7 0" "$T/counts" || fail "vforks: $(cat "$T/counts")"

# Leaks by the stack that leaked, not the first stack of their site.
cc $CFLAGS -o "$T/leakpaths" "$D/leakpaths.c" || fail "cc leakpaths"
ok veles collect memory -q -- "$T/leakpaths"
ok veles show "$(newest)" memory
grep -A3 "100 B in 1 block" "$T/out" | grep -q leak_one || fail "leakpaths: $(cat "$T/out")"
hasnt "$T/out" "tidy"
ok veles show "$(newest)" memory --format json
/usr/bin/python3 - "$T/out" <<'EOS' || fail "leakpaths json"
import json, sys
s = json.load(open(sys.argv[1]))
by = {}
for l in s["leaks"]:
    fns = [f["function"] for f in l["trace"]]
    if "make" in fns:
        by[fns[2]] = by.get(fns[2], 0) + l["leaked"]
assert by == {"leak_one": 100, "leak_two": 400}, by
EOS

# Flame graphs of a memory profile: bytes by default, allocations with
# -a count (releases, of amount 0, left out); other aggregations refused.
f=$(newest)
ok veles show "$f" flamegraph -o "$T/bytes.svg"
grep -qzP "<title>leak_two\n400 B," "$T/bytes.svg" || fail "flamegraph bytes"
grep -qzP "<title>tidy\n30 B," "$T/bytes.svg" || fail "flamegraph bytes"
ok veles show "$f" flamegraph -a count -o "$T/count.svg"
grep -qzP "<title>leak_two\n2," "$T/count.svg" || fail "flamegraph -a count"
grep -qzP "<title>tidy\n3," "$T/count.svg" || fail "flamegraph -a count"
grep -qzP "<title>all\n6</title>" "$T/count.svg" || fail "flamegraph -a count: not 6 allocations"
fails 1 veles show "$f" flamegraph -a mean -o "$T/mean.svg"
has "$T/err" "sum or count"

# An ended thread's recording state serves the next thread: thousands of
# short threads in turn cost no more address space than a few.
cc $CFLAGS -pthread -o "$T/shortthreads" "$D/shortthreads.c" || fail "cc shortthreads"
ok veles collect memory -q -- "$T/shortthreads" 10
few=$(cat "$T/out")
ok veles collect memory -q -- "$T/shortthreads" 3000
many=$(cat "$T/out")
[ $((many - few)) -lt 20000 ] || fail "3000 threads: VmSize $many kB, 10 threads: $few kB"
counts=$(/usr/bin/python3 "$VELES_SRCDIR/tests/cli/memory_counts.py" "$(json_of "$(newest)")")
grep -qx "work malloc 3000 192000" <<<"$counts" || fail "shortthreads: $counts"
grep -qx "work free 3000 0" <<<"$counts" || fail "shortthreads: $counts"

exit 0
