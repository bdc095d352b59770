#!/bin/bash
# veles show on crafted profiles (tests/data/crafted/): an empty uid is the
# string pool's id 0, which once wrapped to 2^32-1 in scatter (exit 139);
# flame graphs of stacks deeper than any picture. Every view either shows
# such a profile or refuses it in one line.
. "$(dirname "$0")/lib.sh"
D=$VELES_SRCDIR/tests/data/crafted
cd "$T" || fail cd
export COLUMNS=72

ok veles show "$D/empty-uid.perf" scatter
has "$T/out" "1 measurement"
ok veles show "$D/empty-uid.perf" scatter -o "$T/s.svg"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/s.svg" ||
	fail "not XML"
# The empty uid alone, with a subtype, and beside another uid: three graphs,
# the empty uid's model drawn on its own two.
ok veles show "$D/empty-uid-mixed.perf" scatter
[ "$(grep -c 'measurement' "$T/out")" -eq 3 ] || fail "expected three graphs"
[ "$(grep -c 'linear (R' "$T/out")" -eq 2 ] || fail "the model belongs to the empty uid"
has "$T/out" "2 measurements +.+ linear"
has "$T/out" "^ \[a\]$"
has "$T/out" "^f$"

# Stacks deeper than anything drawn: a call at depth 2^61 (huge-depth.perf,
# whose stack once grew by a wrapped size) and a trace of 300,000 frames
# (once a stack overflow in the tree's recursive walks). Both are drawn, the
# frames below 2000 levels summed into one.
ok veles show "$D/huge-depth.perf" flamegraph -o "$T/h.svg"
has "$T/h.svg" "\[deeper frames\]"
python3 - "$T/deep.perf" <<'PY' || fail "making deep.perf"
import json, sys
trace = [{"function": "f%d" % (i % 3), "source": "s.c", "line": i % 5} for i in range(300000)]
json.dump({"header": {"type": "memory", "units": {"memory": "B"}},
           "resources": [{"uid": "a", "type": "memory", "subtype": "malloc", "amount": 1,
                          "address": 1, "snapshot": 0, "trace": trace}]}, open(sys.argv[1], "w"))
PY
ok veles show "$T/deep.perf" flamegraph -o "$T/d.svg"
[ "$(grep -c '<g class="f"' "$T/d.svg")" -eq 2002 ] || fail "expected all + 2000 frames + the deeper ones"

for f in empty-uid empty-uid-mixed huge-depth; do
	for v in summary table raw "tableof resources" "tableof models" bars flow scatter \
		"bars --by uid" "flow --by subtype" "bars --per subtype" "scatter --per amount" \
		"flamegraph -o $T/f.svg"; do
		# shellcheck disable=SC2086
		veles show "$D/$f.perf" $v >"$T/out" 2>"$T/err"
		rc=$?
		[ "$rc" -le 2 ] || fail "show $f $v: exit $rc"
		[ "$rc" -eq 0 ] || [ "$(wc -l <"$T/err")" -eq 1 ] || fail "show $f $v: $(cat "$T/err")"
	done
done
echo ok
