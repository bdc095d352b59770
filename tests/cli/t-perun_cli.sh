#!/bin/bash
# What Perun users type: status --short and --sort-by (-sb), log --short,
# config reset and init --config-template with Perun's templates, the
# singleton workload generator, and profile names by -pn and -ot (and
# format.output_profile_template) in collect, run and postprocess.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3

# Three pending profiles of two types and commands, in name order
# bbb < ccc < ddd, collected in the order ccc, ddd, bbb.
cp /bin/true ccc && ok veles collect -pn ccc-time time -q --repeat 1 -- ./ccc
sleep 1.1
cp /bin/true ddd && ok veles collect -pn ddd-time time -q --repeat 1 -- ./ddd
sleep 1.1
ok veles collect -pn bbb-monitor monitor -q -i 0.1 -- sleep 0.1
ok veles status
has "$T/out" "0@p  monitor +bbb-monitor.perf"
has "$T/out" "2@p  time +ddd-time.perf"

# --short: the counts per type, no list.
ok veles status --short
has "$T/out" "^On version [0-9a-f]{7}"
has "$T/out" "^Profiles of this version: none"
has "$T/out" "^Pending profiles: 3 \(1 monitor, 2 time\)$"
hasnt "$T/out" "@p"
ok veles status -s
has "$T/out" "^Pending profiles: 3"

# --sort-by: descending as Perun's, remembered for the tags of later commands.
ok veles status --sort-by source
has "$T/out" "0@p  time +ddd-time.perf"
has "$T/out" "2@p  monitor +bbb-monitor.perf"
ok veles config --local get format.sort_profiles_by
has "$T/out" "^source$"
ok veles show 0@p
has "$T/out" "ddd"
ok veles status -sb time
has "$T/out" "0@p  monitor +bbb-monitor.perf"
has "$T/out" "1@p  time +ddd-time.perf"
has "$T/out" "2@p  time +ccc-time.perf"
ok veles status --sort-by cmd
has "$T/out" "0@p  monitor +bbb-monitor.perf"
has "$T/out" "1@p  time +ddd-time.perf"
ok veles status --sort-by type
has "$T/out" "0@p  time +ccc-time.perf"
has "$T/out" "1@p  time +ddd-time.perf"
has "$T/out" "2@p  monitor"
fails 2 veles status --sort-by size
# rm counts in the configured order too.
ok veles rm 2@p
[ ! -e .veles/jobs/bbb-monitor.perf ] || fail "rm 2@p by type order"
# An unknown key in the file is warned about and the usual order kept.
ok veles config set format.sort_profiles_by nonsense
ok veles status
has "$T/err" "format.sort_profiles_by: 'nonsense' is not a key"
has "$T/out" "0@p  time +ccc-time.perf"

# Registered profiles sort too, and --short counts them.
ok veles add 0@p 1@p
ok veles status --sort-by source
has "$T/out" "0@i  time +ddd-time.perf"
has "$T/out" "1@i  time +ccc-time.perf"
ok veles status -s
has "$T/out" "^Profiles of this version: 2 \(2 time\)$"
ok veles log -s
has "$T/out" "^[0-9a-f]{7} \[2 profiles: 2 time\] first version$"
ok veles log --short
has "$T/out" "2 profiles"

# Naming: -pn and -ot before the collector, or the setting.
ok veles collect -ot '%collector%-of-%cmd%-%workload%-%time.repeat%-%type%-%%' time -q \
	--repeat 2 -- /bin/echo hello
[ -e '.veles/jobs/time-of-[echo]-[hello]-2-time-%.perf' ] || fail "-ot name"
ok veles collect --output-filename-template '%cmd%-%origin%' time -q --repeat 1 -- ./ccc
ls .veles/jobs/ >"$T/jobs"
has "$T/jobs" "^\[ccc\]-[0-9a-f]{40}\.perf$"
ok veles collect -pn mine.perf time -q --repeat 1 -- ./ccc
ok veles collect --profile-name mine time -q --repeat 1 -- ./ccc
[ -e .veles/jobs/mine.perf ] && [ -e .veles/jobs/mine-2.perf ] || fail "-pn names"
ok veles config set format.output_profile_template '%type%-%counter%-by-setting'
ok veles collect time -q --repeat 1 -- ./ccc
[ -e .veles/jobs/time-0-by-setting.perf ] || fail "format.output_profile_template"
fails 2 veles collect -pn a/b time -- ./ccc
fails 2 veles collect -ot '%nope%' time -- ./ccc
has "$T/err" "unknown token '%nope%'"
fails 2 veles collect -ot 'half%open' time -- ./ccc
ok veles postprocess -ot '%postprocessors%-%normalizer.of%' mine.perf normalizer
[ -e .veles/jobs/after-normalizer-amount.perf ] || fail "postprocess -ot"

# The singleton generator: one workload, given as it is; a number is also
# the size.
cat >>.veles/config.yml <<'EOF'
cmds:
  - /bin/echo
workloads:
  - words
  - size
generators:
  workload:
    - id: words
      type: singleton
      value: two words
    - id: size
      type: singleton
      value: 4096
collectors:
  - name: time
    params:
      repeat: 1
EOF
ok veles run matrix -ot 'run-%workload%-%counter%'
has "$T/out" "2 jobs"
$py - "$(json_of .veles/jobs/run-\[words\]-*.perf)" "$(json_of .veles/jobs/run-\[size\]-*.perf)" <<'PY' || fail "singleton"
import json, sys
words, size = (json.load(open(f)) for f in sys.argv[1:])
assert words["header"]["workload"] == "words", words["header"]
assert all("structure-unit-size" not in r for r in words["global"]["resources"])
assert {r["structure-unit-size"] for r in size["global"]["resources"]} == {4096}
PY
cat >bad.yml <<'EOF'
generators:
  workload:
    - id: s
      type: singleton
EOF
cp .veles/config.yml keep.yml
cp bad.yml .veles/config.yml
fails 2 veles run matrix
has "$T/err" "a singleton generator needs a value"
cp keep.yml .veles/config.yml

# Templates: init -t and config reset.
mkdir -p "$T/q/build" "$T/q/workloads" "$T/q/src/examples" && cd "$T/q" || fail cd
git init -q -b main . && git commit -qm root --allow-empty
cp /bin/true build/prog && echo text >build/notes
echo a >workloads/small.txt && echo b >"workloads/with space.txt" && echo c >src/examples/e.txt
fails 2 veles init -t nonsense
[ ! -d .veles ] || fail "init made .veles for a bad template"
ok veles init -t user
ok veles config get cmds
has "$T/out" "^cmds.0=build/prog$"
hasnt "$T/out" "notes"
ok veles config get workloads
has "$T/out" "^workloads.0=src/examples/e.txt$"
has "$T/out" "^workloads.2='workloads/with space.txt'$"
for kv in "collectors.0.name time" "collectors.0.params.warmup 3" \
	"profiles.register_after_run true" "execute.pre_run.0 make" \
	"degradation.strategies.0.method aat" "degradation.collect_before_check true"; do
	set -- $kv
	ok veles config get "$1"
	has "$T/out" "^$2$"
done
ok veles config get format.output_profile_template
has "$T/out" "^%collector%-of-%cmd%-%workload%-%date%$"
# The user template's matrix runs as it stands (no make here: none).
ok veles config set execute.pre_run.0 true
ok veles run matrix -q
[ "$(ls .veles/jobs | wc -l)" -eq 0 ] || fail "register_after_run left pending profiles"
ok veles status -s
has "$T/out" "^Profiles of this version: 3 \(3 time\)$"
ok veles init -t developer
has "$T/err" "exists and is kept"
ok veles config reset developer
has "$T/out" "reset to the developer template"
[ -e .veles/config.yml.old ] || fail "old config kept"
fails 1 veles config get cmds
ok veles config get execute.pre_run.0
has "$T/out" "^make$"
ok veles config reset
fails 1 veles config get execute.pre_run.0
ok veles config get collect.warn_dirty
fails 2 veles config reset nonsense
# The user's own file resets too.
ok veles config --user reset developer
[ -e "$XDG_CONFIG_HOME/veles/config.yml" ] || fail "user config"
ok veles config --user get degradation.apply
has "$T/out" "^first$"

# Tag ranges in add and rm (Perun's A@p-B@p, A@i-B@i).
rm -f "$XDG_CONFIG_HOME/veles/config.yml"
new_git_project r
for n in a b c d e; do
	ok veles collect -pn "$n" time -q --repeat 1 -- /bin/true
done
ok veles add 1@p-2@p
has "$T/out" "b.perf"
has "$T/out" "c.perf"
ok veles status
has "$T/out" "Profiles of this version \(2\)"
has "$T/out" "0@p  time +a.perf"
has "$T/out" "1@p  time +d.perf"
ok veles rm 0@i-5@i
has "$T/out" "Removed profile b.perf"
has "$T/out" "Removed profile c.perf"
ok veles rm 1@p-9@p
has "$T/out" "Removed pending profile d.perf"
has "$T/out" "Removed pending profile e.perf"
ok veles rm 3@p-1@p
has "$T/out" "^Nothing to remove: 3@p-1@p names no profile$"
ok veles add 5@p-7@p
has "$T/out" "^Nothing to add"
[ "$(npending)" -eq 1 ] || fail "a.perf should stay pending"
ok veles add 0@p-0@p
[ "$(npending)" -eq 0 ] || fail "0@p-0@p adds a.perf"

# degradation.collect_before_check: head collects a parent's missing
# baseline as --collect-missing does; log_collect keeps its output.
commit_change "second"
cat >>.veles/config.yml <<'YML'
cmds:
  - /bin/echo
args:
  - from-the-matrix
collectors:
  - name: time
    params:
      repeat: 2
degradation:
  collect_before_check: true
  log_collect: true
YML
ok veles run matrix -q
ok veles add 0@p
ok veles check head
has "$T/err" "^check: collecting .* on [0-9a-f]{7}$"
hasnt "$T/out" "^from-the-matrix$"
hasnt "$T/out" "had no baseline"
grep -rqs "from-the-matrix" .veles/logs/ || fail "log_collect kept no output"

# Perun's spellings of the postprocessors: postprocessby, names with
# underscores, --options_with_underscores, -bn -sf -dp -ww -mp -per -of,
# moving-average's method as a word and --decay KIND VALUE.
$py "$VELES_SRCDIR/tests/cli/perun_shapes.py" "$T/shapes" || fail "perun_shapes.py"
B=$T/shapes/trace-base.perf
ok veles postprocessby -o x1.perf "$B" regression_analysis --regression_models linear \
	-dp structure-unit-size -o amount
ok veles postprocess -o x2.perf "$B" regressogram -bn 5 -sf median
ok veles postprocess -o x3.perf "$B" moving_average ema --decay span 5
ok veles postprocess -o x4.perf "$B" moving_average sma -ww 3 -mp 1 --of-key amount \
	-per structure-unit-size
$py - <<'PY' || fail "Perun's postprocessor spellings"
import json
last = lambda f: json.load(open(f))["postprocessors"][-1]
a, b, c, d = (last(f"x{i}.perf") for i in range(1, 5))
assert a["name"] == "regression-analysis" and a["params"]["regression_models"] == ["linear"], a
assert b["params"]["bucket_number"] == 5 and b["params"]["statistic_function"] == "median", b
assert c["params"]["method"] == "ema" and c["params"]["decay"] == "span", c
assert c["params"]["decay_value"] == 5, c
assert d["params"]["method"] == "sma" and d["params"]["window_width"] == 3, d
PY
# show's view options as Perun spells them.
ok veles show "$B" bars -gt "Perun title" --filename b.svg
has b.svg "Perun title"
ok veles show "$B" scatter --graph-title "Another" -of s.svg
has s.svg "Another"
ok veles show "$B" tableof models --output-file t.txt
has t.txt "regressogram"
# run job in Perun's short options.
new_git_project j
ok veles run job -b /bin/echo -a hi -w there --collector time -cp "repeat: 1" \
	-p normalizer -q
$py - "$(json_of "$(newest)")" <<'PY' || fail "run job -b -a -w -cp -p"
import json, sys
p = json.load(open(sys.argv[1]))
h = p["header"]
assert (h["cmd"], h["args"], h["workload"]) == ("/bin/echo", "hi", "there"), h
assert p["collector_info"]["params"]["repeat"] == 1, p["collector_info"]
assert [x["name"] for x in p["postprocessors"]] == ["normalizer"], p["postprocessors"]
PY
