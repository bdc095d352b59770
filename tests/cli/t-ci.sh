#!/bin/bash
# docs/ci.md: its GitHub Actions and GitLab CI recipes parse as YAML, have
# the shape their CI systems need, and every `veles` command line in them,
# run in order in a scratch clone of a project with pushed profiles and a
# tracked veles.yml, works: as a push to the default branch and as a merge
# request (the merge commit made as the GitLab recipe makes it).
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
$py -c 'import yaml' 2>/dev/null || { echo "skipped: python3-yaml is missing" >&2; exit 77; }
PATH="$(dirname "$VELES"):$PATH"
export PATH

# The recipes' veles lines, one file per recipe, one command per line.
$py - "$VELES_SRCDIR/docs/ci.md" "$T" <<'PY' || fail "the recipes' shape"
import re, sys, yaml
doc, out = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"^```yaml\n(.*?)^```$", doc, re.S | re.M)
assert len(blocks) == 2, f"{len(blocks)} yaml blocks"
gh, gl = (yaml.safe_load(b) for b in blocks)

# GitHub Actions: triggers (YAML 1.1 reads the key `on` as true),
# permissions to push refs and to comment, a full-history checkout.
on = gh.get("on", gh.get(True))
assert set(on) == {"push", "pull_request"}, on
assert gh["permissions"] == {"contents": "write", "pull-requests": "write"}
job = gh["jobs"]["perf"]
steps = job["steps"]
co = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
assert co and co[0]["with"]["fetch-depth"] == 0
assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in steps)
assert all(("run" in s) != ("uses" in s) for s in steps), "a step runs or uses, not both"
assert "VELES_REMOTE" in job["env"]
gh_shell = [s["run"] for s in steps if "run" in s]

# GitLab CI: a job with rules for merge requests and the default branch,
# full history, the JUnit report.
g = gl["perf"]
assert g["variables"]["GIT_DEPTH"] == 0
assert any("merge_request_event" in r["if"] for r in g["rules"])
assert g["artifacts"]["reports"]["junit"] == "check.xml"
gl_shell = g["before_script"] + g["script"]
assert all(isinstance(x, str) for x in gl_shell)

def veles_lines(scripts):
    lines = []
    for text in scripts:
        text = re.sub(r"\\\n\s*", " ", text)  # continued lines
        lines += [l.strip() for l in text.splitlines() if re.match(r"\s*veles ", l)]
    return lines

for name, scripts in (("github", gh_shell), ("gitlab", gl_shell)):
    lines = veles_lines(scripts)
    assert len(lines) >= 6, (name, lines)
    # What the recipes must do, in this order.
    firsts = [next(i for i, l in enumerate(lines) if l.startswith(w)) for w in
              ("veles pull", "veles run matrix", "veles check head --collect-missing", "veles push")]
    assert firsts[0] < firsts[1] < firsts[2], (name, lines)
    assert any("--format junit" in l for l in lines) and any("--format markdown" in l for l in lines)
    open(f"{out}/{name}.lines", "w").write("\n".join(lines) + "\n")
PY

# Runs each line of recipe $1 in the current directory: the command alone
# (without the `|| ...` that keeps a CI step going) must succeed; check may
# also say 1 (a degradation).
run_recipe() {
	local line cmd rc
	while IFS= read -r line; do
		cmd=${line%%||*}
		bash -c "$cmd" >>"$T/run.log" 2>&1
		rc=$?
		if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [[ $cmd == "veles check "* ]]; }; then
			tail -20 "$T/run.log" >&2
			fail "$1: '$cmd' exited $rc"
		fi
	done <"$T/$1.lines"
}

# The project: list_search built by execute.pre_run, its matrix tracked.
git init -q --bare -b main "$T/origin.git"
mkdir "$T/a" && cd "$T/a" && git init -q -b main .
cp "$VELES_SRCDIR/examples/list_search.c" .
printf 'prog\ncheck.md\ncheck.xml\n' >.gitignore
cat >veles.yml <<'EOF2'
execute:
  pre_run: cc -O2 -o prog list_search.c
cmds: [./prog]
args: [2000 2000]
collectors:
  - name: time
    params: {repeat: 5, output_handling: suppress}
EOF2
git add -A && git commit -qm "list search" && git remote add origin "$T/origin.git"
echo "/* two */" >>list_search.c && git commit -qam two && git push -q origin main

export VELES_REMOTE="$T/origin.git" GITHUB_STEP_SUMMARY="$T/summary.md"
for recipe in github gitlab; do
	# A push to main: measured, checked, pushed.
	git clone -q "$T/origin.git" "$T/$recipe-main" && cd "$T/$recipe-main" || fail clone
	run_recipe "$recipe"
	git --git-dir="$T/origin.git" rev-parse -q --verify refs/veles/ledger >/dev/null ||
		fail "$recipe: nothing pushed"
	ok veles log -n 1 --oneline
	has "$T/out" "\[[1-9][0-9]* profiles?: [0-9]+ time\] two"

	# A merge request: the merge of a change into main, checked against
	# main's tip, whose profile the push above shared.
	git clone -q "$T/origin.git" "$T/$recipe-mr" && cd "$T/$recipe-mr" || fail clone
	git checkout -q -b feature && echo "/* feature */" >>list_search.c && git commit -qam feature
	git checkout -q --detach origin/main
	git -c user.name=CI -c user.email=ci@localhost merge -q --no-ff --no-edit feature
	run_recipe "$recipe"
	[ -s check.md ] || fail "$recipe: no markdown report"
	[ "$(wc -c <check.md)" -lt 65536 ] || fail "$recipe: the report does not fit a comment"
	has check.md "^\*\*[0-9]+ degradations?, .*\(--fail-on degradation\)\*\*$"
	has check.md "^#### \./prog 2000 2000 · time$"
	hasnt check.md "had no baseline"
	$py -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' check.xml ||
		fail "$recipe: the JUnit report does not parse"
done
has "$T/summary.md" "\(--fail-on degradation\)"
