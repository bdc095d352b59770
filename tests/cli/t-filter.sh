#!/bin/bash
# veles postprocess filter: which resources stay, in both resource layouts,
# with every operator, --any, and bad conditions.
. "$(dirname "$0")/lib.sh"
new_git_project p
D="$VELES_SRCDIR/tests/data/profiles"
cp "$D/trace.perf" .veles/jobs/

# filter PROFILE ARGS... -> the kept (uid, amount) pairs of the result, sorted
kept() {
	local src=$1
	shift
	ok veles postprocess -o "$T/f.perf" "$src" filter "$@"
	python3 - "$T/f.perf" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
def uid(u):
    return u if isinstance(u, str) else f'{u["source"]}:{u["function"]}:{u["line"]}'
rows = []
if "resources" in p and isinstance(p["resources"], dict):
    for k, r in p["resources"].items():
        for a in r["amount"]:
            rows.append(f'{uid(p["resource_type_map"][k]["uid"])}={a:g}')
else:
    for r in p["global"]["resources"]:
        rows.append(f'{uid(r["uid"])}={r["amount"]:g}')
print(" ".join(sorted(rows)))
PY
}
# expect "WANT" ARGS...: WANT lists uid=amount sorted as text
expect() {
	local want=$1 got
	shift
	got=$(kept "$@") || fail "filter $*"
	[ "$got" = "$want" ] || fail "filter $*: got '$got', want '$want'"
}
I="SLList_insert(SLList*, int)"
S="SLList_search(SLList*, int)"
N="SLList_init(SLList*)"
X="SLList_destroy(SLList*)"
expect "$I=0 $I=1 $I=1 $I=1" 0 --where 'uid~insert'
expect "$X=1 $N=6 $I=1 $I=1 $I=1" 0 --where 'amount>0'
expect "$I=0 $S=0" 0 --where 'amount=0'
expect "$X=1 $N=6 $I=1 $I=1 $I=1" 0 --where 'amount!=0'
expect "$X=1 $I=0 $I=1 $I=1 $I=1 $S=0" 0 --where 'amount<=1'
expect "$N=6" 0 --where 'amount>=2'
expect "$X=1 $I=0 $I=1 $I=1 $I=1 $S=0" 0 --where 'amount<6'
# numbers compare as numbers: 10 > 9 although "10" < "9" as text
expect "$N=6" 0 --where 'amount>5.5' --where 'amount<1e1'
# text compares as text; a regex matches anywhere; !~ is its negation
expect "$X=1 $N=6 $I=0 $I=1 $I=1 $I=1 $S=0" 0 --where 'subtype=time delta'
expect "" 0 --where 'subtype<time'
expect "$X=1 $N=6" 0 --where 'uid!~(insert|search)'
expect "$N=6 $I=0 $I=1 $I=1 $I=1" 0 --where 'uid~^SLList_i'
# all conditions by default, any one with --any
expect "$I=1 $I=1 $I=1" 0 --where 'uid~insert' --where 'amount>0'
expect "$N=6 $I=0 $I=1 $I=1 $I=1" 0 --where 'uid~insert' --where 'amount>5' --any
# the size column follows its rows
ok veles postprocess -o "$T/s.perf" 0 filter --where 'amount>0' --where 'uid~insert'
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
r = p["resources"]["SLList_insert(SLList*, int)#0"]
assert r == {"amount": [1, 1, 1], "structure-unit-size": [0, 2, 3]}, r
assert list(p["resources"]) == ["SLList_insert(SLList*, int)#0"], p["resources"]
assert p["postprocessors"] == [{"name": "filter", "params": {"where": ["amount>0", "uid~insert"], "any": False}}]
' "$T/s.perf" || fail "columns after filtering"
# a resource without the key fails the condition, even !=
expect "" 0 --where 'address!=1'
# memory profile: object uids as source:function:line, subtypes, numbers
expect "../memory_collect_test.c:main:22=4" "$D/memory.perf" --where 'subtype=malloc'
expect "../memory_collect_test.c:main:27=0" "$D/memory.perf" --where 'uid~:27$'
expect "../memory_collect_test.c:main:22=4 ../memory_collect_test.c:main:27=0" "$D/memory.perf" --where 'address=19284560'
# the global layout (time profiles) stays in it
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
a = sorted(r["amount"] for r in p["global"]["resources"])
print(a[len(a) // 2])' "$D/time.perf" >"$T/median" || fail "time.perf"
m=$(cat "$T/median")
ok veles postprocess -o "$T/t.perf" "$D/time.perf" filter --where "amount<$m"
python3 -c '
import json, sys
p, q = (json.load(open(f)) for f in sys.argv[1:3])
m = float(sys.argv[3])
want = [r for r in q["global"]["resources"] if r["amount"] < m]
assert p["global"]["resources"] == want, (len(p["global"]["resources"]), len(want))
assert 0 < len(want) < len(q["global"]["resources"])
' "$T/t.perf" "$D/time.perf" "$m" || fail "global layout"

# Bad conditions: one line, exit 1, nothing written.
n=$(npending)
fails 1 veles postprocess 0 filter
fails 1 veles postprocess 0 filter --where 'amount'
fails 1 veles postprocess 0 filter --where '>3'
fails 1 veles postprocess 0 filter --where 'amount!3'
fails 1 veles postprocess 0 filter --where 'uid~(unclosed'
fails 1 veles postprocess 0 filter --where
fails 1 veles postprocess 0 filter --bogus
fails 1 veles postprocess 0 filter --where 'amount>0' stray
[ "$(npending)" -eq "$n" ] || fail "a failed run wrote a profile"
ok veles postprocess 0 filter --help
has "$T/out" "--where COND"
has "$T/out" "--any"
echo ok
