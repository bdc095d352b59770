#!/bin/bash
# Project jobs through veles serve's run queue: the tracked job matrix run
# on an older version (its profiles registered with it: veles log and
# veles status show them), a remeasure's verdict on a planted slowdown, a
# bisect cancelled mid-run (its worktrees removed), bad requests (400) and
# a read-only server (403).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v curl >/dev/null || { echo "skipped: needs curl" >&2; exit 77; }

new_git_project p
# A program whose work the version sets: the second version is 60 times
# slower, which no noise hides.
printf '#!/bin/sh\ni=0\nwhile [ $i -lt %s ]; do i=$((i+1)); done\necho "$@"\n' 1000 >prog
chmod +x prog
cat >veles.yml <<'EOF'
cmds: [./prog]
args: [a, b]
collectors:
  - {name: time, params: {repeat: 2, warmup: 0}}
EOF
git add prog veles.yml && git commit -qm "the recipe" || fail commit
fast=$(git rev-parse HEAD)
sed -i 's/-lt 1000/-lt 60000/' prog
git commit -qam "slower" || fail commit
slow=$(git rev-parse HEAD)

serve_start

# The matrix on the first version, named as a user would name it.
expect 201 POST /api/project/jobs '{"kind":"matrix","version":"HEAD~1"}'
job=$(jq_ 'd["id"]')
[ "$(jq_ 'd["kind"]')" = matrix ] || fail "kind"
[ "$(jq_ 'd["version"]')" = "$fast" ] || fail "the version resolved: $(cat "$T/body")"
[ "$(jq_ 'd["summary"]')" = "the recipe" ] || fail "summary"
has "$T/body" '"command":"veles run matrix -m '"$fast"'"'
wait_job "$job"
[ "$(jq_ 'd["state"]')" = done ] || { cat "$T/body" "$T/serve.log" >&2; fail "matrix job"; }
[ "$(jq_ 'd["exit_status"]')" = 0 ] || fail "exit status"
[ "$(jq_ 'd["progress"]["done"], d["progress"]["total"]')" = "2 2" ] || fail "progress: $(cat "$T/body")"
[ "$(jq_ 'd["spec"]["result"]["registered"]')" = 2 ] || fail "registered: $(cat "$T/body")"
[ "$(jq_ 'len(d["spec"]["result"]["profiles"])')" = 2 ] || fail "profiles"
jq_ 'd["spec"]["result"]["profiles"][0]' | grep -q '^prog-time-a-.*\.perf$' || fail "profile name"
# Its output, as the CLI printed it.
expect 200 GET "/api/runs/$job/output?stream=stdout"
has "$T/body" 'ok +1/2 +\./prog a \(time\)'
# In the store, with that version; nothing left pending, no worktree.
ok veles log
has "$T/out" "^version $fast"
has "$T/out" "Profiles: 2 profiles: 2 time"
ok veles status
has "$T/out" 'Pending profiles in .veles/jobs/ \(0\)'
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
# Listed, newest first, and by version.
expect 200 GET "/api/project/jobs?version=$fast"
[ "$(jq_ 'len(d["jobs"])')" = 1 ] || fail "jobs of the version"
expect 200 GET "/api/project/jobs?version=HEAD"
[ "$(jq_ 'len(d["jobs"])')" = 0 ] || fail "jobs of HEAD"
expect 400 GET "/api/project/jobs?version=nosuch"
# A job is a run of the queue, in the project's jobs session.
expect 200 GET "/api/runs/$job"
[ "$(jq_ 'd["tool"]')" = job ] || fail "tool"

# The matrix on the current version: veles status shows its profiles.
expect 201 POST /api/project/jobs '{"kind":"matrix","version":"HEAD"}'
wait_job "$(jq_ 'd["id"]')"
[ "$(jq_ 'd["state"]')" = done ] || fail "matrix on HEAD"
ok veles status
has "$T/out" 'Profiles of this version \(2\)'

# A remeasure against the parent: the slowdown is the verdict.
expect 201 POST /api/project/jobs '{"kind":"remeasure","version":"HEAD","max_rounds":10}'
[ "$(jq_ 'd["spec"]["base"]')" = "$fast" ] || fail "base: the parent"
job=$(jq_ 'd["id"]')
wait_job "$job"
[ "$(jq_ 'd["state"]')" = done ] || { cat "$T/body" >&2; fail "remeasure job"; }
[ "$(jq_ 'd["exit_status"]')" = 1 ] || fail "remeasure exit status: $(cat "$T/body")"
[ "$(jq_ 'd["spec"]["result"]["verdict"]')" = degradation ] || fail "verdict: $(cat "$T/body")"
[ "$(jq_ 'd["progress"]["done"]')" = 2 ] || fail "both jobs remeasured: $(cat "$T/body")"
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"

# A bisect that would take long, cancelled while it runs: the CLI stops
# and removes its worktrees.
expect 201 POST /api/project/jobs \
	'{"kind":"bisect","version":"HEAD","good":"HEAD~1","command":"sleep 2","runs":20}'
job=$(jq_ 'd["id"]')
for _ in $(seq 300); do
	req GET "/api/project/jobs/$job"
	[ "$(jq_ 'd["state"]')" = running ] && grep -q 'bisect' "$T/data/runs/$job/stderr.log" 2>/dev/null && break
	sleep 0.1
done
expect 200 POST "/api/runs/$job/cancel"
wait_job "$job"
[ "$(jq_ 'd["state"]')" = canceled ] || fail "cancel: $(cat "$T/body")"
for _ in $(seq 50); do [ "$(git worktree list | wc -l)" -eq 1 ] && break; sleep 0.1; done
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "the bisect's worktrees were left"

# Bad requests.
expect 400 POST /api/project/jobs '{"kind":"matrix"}'
has "$T/body" 'version is required'
expect 400 POST /api/project/jobs '{"kind":"nosuch","version":"HEAD"}'
expect 400 POST /api/project/jobs '{"kind":"matrix","version":"nosuch"}'
has "$T/body" "no version 'nosuch'"
expect 400 POST /api/project/jobs '{"kind":"remeasure","version":"HEAD~2"}'
has "$T/body" 'has no parent'
expect 400 POST /api/project/jobs '{"kind":"remeasure","version":"HEAD","base":"HEAD"}'
has "$T/body" 'with its parent'
expect 400 POST /api/project/jobs '{"kind":"bisect","version":"HEAD","good":"HEAD~1"}'
expect 400 POST /api/project/jobs '{"kind":"matrix","version":"HEAD","command":"x"}'
expect 400 POST /api/project/jobs 'not json'
expect 404 GET /api/project/jobs/not-an-id
expect 404 GET /api/project/jobs/00000000-0000-4000-8000-000000000000
serve_stop

# Read-only: the jobs are listed, none is started.
serve_start --read-only
expect 403 POST /api/project/jobs '{"kind":"matrix","version":"HEAD"}'
expect 200 GET /api/project/jobs
[ "$(jq_ 'len(d["jobs"])')" = 4 ] || fail "jobs listed read-only"
[ "$(jq_ 'd["jobs"][0]["kind"], d["jobs"][-1]["kind"]')" = "bisect matrix" ] || fail "newest first"
serve_stop
echo ok
