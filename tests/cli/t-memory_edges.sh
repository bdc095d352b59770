#!/bin/bash
# veles collect memory at its edges: frees in another thread than the
# allocation, the aligned and array allocators, a program killed, vfork,
# and the views' modes (each program in tests/data/memory says what it does).
. "$(dirname "$0")/lib.sh"
new_git_project p
D="$VELES_SRCDIR/tests/data/memory"
export VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so"
CFLAGS="-g -O0 -fno-omit-frame-pointer"
newest() { ls -t .veles/jobs/*.perf | head -1; }
summary() {
	veles show "$(newest)" memory --format json >"$T/json" || fail "show memory"
	/usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(s[sys.argv[2]])' \
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

exit 0
