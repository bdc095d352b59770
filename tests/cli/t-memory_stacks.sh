#!/bin/bash
# veles collect memory's stacks on code without frame pointers, on frame
# pointers that hold data, and in libraries unloaded before the end.
. "$(dirname "$0")/lib.sh"
memory_test_setup
# leak_trace BYTES: the functions of the stack of the newest profile's leak
# of BYTES bytes, one a line.
leak_trace() {
	veles show "$(newest)" memory --format json >"$T/json" || fail "show memory"
	/usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
for l in s["leaks"]:
    if l["leaked"] == int(sys.argv[2]):
        print("\n".join(f["function"] for f in l["trace"]))' "$T/json" "$1"
}

# An executable with frame pointers calling a library without them: auto
# follows frame pointers to the library, then its unwind tables beyond it.
cc -g -O2 -fomit-frame-pointer -fno-optimize-sibling-calls -shared -fPIC \
	-o "$T/libnofp.so" "$D/nofplib.c" || fail "cc nofplib"
cc $CFLAGS -o "$T/nofpmain" "$D/nofpmain.c" "$T/libnofp.so" -Wl,-rpath,"$T" || fail "cc nofpmain"
ok veles collect memory -q -- "$T/nofpmain"
leak_trace 4321 >"$T/trace"
for f in nofp_inner nofp_alloc through_library main; do
	grep -qx "$f" "$T/trace" || fail "auto: no $f in $(tr '\n' ' ' <"$T/trace")"
done

# No frame pointers anywhere, four levels in a library down to malloc:
# the runtime's own unwinder (cfi, and auto, which uses it) gives every
# frame, in order, as libunwind does.
cc -g -O2 -fomit-frame-pointer -fno-optimize-sibling-calls -shared -fPIC \
	-o "$T/libcfi.so" "$D/cfilib.c" || fail "cc cfilib"
cc -g -O2 -fomit-frame-pointer -fno-optimize-sibling-calls -o "$T/cfimain" "$D/cfimain.c" \
	"$T/libcfi.so" -Wl,-rpath,"$T" || fail "cc cfimain"
want="malloc level4 level3 level2 cfi_alloc via_main main"
for mode in cfi auto libunwind; do
	ok veles collect memory -q --unwind $mode -- "$T/cfimain"
	leak_trace 5555 | head -7 | sed 's/\..*//' | tr '\n' ' ' >"$T/trace"
	[ "$(cat "$T/trace")" = "$want " ] || fail "cfi, $mode: $(cat "$T/trace")"
done
ok veles collect memory -q --unwind fp -- "$T/cfimain"
[ "$(leak_trace 5555 | wc -l)" -le 2 ] || fail "fp walked past no frame pointers"

# A frame with no unwind tables, in a library without frame pointers: the
# stack ends there, with no guessed frames beyond.
cc -g -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fno-optimize-sibling-calls -shared -fPIC -o "$T/libnocfi.so" "$D/nocfi.c" ||
	fail "cc nocfi"
cc $CFLAGS -o "$T/nocfimain" "$D/nocfimain.c" "$T/libnocfi.so" -Wl,-rpath,"$T" ||
	fail "cc nocfimain"
for mode in cfi auto; do
	ok veles collect memory -q --unwind $mode -- "$T/nocfimain"
	leak_trace 6666 | tr '\n' ' ' >"$T/trace"
	[ "$(cat "$T/trace")" = "malloc nocfi_alloc " ] || fail "nocfi, $mode: $(cat "$T/trace")"
done

# Stacks with more return addresses than the symboliser first holds (1024):
# it grows while naming a stack, and each leak's site stays its own
# (the ASan build catches a site read from the symboliser's old table).
{
	echo '#include <stdlib.h>'
	for c in $(seq 0 11); do
		echo "void *f${c}_60(void) { return malloc($((1000 + c))); }"
		for i in $(seq 59 -1 0); do
			echo "void *f${c}_$i(void) { return f${c}_$((i + 1))(); }"
		done
	done
	echo 'int main(void) {'
	for c in $(seq 0 11); do echo "	(void)f${c}_0();"; done
	echo '	return 0;'
	echo '}'
} >"$T/deep.c"
cc $CFLAGS -o "$T/deep" "$T/deep.c" || fail "cc deep"
ok veles collect memory -q -- "$T/deep"
for c in 4 8 11; do # the largest: the summary lists the top leaks
	[ "$(leak_trace $((1000 + c)) | sed -n 2p)" = "f${c}_60" ] ||
		fail "deep: leak $((1000 + c)): $(leak_trace $((1000 + c)) | head -3 | tr '\n' ' ')"
done

# A frame pointer pointing at data: the walk ends at the last real frame.
cc $CFLAGS -mno-red-zone -o "$T/badframe" "$D/badframe.c" || fail "cc badframe"
for mode in auto fp; do
	ok veles collect memory -q --unwind $mode -- "$T/badframe"
	leak_trace 777 >"$T/trace"
	grep -qx bad_frame "$T/trace" || fail "badframe $mode: $(tr '\n' ' ' <"$T/trace")"
	! grep -q '??\|0x2f3d4c4c45485300\|0x2f3d4c4c' "$T/trace" ||
		fail "badframe $mode: garbage frame: $(tr '\n' ' ' <"$T/trace")"
done

# A library unloaded with dlclose keeps the names of its frames.
cc $CFLAGS -shared -fPIC -o "$T/plugin.so" "$D/plugin.c" || fail "cc plugin"
cc $CFLAGS -o "$T/unload" "$D/unload.c" -ldl || fail "cc unload"
ok veles collect memory -q -- "$T/unload" "$T/plugin.so"
leak_trace 2345 >"$T/trace"
grep -qx plugin_alloc "$T/trace" || fail "dlclose: $(tr '\n' ' ' <"$T/trace")"

# One site reached along stacks that share their first frames, in turns:
# the runtime's per-thread memo of stacks must tell them apart beyond the
# frames it is keyed by, so each stack keeps its own allocations.
cc $CFLAGS -o "$T/samesite" "$D/samesite.c" || fail "cc samesite"
ok veles collect memory -q -- "$T/samesite"
for want in "2100 via_a" "1400 via_b" "700 via_c"; do
	set -- $want
	leak_trace "$1" | head -4 | tr '\n' ' ' >"$T/trace"
	[ "$(cat "$T/trace")" = "malloc site mid $2 " ] || fail "samesite $1: $(cat "$T/trace")"
done

# Functions inlined into malloc's caller (built -O2, so that they are): the
# site is the innermost one at its own line, each caller follows at the
# line of its call, and both leaks share that one site, as heaptrack has it.
cc -g -O2 -fno-omit-frame-pointer -o "$T/inlined" "$D/inlined.c" || fail "cc inlined"
ok veles collect memory -q -- "$T/inlined"
veles show "$(newest)" memory --format json >"$T/json" || fail "show memory"
line() { grep -nF "/* $1 */" "$D/inlined.c" | cut -d: -f1; }
/usr/bin/python3 - "$T/json" "$(line 'the site')" "$(line "parse_number's call")" \
	"$(line "parse_string's call")" "$(line "parse's calls")" <<'PY' || fail "inlined frames"
import json, sys
s = json.load(open(sys.argv[1]))
site, num, string, parse = (int(a) for a in sys.argv[2:])
want = {1111: [("new_item", site), ("parse_number", num), ("parse", parse)],
        2222: [("new_item", site), ("parse_string", string), ("parse", parse)]}
for l in s["leaks"]:
    frames = [(f["function"], f["line"]) for f in l["trace"]][1:4]
    assert frames == want[l["leaked"]], (l["leaked"], frames)
sites = [c for c in s["by_count"] if "new_item" in c["uid"]]
assert len(sites) == 1 and sites[0]["allocations"] == 2, s["by_count"]
assert sites[0]["uid"].endswith(":new_item:%d" % site), sites[0]["uid"]
PY
