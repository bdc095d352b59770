#!/bin/bash
# veles check --collect-missing: the parent has no profile, so check
# measures it there (a temporary worktree, built by execute.pre_run),
# registers it, and finds the slowdown. What runs there is the job of the
# user's own matrix that makes the configuration; a profile's own recipe
# (data that may come from anyone through `veles pull`) runs only with
# --yes or the user's answer on a terminal.
. "$(dirname "$0")/lib.sh"
new_git_project p
cp "$VELES_SRCDIR/examples/list_search.c" .
git add list_search.c && git commit -qm "fast search" || fail commit
parent=$(git rev-parse HEAD)
sed -i 's/^#define SLOW 0$/#define SLOW 1/' list_search.c
git commit -qam "slow search" || fail commit
cat >>.veles/config.yml <<'YML'
execute:
  pre_run:
    - cc -O2 -o prog list_search.c
YML
cc -O2 -o prog list_search.c || fail cc
veles collect time -r 10 -q -o suppress -- ./prog 4000 4000 2>/dev/null || fail collect
ok veles postprocess -o "$T/n.perf" 0@p filter --where 'amount>=0'
rm .veles/jobs/*.perf
ok veles add -q "$T/n.perf"

# Without the option: no baseline.
ok veles check head
has "$T/out" "1 profile had no baseline"

# No job of config.yml makes this configuration, and there is no --yes and
# no terminal to ask on: one line says so, and nothing runs.
veles check head --collect-missing >"$T/out" 2>"$T/err" </dev/null
[ $? -eq 0 ] || { cat "$T/out" "$T/err" >&2; fail "nothing ran, so nothing degraded"; }
[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err" >&2; fail "expected one line"; }
has "$T/err" "^veles: warning: not collecting n\.perf on ${parent:0:7}: config.yml has no job .* pass --yes"
has "$T/out" "1 profile had no baseline"
ok veles log --format json
python3 - "$T/out" "$parent" <<'PY' || fail "nothing may be registered"
import json, sys
log = {v["id"]: v for v in json.load(open(sys.argv[1]))}
assert not log[sys.argv[2]]["profiles"], log[sys.argv[2]]
PY

# --yes: the profile's own recipe.
veles check head --collect-missing --yes </dev/null >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { cat "$T/out" "$T/err" >&2; fail "the slowdown should be found"; }
has "$T/err" "^check: collecting n\.perf on ${parent:0:7}$"
# Judged on the most stable metric both have: cpu where the kernel counts it.
has "$T/out" "\./prog \[(cpu|real)\]"
has "$T/out" "Degradation"
hasnt "$T/out" "had no baseline"
# The parent's profile is registered, made the same way (collector
# parameters and postprocessors included), with the parent as its origin.
ok veles log --format json
python3 - "$T/out" "$parent" <<'PY' || fail "registered with the parent"
import json, sys
log = {v["id"]: v for v in json.load(open(sys.argv[1]))}
assert len(log[sys.argv[2]]["profiles"]) == 1, log[sys.argv[2]]
PY
ok veles show 0@i raw -m "$parent"
python3 - "$T/out" "$parent" <<'PY' || fail "the recipe"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["origin"] == sys.argv[2]
assert p["collector_info"]["params"]["repeat"] == 10, p["collector_info"]
assert [r["name"] for r in p["postprocessors"]] == ["filter"], p["postprocessors"]
assert p["postprocessors"][0]["params"]["where"] == ["amount>=0"], p["postprocessors"]
assert p["header"]["args"] == "4000 4000"
PY
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
# Found now without collecting again.
veles check head --collect-missing >"$T/out" 2>"$T/err"
hasnt "$T/err" "collecting"

# A build that fails is an error (exit 2), and nothing is registered.
git commit -qm "empty" --allow-empty
veles collect time -r 3 -q -o suppress -- ./prog 10 10 2>/dev/null && ok veles add -q 0@p
sed -i 's/cc -O2 -o prog list_search.c/false/' .veles/config.yml
fails 2 veles check head --collect-missing -q --yes
has "$T/err" "pre_run 'false' exited with status 1"

# A job of the matrix makes the configuration: it runs without --yes, as
# config.yml says (repeat 7), not as the profile says (repeat 5).
new_git_project m
cp "$VELES_SRCDIR/examples/list_search.c" .
git add list_search.c && git commit -qm "fast search" || fail commit
parent=$(git rev-parse HEAD)
sed -i 's/^#define SLOW 0$/#define SLOW 1/' list_search.c
git commit -qam "slow search" || fail commit
cat >>.veles/config.yml <<'YML'
execute:
  pre_run:
    - cc -O2 -o prog list_search.c
cmds: ./prog
args: 4000 4000
collectors:
  - name: time
    params:
      repeat: 7
YML
cc -O2 -o prog list_search.c || fail cc
veles collect time -r 5 -q -o suppress -- ./prog 4000 4000 2>/dev/null || fail collect
ok veles add -q 0@p
veles check head --collect-missing </dev/null >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || { cat "$T/out" "$T/err" >&2; fail "the slowdown should be found"; }
has "$T/err" "^check: collecting prog-time-4000_4000-.*\.perf on ${parent:0:7}$"
has "$T/out" "Degradation"
ok veles show 0@i raw -m "$parent"
python3 - "$T/out" "$parent" <<'PY' || fail "the matrix's job"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["origin"] == sys.argv[2]
assert p["collector_info"]["params"]["repeat"] == 7, p["collector_info"]
PY
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"

# Postprocessors replay from their records, which use Perun's names
# (regression-analysis's of_key and per_key, moving-average's center): the
# parent's profile is made through the same three.
new_git_project r
cp "$VELES_SRCDIR/examples/list_search.c" .
git add list_search.c && git commit -qm "fast search" || fail commit
parent=$(git rev-parse HEAD)
commit_change "a comment"
cat >>.veles/config.yml <<'YML'
execute:
  pre_run:
    - cc -O2 -o prog list_search.c
YML
cc -O2 -o prog list_search.c || fail cc
veles collect time -r 6 -q -o suppress -- ./prog 2000 2000 2>/dev/null || fail collect
ok veles postprocess -o "$T/c.perf" 0@p clusterizer
ok veles postprocess -o "$T/r.perf" "$T/c.perf" regression-analysis -r linear -r constant
ok veles postprocess -o "$T/m.perf" "$T/r.perf" moving-average --no-center
rm .veles/jobs/*.perf
ok veles add -q "$T/m.perf"
veles check head --collect-missing --yes </dev/null >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/out" "$T/err" >&2; fail "replaying the postprocessors"; }
has "$T/err" "^check: collecting m\.perf on ${parent:0:7}$"
ok veles show 0@i raw -m "$parent"
python3 - "$T/out" "$T/m.perf" <<'PY' || fail "the postprocessors replayed"
import json, sys
got, want = (json.load(open(f))["postprocessors"] for f in sys.argv[1:])
assert got == want, (got, want)
assert want[2]["params"]["center"] is False, want[2]
PY

# A profile from someone else (tests/data/crafted/foreign-recipe.perf)
# whose recipe writes `id` to ~/pwned, as pulled profiles may.
new_git_project f
commit_change second
ok veles add -q "$VELES_SRCDIR/tests/data/crafted/foreign-recipe.perf"
parent=$(git rev-parse HEAD~1)
veles check head --collect-missing </dev/null >"$T/out" 2>"$T/err"
[ $? -eq 0 ] || { cat "$T/out" "$T/err" >&2; fail "exit status"; }
has "$T/err" "not collecting foreign-recipe\.perf on ${parent:0:7}"
[ -e "$HOME/pwned" ] && fail "the profile's command ran"
# On a terminal check asks, showing the command; no (the default) runs nothing.
cat >"$T/answer.py" <<'PY'
# answer.py ANSWER CMD...: runs CMD on a pseudo-terminal, answers its [y/N]
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
out, sent = b"", False
while True:
    if not select.select([fd], [], [], 120)[0]:
        break
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
    if not sent and b"[y/N]" in out:
        os.write(fd, sys.argv[1].encode() + b"\n")
        sent = True
status = os.waitpid(pid, 0)[1]
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
PY
python3 "$T/answer.py" n "$VELES" check head --collect-missing >"$T/out" ||
	fail "declined: exit $?"
has "$T/out" "Run it\? \[y/N\]"
has "$T/out" "veles collect time --output-handling=suppress --repeat=1 -- sh -c 'id >\"\\\$HOME/pwned\"'"
hasnt "$T/out" "collecting"
[ -e "$HOME/pwned" ] && fail "the profile's command ran though declined"
python3 "$T/answer.py" y "$VELES" check head --collect-missing >"$T/out"
has "$T/out" "collecting foreign-recipe\.perf on ${parent:0:7}"
[ -e "$HOME/pwned" ] || fail "the command the user allowed did not run"
echo ok
