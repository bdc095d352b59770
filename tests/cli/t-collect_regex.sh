#!/bin/bash
# veles collect regex: user patterns on stdout and stderr, what matched
# nothing counted, errors, the formats on captured harness output, a job
# matrix, the clusterizer and regression analysis on its profile, and
# `check` flagging a slowdown planted between two versions.
. "$(dirname "$0")/lib.sh"
D=$VELES_SRCDIR/tests/data/regex
new_git_project p

cat >prog.sh <<'EOS'
#!/bin/sh
echo "parse: 12.5 ms"
echo "solve[100]: 300 us on cpu0"
echo "noise line"
echo
echo "solve[200]: 0.9 ms on cpu1"
echo "fault: 2 s" >&2
EOS
chmod +x prog.sh
git add prog.sh && git commit -qm "prog" || fail commit
pat='(?<uid>\w+)(?:\[(?<structure_unit_size>\d+)\])?: (?<amount>[\d.]+) (?<unit>\w+)(?: on (?<cpu>\w+))?'

# Three runs; the output is shown as the command prints it (default).
ok veles collect regex -r 3 -e "$pat" -- ./prog.sh
has "$T/out" "^noise line$"
has "$T/out" "^  3 runs, 15 lines read: 9 matched, 3 ignored, 3 unmatched \(the first: 'noise line'\)$"
has "$T/out" "^  2 locations, amounts in s:"
has "$T/out" "^    solve +n=6 "
has "$T/err" "profile written to .veles/jobs/prog.sh-regex-"
f=$(json_of "$(newest)")
python3 - "$f" "$pat" <<'PY' || fail "profile of the user's pattern"
import json, sys
p = json.load(open(sys.argv[1]))
h = p["header"]
assert h["type"] == "time" and h["units"] == {"time": "s"}, h
assert h["lines"] == {"runs": 3, "read": 15, "matched": 9, "ignored": 3, "unmatched": 3,
                      "rejected": 0, "first_unmatched": "noise line"}, h["lines"]
assert p["collector_info"] == {"name": "regex", "params": {
    "repeat": 3, "warmup": 0, "pattern": [sys.argv[2]]}}, p["collector_info"]
rt = p["resource_type_map"]
res = {rt[k]["uid"]: v for k, v in p["resources"].items()}
assert res["parse"]["amount"] == [0.0125] * 3 and res["parse"]["order"] == [1, 2, 3], res
s = res["solve"]
assert s["amount"] == [0.0003, 0.0009] * 3, s
assert s["structure-unit-size"] == [100, 200] * 3 and s["cpu"] == ["cpu0", "cpu1"] * 3, s
assert all(v["type"] == "time" for v in rt.values())
PY

# stderr too, each stream cut into its own lines; output not shown.
ok veles collect regex -q -o suppress --stream both -e "$pat" -- ./prog.sh
hasnt "$T/out" "noise"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
uids = sorted(t["uid"] for t in p["resource_type_map"].values())
assert uids == ["fault", "parse", "solve"], uids
' "$(json_of "$(newest)")" || fail "--stream both"
ok veles collect regex -q -o suppress --stream stderr -e "$pat" -- ./prog.sh
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert [t["uid"] for t in p["resource_type_map"].values()] == ["fault"]
assert p["collector_info"]["params"]["stream"] == "stderr"
' "$(json_of "$(newest)")" || fail "--stream stderr"
# --unit: the profile's unit; a pattern without a unit group is in it.
ok veles collect regex -q -o suppress --unit ms -e 'parse: (?<amount>[\d.]+)' -- ./prog.sh
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["units"] == {"time": "ms"}, p["header"]
assert [t["uid"] for t in p["resource_type_map"].values()] == ["./prog.sh"]
assert list(p["resources"].values())[0]["amount"] == [12.5]
' "$(json_of "$(newest)")" || fail "--unit"
# --ignore: known noise is not unmatched.
ok veles collect regex -o suppress --ignore '^noise' -e "$pat" -- ./prog.sh
has "$T/out" "5 lines read: 3 matched, 2 ignored$"

# A run in which nothing matched is an error, and nothing is written.
n=$(npending)
fails 1 veles collect regex -o suppress -e 'took (?<amount>\d+) ms' -- ./prog.sh
has "$T/err" "^veles: collect regex: nothing matched in run 1 of './prog.sh': none of its 4 lines did \(the first: 'parse: 12.5 ms'\): no profile written$"
fails 1 veles collect regex -e '(?<amount>\d+)' -- true
has "$T/err" "it printed nothing on stdout"
fails 1 veles collect regex -o suppress -e 'parse: (?<amount>.+)' -- ./prog.sh
has "$T/err" "1 line matched but made no measurement \(the first: 'parse: 12.5 ms': amount '12.5 ms' is not a number\)"
[ "$(npending)" -eq "$n" ] || fail "a failed collection wrote a profile"
# Bad patterns and options: one line, before anything runs.
fails 2 veles collect regex -e '(?<uid>\w+: (?<amount>\d+)' -- ./prog.sh
has "$T/err" "^veles: collect regex: bad pattern '\(\?<uid>\\\\w\+: \(\?<amount>\\\\d\+\)': missing closing parenthesis at offset 26$"
fails 2 veles collect regex -e '(?<uid>\w+): (?<value>\d+)' -- ./prog.sh
has "$T/err" "has no \(\?<amount>...\) group"
fails 2 veles collect regex -- ./prog.sh
has "$T/err" "nothing to look for: give -e PATTERN or --format NAME"
fails 2 veles collect regex --format nosuch -- ./prog.sh
fails 2 veles collect regex --stream stdin -e "$pat" -- ./prog.sh
fails 2 veles collect regex --format hyperfine -- ./prog.sh
has "$T/err" "--format hyperfine reads the file the command writes with --export-json FILE"
fails 2 veles collect regex --format gbench-json -e "$pat" -- ./prog.sh
fails 2 veles collect regex --format gbench-json --stream both -- ./prog.sh
ok veles collect regex --help
has "$T/out" "pytest-benchmark"
ok veles collect --help
has "$T/out" "^  regex "
[ "$(npending)" -eq "$n" ] || fail "a usage error wrote a profile"

# The formats, on output captured from the harnesses (tests/data/regex/).
ok veles collect regex -o suppress --format go -- cat "$D/go-bench.txt"
has "$T/out" "8 matched, 6 ignored$"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["units"] == {"time": "ns"}
r = {p["resource_type_map"][k]["uid"]: v for k, v in p["resources"].items()}
assert r["BenchmarkRepeat/n=10"]["amount"] == [39.89, 44.0], r
assert r["BenchmarkRepeat/n=10"]["MB/s"] == [250.69, 227.27]
assert r["BenchmarkUpper"]["B/op"] == [16, 16] and r["BenchmarkUpper"]["procs"] == [2, 2]
' "$(json_of "$(newest)")" || fail "go"
ok veles collect regex -q -o suppress --format gbench -- cat "$D/gbench-repetitions.txt"
ok veles collect regex -q -o suppress --format gbench-json -- cat "$D/gbench.json"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["lines"]["matched"] == 6 and p["header"]["lines"]["ignored"] == 12
keys = sorted((t["uid"], t["subtype"]) for t in p["resource_type_map"].values())
assert ("BM_memcpy/8", "cpu") in keys and ("BM_memcpy/8", "real") in keys, keys
' "$(json_of "$(newest)")" || fail "gbench-json"
# criterion: the estimates the run wrote under target/criterion/.
mkdir -p target
ok veles collect regex --format criterion -- cp -r "$D/criterion" target/
has "$T/out" "3 lines read: 3 matched"
has "$T/out" "sort/insertion +n=1 +median 4.862e\+04"
has "$T/out" "parse_config +n=1 "
# ... and not what an earlier run left there.
fails 1 veles collect regex --format criterion -- true
has "$T/err" "run 1 of 'true' wrote none of the files read \(target/criterion/\*/new/estimates.json, ...\)"
ok veles collect regex --format pytest-benchmark --file pb.json -- cp "$D/pytest-benchmark.json" pb.json
has "$T/out" "test_perf.py::test_fib_10 +n=5 "
# The file named by the harness's own option in the command is read.
ok veles collect regex --format hyperfine -- sh -c "cp $D/hyperfine.json \$1" --export-json out.json
has "$T/out" "sleep 0.01 \[real\] +n=3 "

# The job matrix runs it with its params; a typo is caught at its key.
cat >>.veles/config.yml <<'EOF2'
cmds: [./prog.sh]
collectors:
  - name: regex
    params:
      pattern: ['(?<uid>\w+)(?:\[\d+\])?: (?<amount>[\d.]+) (?<unit>\w+)']
      repeat: 2
      output_handling: suppress
EOF2
rm -f .veles/jobs/*.perf
ok veles run matrix
has "$T/out" "^1 job: 1 ok"
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["collector_info"]["name"] == "regex"
assert p["header"]["lines"]["matched"] == 6, p["header"]
' "$(json_of "$(newest)")" || fail "matrix"
sed -i 's/repeat: 2/repaet: 2/' .veles/config.yml
fails 2 veles run matrix
has "$T/err" "'collectors.0.params.repaet': collect regex: unknown option '--repaet=2'"
sed -i 's/repaet: 2/repeat: 2/' .veles/config.yml
# ... and so is a bad pattern, before any job runs.
cp .veles/config.yml "$T/config.yml"
sed -i 's/(?<amount>/(?<amount/' .veles/config.yml
fails 2 veles run matrix
has "$T/err" "'collectors.0.params.pattern.0': collect regex: bad pattern '.*': syntax error in subpattern name"
cp "$T/config.yml" .veles/config.yml

# A profile without sizes, clusterized, has an x for regression analysis.
ok veles collect regex -q -o suppress -r 12 -e "$pat" -- ./prog.sh
f=$(json_of "$(newest)")
ok veles postprocess -o "$T/cl.perf" "$f" clusterizer
ok veles postprocess -o "$T/ra.perf" "$T/cl.perf" regression-analysis
python3 - "$f" "$T/cl.perf" "$T/ra.perf" <<'PY' || fail "clusterized regex profile"
import json, sys
orig, cl, ra = (json.load(open(a)) for a in sys.argv[1:])
res = {cl["resource_type_map"][k]["uid"]: v for k, v in cl["resources"].items()}
# parse had no size: its 12 runs are ranked 1..12; solve keeps its own.
assert sorted(res["parse"]["structure-unit-size"]) == list(range(1, 13)), res["parse"]
assert res["parse"]["cluster"] == res["parse"]["structure-unit-size"]
assert set(res["solve"]["structure-unit-size"]) == {100, 200} and "cluster" not in res["solve"]
assert cl["postprocessors"][0]["name"] == "clusterizer"
uids = {m["uid"] for m in ra["models"]}
assert {"parse", "solve"} <= uids, uids
PY
ok veles show "$T/ra.perf" scatter
has "$T/out" "structure-unit-size"

# check between two versions: the slow list search, timed by the program
# itself and printed, is flagged. The runs take 20 ms and more: a loaded
# machine adds milliseconds to a run, not a share of it.
cp "$VELES_SRCDIR/examples/list_search.c" .
cc -O2 -o fast list_search.c || fail "cc"
cc -O2 -DSLOW=1 -o slow list_search.c || fail "cc"
cat >timed.sh <<'EOS'
#!/bin/sh
t0=$(date +%s%N)
./search 6000 6000 >/dev/null
t1=$(date +%s%N)
echo "search: $(((t1 - t0) / 1000)) us"
EOS
chmod +x timed.sh
cp fast search
printf 'search\nfast\nslow\n' >.gitignore
git add list_search.c timed.sh .gitignore && git commit -qm "timed search" || fail commit
rm -f .veles/jobs/*.perf
collect() { veles collect regex -q -o suppress -r 15 -e '(?<uid>\w+): (?<amount>\d+) (?<unit>us)' -- ./timed.sh ||
	fail "collect"; }
collect && ok veles add -q 0@p
commit_change "the slow search"
cp slow search
collect && ok veles add -q 0@p
veles check head >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { cat "$T/out" "$T/err"; fail "check head must flag the slowdown"; }
has "$T/out" "└─ search$"
has "$T/out" "^ +(Severe|Total)?Degradation +\+[0-9]+.*\(15 vs 15 values, stat\)"
