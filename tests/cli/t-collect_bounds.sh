#!/bin/bash
# collect bounds: the seed's example profile exactly, bad input, the other
# commands on bounds profiles, and check flagging a loop that became
# quadratic between two versions.
. "$(dirname "$0")/lib.sh"
D="$VELES_SRCDIR/tests/data/bounds"
new_git_project p

# The seed's example, named as the seed names it: its profile as printed.
cp "$D/int_partitioning.c" .
ok veles collect bounds --cmd partitioning -s int_partitioning.c
has "$T/out" "int_partitioning.c:19 partitioning: O\(n\^1\)  6 \+ 4 × max\(0, \(k \+ -1\)\)"
has "$T/out" "line 55 +O\(n\^1\) +1 \+ max\(0, \(k \+ -1\)\)"
has "$T/err" "profile written to .veles/jobs/partitioning-bounds-none-"
python3 - "$(json_of "$(newest)")" "$VELES_SRCDIR/tests/data/profiles/bounds.perf" <<'PY' || fail "not the seed's profile"
import json, sys
ours, seed = (json.load(open(f)) for f in sys.argv[1:])
# Where it was made (every profile records it; the seed's predates that).
assert isinstance(ours["header"].pop("environment"), dict), ours["header"]
# Perun reads three profile types only: ours is written as mixed, with
# "bound" kept in veles_type and its unit repeated under mixed
# (docs/profile-format.md, What Perun reads back).
h = ours["header"]
assert h.pop("type") == "mixed" and h.pop("veles_type") == seed["header"]["type"], h
assert h["units"].pop("mixed") == h["units"]["bound"], h["units"]
h["type"] = seed["header"]["type"]
for key in ("header", "collector_info", "models", "postprocessors"):
    assert ours[key] == seed[key], (key, ours[key], seed[key])
assert ours["resources"] == seed["resources"], ours["resources"]
assert ours["resource_type_map"] == seed["resource_type_map"], ours["resource_type_map"]
PY

# Bad input: one line and a failure, and no profile.
n=$(npending)
echo 'int f( {' >bad.c
fails 1 veles collect bounds -s bad.c
has "$T/err" "^veles: collect bounds: bad.c:1:[0-9]+: error: "
fails 1 veles collect bounds -s missing.c
has "$T/err" "cannot read missing.c: No such file"
echo 'class A { int x; };' >a.cpp
fails 2 veles collect bounds -s a.cpp
has "$T/err" "a.cpp is C\+\+: the bounds collector analyses C only"
fails 2 veles collect bounds
has "$T/err" "no source to analyse"
fails 1 veles collect bounds -s int_partitioning.c -- --no-such-flag
has "$T/err" "in the flags after --"
[ "$(npending)" -eq "$n" ] || fail "a failed collection left a profile"
ok veles collect bounds --help
has "$T/out" "usage: veles collect bounds -s FILE.c"
ok veles collect --help
has "$T/out" "bounds +how many times each loop"

# A directory: every .c file under it; compiler flags after --.
mkdir -p src/sub
cat >src/sub/lim.c <<'C'
int more(void);

int lim(int n)
{
	int s = 0;

	for (int i = 0; i < LIMIT * n; i += STEP)
		s += i;
	while (more())
		s--;
	return s;
}
C
ok veles collect bounds -q -d src -- -DLIMIT=2 -DSTEP=1
ok veles show "$(newest)" tableof
has "$T/out" "src/sub/lim.c:lim:7:8 +local bound +1 \+ max\(0, 2 × n\) +O\(n\^1\)"
has "$T/out" "src/sub/lim.c:lim:2:4 +total bound +∞ +O\(∞\)"
ok veles show "$(newest)" raw
has "$T/out" '"args": "-DLIMIT=2 -DSTEP=1"'
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["collector_info"]["params"]; assert p["source_dir"] == ["src"] and p["sources"] == ["src/sub/lim.c"], p' "$T/out" ||
	fail "params"
# An unbounded loop says why, in the profile too.
has "$T/out" '"reason": "its condition is no comparison of integers'
has "$T/out" '"reason": "the loop at line 9 has no bound'

# The view: the source with each loop's bound beside it.
COLUMNS=160 ok veles show "$(newest)" bounds
has "$T/out" "^src/sub/lim.c"
has "$T/out" "7 │ +for \(int i = 0; i < LIMIT \* n; i \+= STEP\) +◂ O\(n\^1\)"
has "$T/out" "3 │ int lim\(int n\) +◂ total O\(∞\)"
has "$T/out" "9 │ +while \(more\(\)\) +◂ O\(∞\)  ∞: its condition"

# check: a loop that goes from O(n) to O(n^2) between two versions.
cat >sum.c <<'C'
int sum(const int *a, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < 4; j++)
			s += a[i] * j;
	return s;
}
C
git add sum.c && git commit -qm "sum, linear"
ok veles collect bounds -q -s sum.c
ok veles add "$(newest)"
sed -i 's/j < 4/j < n/' sum.c
git commit -qam "sum, quadratic"
ok veles collect bounds -q -s sum.c
ok veles add "$(newest)"
fails_check() { veles check head "$@" >"$T/out" 2>"$T/err"; }
fails_check
[ $? -eq 1 ] || fail "check passed a quadratic loop"
has "$T/out" "sum.c:sum:6:7"
has "$T/out" "TotalDegradation .*O\(n\^1\) -> O\(n\^2\)"
has "$T/out" "sum.c:sum:5:7 *$"
fails_check --format json
python3 - "$T/out" <<'PY' || fail "check json"
import json, sys
r = {x["location"]: x for x in json.load(open(sys.argv[1]))["results"]}
assert r["sum.c:sum:6:7"]["result"] == "TotalDegradation", r
assert r["sum.c:sum:6:7"]["detail"] == "O(n^1) -> O(n^2)", r
assert r["sum.c:sum:5:7"]["result"] == "NoChange", r
assert r["sum.c:sum:0:4"]["method"] == "bounds", r
PY
# A line added above the loops moves them: still the same loops.
sed -i '1i /* moved */' sum.c
git commit -qam "sum, moved down a line"
ok veles collect bounds -q -s sum.c
ok veles add "$(newest)"
ok veles check head
has "$T/out" "sum.c:sum:7:8"
has "$T/out" "NoChange"
hasnt "$T/out" "NotIn"

# diff: both sides' bounds and classes.
ok veles show -m HEAD~2 0 raw
cp "$T/out" "$T/linear.perf"
ok veles show -m HEAD~1 0 raw
cp "$T/out" "$T/quadratic.perf"
ok veles diff "$T/linear.perf" "$T/quadratic.perf"
has "$T/out" "sum.c:sum:6:7 +4 × max\(0, n\)  O\(n\^1\) +max\(0, n\)\^2  O\(n\^2\) +class up"
ok veles diff --format json "$T/linear.perf" "$T/quadratic.perf"
has "$T/out" '"change":"class up"'

# The view reads the source of the version the profile measured.
ok veles show -m HEAD~2 0 bounds
has "$T/out" "j < 4"
ok veles show -m HEAD~1 0 bounds
has "$T/out" "j < n"

# check --collect-missing replays the collection on the parent version:
# its sources, flags and program name come back from the profile.
cat >scale.c <<'C'
int scale(int n)
{
	int s = 0;

	for (int i = 0; i < n; i += STEP)
		s++;
	return s;
}
C
git add scale.c && git commit -qm "scale, a step of STEP"
sed -i 's/i += STEP/i++/' scale.c
git commit -qam "scale, a step of one"
ok veles collect bounds -q -s scale.c -- scaling -DSTEP=2
ok veles add "$(newest)"
ok veles show 0 raw
has "$T/out" '"cmd": "scaling"'
# Twice the iterations of the parent's step of two, in the same class.
veles check head --collect-missing --yes -q >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "check --collect-missing: $(cat "$T/err")"
has "$T/out" "scale.c:scale:5:6"
has "$T/out" "SevereDegradation .*O\(n\^1\) -> O\(n\^1\)"
ok veles show -m HEAD~1 0 raw
has "$T/out" '"cmd": "scaling"'
has "$T/out" '"args": "-DSTEP=2"'
has "$T/out" '"bound": "1 \+ ceil\(max\(0, n\) / 2\)"'
