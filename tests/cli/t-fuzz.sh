#!/bin/bash
# veles fuzz: finds a planted slow path on a small budget with a fixed
# seed, keeps crashes and hangs with their inputs, resumes where it
# stopped (run counts add up), writes a profile regression analysis reads,
# and rejects bad options in one line.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
command -v cc >/dev/null || { echo "t-fuzz: needs a C compiler" >&2; exit 77; }
new_git_project p
cc -O1 -o slow "$VELES_SRCDIR/tests/cli/fuzz-slow.c" || fail "cannot build fuzz-slow.c"
mkdir seeds
words="the quick brown fox jumps over lazy dog and runs far away from home"
for s in 1 2 3; do
	for l in 1 2 3 4 5 6 7 8; do
		for w in $words; do
			[ $(((${#w} * s + l) % 3)) -eq 0 ] && printf '%s ' "$w"
		done
		printf '%s\n' "line$l"
	done >seeds/s$s.txt
done

# json FILE EXPR: prints the Python expression EXPR over the JSON report r.
json() {
	$py -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

ok veles fuzz --help
has "$T/out" "--max-size-ratio"
has "$T/out" "--no-feedback"
ok veles help fuzz
has "$T/out" "usage: veles fuzz"

# Bad options: one line, exit 2, nothing made.
fails 2 veles fuzz -i seeds
has "$T/err" "no command to fuzz"
fails 2 veles fuzz -i seeds --runs 0 -- ./slow @@
fails 2 veles fuzz -i seeds --time soon -- ./slow @@
has "$T/err" "--time needs a duration"
fails 2 veles fuzz -i seeds --timeout -1 -- ./slow @@
fails 2 veles fuzz -i seeds --metric speed -- ./slow @@
has "$T/err" "--metric is auto, instructions"
fails 2 veles fuzz -i seeds --max-size 0 -- ./slow @@
fails 2 veles fuzz -i seeds --max-size-ratio 0.5 -- ./slow @@
fails 2 veles fuzz -i seeds -N 100 --max-size-ratio 2 -- ./slow @@
fails 2 veles fuzz -i seeds --format xml -- ./slow @@
fails 2 veles fuzz -i seeds --bogus -- ./slow @@
fails 2 veles fuzz -i seeds --seed x -- ./slow @@
fails 2 veles fuzz -i no-such-dir -- ./slow @@
has "$T/err" "no seed file or directory no-such-dir"
fails 2 veles fuzz -i seeds --dict no-such-dict -- ./slow @@
fails 2 veles fuzz -o "$T/o1" -- ./slow @@
has "$T/err" "no seed inputs"
fails 1 veles fuzz -i seeds -o "$T/o2" -- ./no-such-program @@
has "$T/err" "cannot run './no-such-program'"
[ ! -e .veles/fuzz ] || fail "a bad option made .veles/fuzz"
(cd "$T" && fails 2 veles fuzz -i p/seeds -- p/slow @@)
has "$T/err" "give the output directory with -o"

# The planted path: a byte '~' anywhere makes the run some ten to a hundred
# times costlier. A fixed seed and 600 runs find it; the ratio is of the
# re-measured cost (instructions:u, else task-clock), never a time.
ok veles fuzz -i seeds --seed 1 --runs 600 -N 400 --format json -- ./slow -s '~' @@
cp "$T/out" "$T/found.json"
ratio=$(json "$T/found.json" 'r["worst"][0]["ratio"]')
$py -c "import sys; sys.exit(0 if $ratio >= 5 else 1)" ||
	fail "the worst input costs only ${ratio}x the seeds'"
worst=$(json "$T/found.json" 'r["worst"][0]["path"]')
grep -q '~' "$worst" || fail "the worst input has no '~': $(head -c 200 "$worst")"
[ "$(json "$T/found.json" 'r["session_runs"] >= 600 and r["seeds"] == 3')" = True ] ||
	fail "runs or seeds: $(cat "$T/found.json")"
has "$T/err" "^veles fuzz: metric (instructions|task-clock)"
[ -d .veles/fuzz/slow/corpus ] && [ -f .veles/fuzz/slow/state ] || fail "no output directory"
[ "$(ls .veles/fuzz/slow/corpus | wc -l)" = "$(json "$T/found.json" 'r["corpus"]')" ] ||
	fail "corpus/ does not hold the corpus"
# The profile: one per session, sizes and costs, fit for regression analysis.
profile=$(json "$T/found.json" 'r["profile"]')
[ -f "$profile" ] || fail "no profile at $profile"
[ "$(npending)" = 1 ] || fail "expected one pending profile"
$py - "$(json_of "$profile")" <<'PY' || fail "profile layout"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["collector_info"]["name"] == "fuzz", p["collector_info"]
assert p["header"]["cmd"] == "./slow", p["header"]
subs = {}
for key, rs in p["resources"].items():
    t = p["resource_type_map"][key]
    subs[t["subtype"]] = len(rs["amount"])
    assert all(a > 0 for a in rs["amount"]), rs
    assert all(s >= 0 for s in rs["structure-unit-size"]), rs
assert subs["seed"] == 3 and subs["worst"] >= 1 and subs["worst-by-size"] >= 2, subs
PY
ok veles postprocess -o "$T/models.perf" "$profile" regression-analysis
$py - "$(json_of "$T/models.perf")" <<'PY' || fail "no models of the worst-by-size points"
import json, sys
p = json.load(open(sys.argv[1]))
assert any(m.get("subtype") == "worst-by-size" for m in p["models"]), p["models"]
PY

# Resuming: the same -o continues; the runs of both sessions add up.
ok veles fuzz -q --runs 150 --format json -- ./slow -s '~' @@
cp "$T/out" "$T/resumed.json"
[ "$(json "$T/resumed.json" 'r["resumed"]')" = True ] || fail "not resumed"
[ "$(json "$T/resumed.json" 'r["runs"] - r["session_runs"]')" = \
	"$(json "$T/found.json" 'r["runs"]')" ] || fail "run counts do not add up"
[ "$(json "$T/resumed.json" 'r["corpus"] >= '"$(json "$T/found.json" 'r["corpus"]')")" = True ] ||
	fail "the resumed corpus shrank"
grep -q "^runs $(json "$T/resumed.json" 'r["runs"]')$" .veles/fuzz/slow/state ||
	fail "the state does not hold the total"
# ... but not a session of another command.
fails 2 veles fuzz -q --runs 10 -- ./slow -s '!' @@
has "$T/err" "holds a session of another command"
# Two at once on one directory: the second is refused.
exec 9>.veles/fuzz/slow/.lock
flock 9
fails 1 veles fuzz -q --runs 10 -- ./slow -s '~' @@
has "$T/err" "in use by another veles fuzz"
exec 9>&-

[ "$(npending)" = 2 ] || fail "the resumed session wrote no profile"

# Crashes and hangs, on stdin: kept with their inputs, counted, the
# seeds' own runs unharmed. A capital letter crashes the program, a 0xff
# byte hangs it.
ok veles fuzz -o "$T/ch" -i seeds --seed 2 --runs 400 --timeout 0.3 --no-profile --format json \
	-- ./slow -c ABCDEFGHIJKLMNOPQRSTUVWXYZ -H $'\xff'
cp "$T/out" "$T/ch.json"
[ "$(json "$T/ch.json" 'r["crashes"] > 0 and r["hangs"] > 0')" = True ] ||
	fail "no crash or no hang: $(cat "$T/ch.json")"
ls "$T"/ch/crashes/run-*-SIGSEGV >/dev/null 2>&1 || fail "no crash kept: $(ls "$T/ch/crashes")"
for f in "$T"/ch/crashes/*; do
	grep -q '[A-Z]' "$f" || fail "crash input $f has no capital letter"
	! grep -q $'\xff' "$f" || fail "crash input $f has a 0xff byte"
done
for f in "$T"/ch/hangs/*; do
	grep -q $'\xff' "$f" || fail "hang input $f has no 0xff byte"
done
[ "$(ls "$T/ch/hangs" | wc -l)" -ge 1 ] || fail "no hang kept"
[ "$(npending)" = 2 ] || fail "--no-profile wrote a profile"

# Every seed crashing: nothing to fuzz, said in one line.
fails 2 veles fuzz -o "$T/dead" -i seeds --runs 50 --no-profile -- ./slow -c e @@
has "$T/err" "every seed crashes"

# The baseline: plain random mutation keeps nothing but the seeds.
ok veles fuzz -o "$T/blind" -i seeds --seed 3 --runs 100 --no-feedback --no-profile \
	--format json -- ./slow @@
[ "$(json "$T/out" 'r["corpus"]')" = 3 ] || fail "--no-feedback kept mutants"
