#!/bin/bash
# veles run matrix / run job: expansion, generators, postprocessors, a
# failing job in the middle, other versions in temporary worktrees, bad YAML.
. "$(dirname "$0")/lib.sh"
new_git_project p

# A program that fails on "bad" and records what it was given.
cat >prog.sh <<'EOS'
#!/bin/sh
echo "$*" >>"${RUN_LOG:-/dev/null}"
[ "$1" = bad ] && exit 3
exit 0
EOS
chmod +x prog.sh
git add prog.sh && git commit -qm "add prog"
export RUN_LOG="$T/calls"

cat >>.veles/config.yml <<'EOF2'
cmds: [./prog.sh]
args: [-x, bad, -y]
workloads: [w1, sizes]
generators:
  workload:
    - id: sizes
      type: integer
      min_range: 10
      max_range: 30
      step: 10
collectors:
  - name: time
    params: {repeat: 2, warmup: 0}
postprocessors:
  - name: normalizer
EOF2

# 3 args x 2 workloads x 1 collector; the "bad" jobs fail in the middle,
# the others still run, and the exit status says something failed.
fails_run() { "$@" >"$T/out" 2>"$T/err"; [ $? -eq 1 ] || { cat "$T/err"; fail "expected 1: $*"; }; }
fails_run veles run matrix
has "$T/out" "^6 jobs: 4 ok, 2 failed"
has "$T/err" "job 3/6 ./prog.sh bad w1 \(time\) failed: './prog.sh' exited with status 3"
has "$T/err" "job 4/6 ./prog.sh bad sizes \(time\) failed"
has "$T/out" "^ok +6/6 +./prog.sh -y sizes \(time\)"
[ "$(npending)" -eq 4 ] || fail "expected 4 pending profiles, got $(npending)"
# Each workload size ran twice (repeat 2), as one argument after the args.
[ "$(grep -c '^-x 20$' "$T/calls")" -eq 2 ] || fail "size 20 not run twice"
has "$T/calls" "^-y w1$"

# The generator job is one profile with every size, postprocessed.
f=$(ls .veles/jobs/prog.sh-time-sizes-*.perf | head -1)
ok veles show "$f" raw
has "$T/out" '"structure-unit-size": 30'
has "$T/out" '"structure-unit-size": 10'
has "$T/out" '"name": "normalizer"'
has "$T/out" '"workload": "sizes"'
[ "$(grep -c '"subtype": "real"' "$T/out")" -eq 6 ] || fail "3 sizes x 2 runs of real"

# --format json: one summary on stdout.
rm -f .veles/jobs/*.perf
veles run matrix --format json >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "json run status"
/usr/bin/python3 - "$T/out" <<'EOP' || fail "json summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["jobs"] == 6 and s["ok"] == 4 and s["failed"] == 2, s
bad = [r for r in s["results"] if not r["ok"]]
assert all("status 3" in r["error"] for r in bad), bad
assert all(r["profile"].endswith(".perf") for r in s["results"] if r["ok"])
EOP

# run job: one ad hoc job, params as YAML, postprocessor params too.
rm -f .veles/jobs/*.perf "$T/calls"
ok veles run job --cmd ./prog.sh --args "-a 'b c'" --workload w --collector time \
	--collector-params "repeat: 3, warmup: 0" --postprocessor normalizer \
	--postprocessor-params "{of: amount}"
[ "$(npending)" -eq 1 ] || fail "run job made no profile"
[ "$(grep -c '^-a b c w$' "$T/calls")" -eq 3 ] || fail "run job args: $(cat "$T/calls")"
# A literal numeric workload is the profile's structure-unit-size, so
# regression analysis has an x to work on.
rm -f .veles/jobs/*.perf
ok veles run job --cmd ./prog.sh --workload 9 --collector time \
	--collector-params "repeat: 2, warmup: 0" --postprocessor regression-analysis \
	--postprocessor-params "{regression_models: [constant]}"
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
res = p["global"]["resources"]
assert res and all(r["structure-unit-size"] == 9 for r in res), res
assert {m["model"] for m in p["models"]} == {"constant"}, p["models"]
assert all(m["x_start"] == 9 for m in p["models"]), p["models"]
' "$(json_of .veles/jobs/*.perf)" || fail "literal workload size"
rm -f .veles/jobs/*.perf
ok veles run job --cmd ./prog.sh --workload w9 --collector time --collector-params "repeat: 1"
hasnt "$(json_of .veles/jobs/*.perf)" "structure-unit-size"
fails 2 veles run job --cmd ./prog.sh
fails 2 veles run job --collector-params "repeat: 1" --collector time --cmd ./prog.sh
fails 2 veles run matrix --cmd ./x
fails 2 veles run frobnicate

# register_after_run files the profiles under HEAD right away.
rm -f .veles/jobs/*.perf
ok veles config set profiles.register_after_run true
ok veles run job --cmd ./prog.sh --workload w --collector time --collector-params "repeat: 1"
[ "$(npending)" -eq 0 ] || fail "registered profile left pending"
ok veles status
has "$T/out" "Profiles of this version \(1\)"
ok veles config set profiles.register_after_run false

# Other versions: a temporary worktree at each, the working tree untouched.
first=$(git rev-parse HEAD)
echo 'echo v2 >>"$RUN_LOG"' >>prog.sh
git commit -qam "second"
echo "uncommitted" >>prog.sh
rm -f .veles/jobs/*.perf "$T/calls"
ok veles run job -m HEAD~1 --cmd ./prog.sh --workload w --collector time \
	--collector-params "repeat: 1, warmup: 0"
hasnt "$T/calls" "v2"
f=$(ls .veles/jobs/*.perf)
grep -q "\"origin\":\"$first\"" "$(json_of "$f")" || fail "origin is not the version measured"
grep -q uncommitted prog.sh || fail "working tree touched"
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "worktree left behind"
[ "$(git branch | wc -l)" -eq 1 ] || fail "branch left behind"
# The first version has no prog.sh: that job fails, the others run.
fails_run veles run job -m HEAD --crawl-parents --cmd ./prog.sh --collector time \
	--collector-params "repeat: 1, warmup: 0"
has "$T/out" "^3 jobs: 2 ok, 1 failed"
has "$T/err" "job 3/3 .* cannot run './prog.sh'"
fails 2 veles run matrix --crawl-parents
fails 1 veles run matrix -m nosuchrev

# pre_run runs first (a build); when it fails, every job fails.
git checkout -q prog.sh
ok veles config set execute.pre_run "touch built"
rm -f .veles/jobs/*.perf
fails_run veles run matrix
[ -f built ] || fail "pre_run did not run"
ok veles config set execute.pre_run "exit 4"
fails_run veles run matrix
has "$T/err" "pre_run 'exit 4' exited with status 4"
has "$T/out" "0 ok, 6 failed"
ok veles config set execute.pre_run true

# Bad YAML and unknown keys: file, line and column.
cp .veles/config.yml "$T/good.yml"
printf 'cmds: [./a]\ncollectors:\n  - name: time\n    parms: {repeat: 1}\n' >.veles/config.yml
fails 2 veles run matrix
has "$T/err" "config.yml:4:5: unknown key 'collectors.0.parms'"
cp "$T/good.yml" .veles/config.yml
printf 'cmds: [./a\n' >>.veles/config.yml
fails 2 veles run matrix
has "$T/err" "config.yml:[0-9]+:[0-9]+: "
printf 'generators:\n  workload:\n    - {id: g, type: integer, min_range: 1, max_range: x}\n' \
	>.veles/config.yml
fails 2 veles run matrix
has "$T/err" "config.yml:3:44: max_range wants a whole number"
# A collector's params are checked when the file is read, at their key.
printf 'cmds: [./a]\ncollectors:\n  - name: time\n    params: {repat: 2}\n' >.veles/config.yml
fails 2 veles run matrix
has "$T/err" "config.yml:4:14: 'collectors.0.params.repat': collect time: unknown option '--repat=2'"
printf 'cmds: [./a]\ncollectors:\n  - name: time\n    params:\n      repeat: 0\n' \
	>.veles/config.yml
fails 2 veles run matrix
has "$T/err" "config.yml:5:7: 'collectors.0.params.repeat': collect time: --repeat"
printf 'cmds: [./a]\ncollectors:\n  - {name: time, params: [1, 2]}\n' >.veles/config.yml
fails 2 veles run matrix
has "$T/err" "config.yml:3:27: 'collectors.0.params' must be a map of options, not a list"
printf 'cmds: [./a]\npostprocessors:\n  - {name: normalizer, params: [1]}\n' >.veles/config.yml
fails 2 veles run matrix
has "$T/err" "'postprocessors.0.params' must be a map of options, not a list"

# No matrix at all says what to write.
printf 'cmds: [./prog.sh]\n' >.veles/config.yml
fails 2 veles run matrix
has "$T/err" "no jobs"
# The user's file supplies what the project's does not.
mkdir -p "$XDG_CONFIG_HOME/veles"
printf 'collectors:\n  - {name: time, params: {repeat: 1, warmup: 0}}\n' \
	>"$XDG_CONFIG_HOME/veles/config.yml"
ok veles run matrix
has "$T/out" "^1 job: 1 ok"

# On a terminal the progress line's elapsed time moves while a job runs.
if command -v script >/dev/null; then
	printf '#!/bin/sh\nsleep 0.8\n' >slow.sh && chmod +x slow.sh
	printf 'cmds: [./slow.sh]\n' >.veles/config.yml
	script -qec "$VELES run matrix" /dev/null >"$T/tty" 2>&1 || fail "run under script"
	tr '\r' '\n' <"$T/tty" | grep -a '^\[1/1\] \./slow\.sh (time)  [0-9.]* s' |
		sed 's/.*  \([0-9.]*\) s.*/\1/' | sort -u >"$T/ticks"
	[ "$(wc -l <"$T/ticks")" -ge 3 ] || { cat -v "$T/tty" >&2; fail "elapsed time did not move"; }
	has "$T/tty" "ok +1/1  \./slow\.sh \(time\)"
fi
