#!/bin/bash
# Where a profile was measured: every profile's header.environment, `show
# summary`, and the warning (or --strict-env's refusal) of check, diff,
# log --perf and bisect when two sides differ, on crafted headers.
. "$(dirname "$0")/lib.sh"
new_git_project p
cat >prog.c <<'C'
int main(void) { return 0; }
C
cc -O1 -o prog prog.c || fail "cc"
echo prog >.gitignore
git add prog.c .gitignore && git commit -qm "a program" || fail commit

ok veles collect time -r 3 -q -o suppress -- ./prog
f=$(json_of "$(newest)")
python3 - "$f" "$(uname -r)" "$(hostname)" "$(nproc)" <<'PY' || fail "the environment"
import json, re, sys
p = json.load(open(sys.argv[1]))
e = p["header"]["environment"]
assert re.fullmatch(r"[0-9a-f]{16}", e["host"]), e
assert sys.argv[3] not in [v for v in e.values() if isinstance(v, str)], "the host name is recorded"
assert e["kernel"] == sys.argv[2] and e["cores"] == int(sys.argv[4]), e
assert isinstance(e["vm"], bool) and e["governor"], e
assert e["cpu"] is None or isinstance(e["cpu"], str), e
assert 0 <= e["load_before"] < 1000 and 0 <= e["load_after"] < 1000, e
# cc built ./prog: its .comment names the compiler.
assert re.search(r"GCC|clang", e["compiler"]), e
PY
ok veles show 0@p summary
has "$T/out" "^Host:           [0-9a-f]{16}$"
has "$T/out" "^Kernel:         $(uname -r)"
has "$T/out" "^Compiler:       .*(GCC|clang)"
has "$T/out" "^Load average:   [0-9.]+ before, [0-9.]+ after"
ok veles show 0@p summary --format json
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["environment"]["host"]' "$T/out" ||
	fail "summary json"

# The same profile with another kernel and compiler, and one with none.
python3 - "$f" "$T" <<'PY' || fail "crafting"
import json, sys
p = json.load(open(sys.argv[1]))
p["header"]["environment"]["kernel"] = "5.10.0-crafted"
p["header"]["environment"]["compiler"] = "clang version 99"
json.dump(p, open(sys.argv[2] + "/other.perf", "w"))
del p["header"]["environment"]
json.dump(p, open(sys.argv[2] + "/none.perf", "w"))
PY
cp "$f" "$T/same.perf"
ok veles check profiles "$T/same.perf" "$T/same.perf"
hasnt "$T/err" "environment"
ok veles check profiles "$T/same.perf" "$T/other.perf"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "one warning line"
has "$T/err" "^veles: warning: .*same.perf and .*other.perf were measured in different environments: kernel $(uname -r) vs 5.10.0-crafted, compiler .* vs clang version 99$"
fails 2 veles check profiles --strict-env "$T/same.perf" "$T/other.perf"
has "$T/err" "refuses to compare them"
# A profile that records none (Perun's, an older Veles's) is no warning,
# but --strict-env cannot vouch for it.
ok veles check profiles "$T/same.perf" "$T/none.perf"
hasnt "$T/err" "environment"
fails 2 veles check profiles --strict-env "$T/same.perf" "$T/none.perf"
has "$T/err" "none.perf records no environment"

ok veles diff "$T/same.perf" "$T/other.perf"
[ "$(grep -c 'different environments' "$T/err")" -eq 1 ] || fail "diff warning"
fails 2 veles diff --strict-env "$T/same.perf" "$T/other.perf"
ok veles diff --strict-env "$T/same.perf" "$T/same.perf"

# log --perf: two versions' profiles measured on different kernels.
ok veles add -q 0@p
commit_change "second"
ok veles add -q --force "$T/other.perf"
ok veles log --perf "[real]"
[ "$(grep -c 'different environments: kernel' "$T/err")" -eq 1 ] || fail "log warning"
fails 2 veles log --perf "[real]" --strict-env
has "$T/err" "refuses to compare them"
# check head warns the same way.
veles check head >"$T/out" 2>"$T/err"
has "$T/err" "different environments: kernel"

# bisect: a version built by another compiler (here the same compiler
# with another .comment string, as #ident leaves) than good.
good=$(git rev-parse HEAD)
cat >prog.c <<'C'
#ident "another compiler 1.0"
int main(void) { volatile long x = 0; for (long i = 0; i < 30000000; i++) x += i; return 0; }
C
git commit -qam "slow, built otherwise" || fail commit
fails 2 veles bisect --good "$good" --bad HEAD --build 'cc -O1 -o prog prog.c' -r 3 -q \
	--strict-env -- ./prog
has "$T/err" "the good version and [0-9a-f]{7} were measured in different environments \(compiler .* vs .*another compiler 1\.0\): --strict-env refuses"
veles bisect --good "$good" --bad HEAD --build 'cc -O1 -o prog prog.c' -r 8 -q \
	--min-effect 0.5 -- ./prog >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/out" "$T/err" >&2; fail "bisect"; }
[ "$(grep -c 'different environments: compiler' "$T/err")" -eq 1 ] || fail "bisect warning"
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
true
