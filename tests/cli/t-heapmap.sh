#!/bin/bash
# veles show PROFILE heapmap: the address space of a memory profile at the
# end of a snapshot, as text when stdout is not a terminal.
. "$(dirname "$0")/lib.sh"
memory_test_setup
cc -g -O0 -fno-omit-frame-pointer -o "$T/sleepy" "$D/sleepy.c" || fail "cc sleepy"
# Ten blocks of 16 bytes, 300 ms later ten of 32, none freed.
ok veles collect memory -q -- "$T/sleepy"
f=$(ls -t .veles/jobs/*.perf | head -1)
export COLUMNS=60

# By default the peak's snapshot: all twenty blocks.
ok veles show "$f" heapmap
has "$T/out" "^heapmap of pid [0-9]+, snapshot [0-9]+ \(of 0\.\.[0-9]+\): 480 B in 20 blocks live"
has "$T/out" "^one cell: [0-9]+ B; 1 address range"
rows=$(grep -c '^0x[0-9a-f]\{16\} |.*|$' "$T/out")
[ "$rows" -ge 1 ] && [ "$rows" -le 16 ] || fail "heapmap rows: $rows"
# Every row is as wide as the terminal: the label, the cells and the bars.
width=$(grep '^0x' "$T/out" | awk '{ print length($0) }' | sort -u)
[ "$width" = 60 ] || fail "rows of $width columns, not 60"
grep '^0x' "$T/out" | grep -q '[.:+#]' || fail "no used cell"

# The first snapshot holds only the first ten blocks.
first=$(sed -n 's/.*(of \([0-9]*\)\.\..*/\1/p' "$T/out")
ok veles show "$f" heapmap --snapshot "$first" --rows 3 --text
has "$T/out" "snapshot $first .*: 160 B in 10 blocks live"
[ "$(grep -c '^0x' "$T/out")" -le 3 ] || fail "--rows 3: $(grep -c '^0x' "$T/out") rows"
# A cell of 16 bytes: each block of 16 fills one cell exactly.
ok veles show "$f" heapmap --snapshot "$first" --rows 1000
has "$T/out" "one cell: 16 B"
[ "$(grep '^0x' "$T/out" | tr -cd '#' | wc -c)" -eq 10 ] || fail "ten full cells of 16 B"

# The seed's memory flow: the mean amount per site over the snapshots,
# stacked, from the generic flow view (snapshot is a persistent key).
ok veles show "$f" flow --of amount --per snapshot --by uid -a mean --stacked --no-accumulate
has "$T/out" "^ *1 .*sleepy.c:early:[0-9]+$"
has "$T/out" "^ *2 .*sleepy.c:late:[0-9]+$"
has "$T/out" "mean\(amount\) \[B\]"
has "$T/out" "^ +snapshot$"
# Those are a memory profile's flow defaults: each option not given takes
# its value there, the others are the user's.
cp "$T/out" "$T/seedflow"
ok veles show "$f" flow
cmp -s "$T/out" "$T/seedflow" || fail "flow with no options is not the seed's memory flow"
ok veles show "$f" flow -a sum
cp "$T/out" "$T/sumflow"
has "$T/sumflow" "^ +sum\(amount\) \[B\]"
ok veles show "$f" flow --of amount --per snapshot --by uid -a sum --stacked --no-accumulate
cmp -s "$T/out" "$T/sumflow" || fail "flow -a sum: not the rest of the defaults"
ok veles show "$f" flow --accumulate
has "$T/out" "running mean\(amount\) \[B\]"
ok veles show "$f" tableof --filter-by subtype malloc -h snapshot,amount --sort-by snapshot
[ "$(grep -c ' 16$' "$T/out")" -eq 10 ] && [ "$(grep -c ' 32$' "$T/out")" -eq 10 ] ||
	fail "ten mallocs of 16 and ten of 32"
ok veles show "$f" flow --of amount --per snapshot --by uid -a mean --stacked -o "$T/flow.svg"
has "$T/flow.svg" 'class="axis-title">snapshot<'
[ "$(grep -c 'text-anchor="start">' "$T/flow.svg")" -eq 2 ] || fail "flow.svg: not two sites"
ok veles show "$f" flow -o "$T/flow2.svg"
cmp -s "$T/flow.svg" "$T/flow2.svg" || fail "flow -o: not the seed's flow"

# A program that allocates nothing: an empty map, said so.
cc -o "$T/nothing" "$D/nothing.c" || fail "cc nothing"
ok veles collect memory -q -- "$T/nothing"
ok veles show "$(ls -t .veles/jobs/*.perf | head -1)" heapmap
has "$T/out" "0 B in 0 blocks live"
has "$T/out" "no block was allocated"
hasnt "$T/out" "^0x"

# On a terminal the view is curses: it opens at the peak's snapshot (or
# --snapshot's), draws the key help, and q quits and gives the screen
# back. (Curses redraws only what changed, so the steps between
# snapshots are not read back from the screen here.)
tty_frame() {
	{ sleep 0.5; printf 'lhq'; } |
		TERM=xterm COLUMNS=80 LINES=24 timeout 20 script -qfec "$VELES show $f heapmap $*" /dev/null \
			>"$T/tty" || fail "curses heapmap: exit $?"
	grep -aq "q: quit" "$T/tty" || fail "no key help on the curses screen"
	grep -aq $'\033\[?1049l' "$T/tty" || fail "the terminal's screen was not given back"
}
if command -v script >/dev/null; then
	tty_frame
	grep -aq "snapshot [0-9]* (of $first\.\.[0-9]*): 480 B in 20 blocks live" "$T/tty" || fail "curses: not the peak"
	tty_frame --snapshot "$first"
	grep -aq "snapshot $first (of $first\.\.[0-9]*): 160 B in 10 blocks live" "$T/tty" ||
		fail "curses: not --snapshot's"
fi

# An exec ends the old image's heap: its two blocks of 10 are gone, the
# new image's four of 20 are what is live at the end.
cc -o "$T/exec_self" "$D/exec_self.c" || fail "cc exec_self"
ok veles collect memory -q -- "$T/exec_self"
ok veles show "$(ls -t .veles/jobs/*.perf | head -1)" heapmap --text
has "$T/out" "^heapmap of pid [0-9]+, snapshot [0-9]+ .*: 80 B in 4 blocks live"

# Errors: a snapshot without events, a profile of another type.
fails 1 veles show "$f" heapmap --snapshot 100000
has "$T/err" "no snapshot 100000"
fails 1 veles show "$VELES_SRCDIR/tests/data/profiles/time.perf" heapmap
has "$T/err" "heapmap view needs a memory profile"
fails 2 veles show "$f" heapmap --rows x
exit 0
