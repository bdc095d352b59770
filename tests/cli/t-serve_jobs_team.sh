#!/bin/bash
# Project jobs on a team's PostgreSQL database (started here from Debian's
# postgresql package): a server queues a job and runs none; a runner outside
# the project leaves it queued; a runner in a clone that lacks the version
# claims it and fails saying why; a runner in a clone that has it runs it,
# and its profiles land in that clone's store.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v curl >/dev/null || { echo "skipped: needs curl" >&2; exit 77; }

pg_start

RPIDS=()
cleanup() {
	for p in "${RPIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	serve_stop
	pg_stop
	rm -rf "$T"
}

# runner NAME DIR [ARGS...]: `veles serve --runner` started in DIR, as if
# on a machine of its own (its run lock and data apart); its pid in RPID,
# its log $T/NAME.log.
runner() {
	local name=$1 dir=$2
	shift 2
	mkdir -p "$T/m-$name"
	(cd "$dir" && XDG_RUNTIME_DIR="$T/m-$name" exec "$VELES" serve --runner --db "$PG_URL" \
		--name "$name" --listen 127.0.0.1:0 --data "$T/data-$name" "$@" >"$T/$name.log" 2>&1) &
	RPID=$!
	RPIDS+=("$RPID")
	wait_started "$RPID" "$T/$name.log" "^veles serve: open " "runner $name"
}

new_git_project p
cat >veles.yml <<'EOF'
cmds: [/bin/echo]
args: [a]
collectors:
  - {name: time, params: {repeat: 1, warmup: 0}}
EOF
git add veles.yml && git commit -qm "the recipe" || fail commit
git clone -q "$T/p" "$T/behind" || fail clone
commit_change "after the clone"
head=$(git rev-parse HEAD)
mkdir "$T/plain"

serve_start --db "$PG_URL"
trap cleanup EXIT
grep -q 'runs executed here' "$T/serve.log" && fail "a server on PostgreSQL runs runs"
expect 201 POST /api/project/jobs '{"kind":"matrix","version":"HEAD"}'
J1=$(jq_ 'd["id"]')

# A runner outside any project takes no project job.
runner outside "$T/plain"
OUT=$RPID
sleep 2
req GET "/api/project/jobs/$J1"
[ "$(jq_ 'd["state"]')" = queued ] || fail "a runner outside the project took the job: $(cat "$T/body")"
hasnt "$T/outside.log" 'claimed by'
kill -INT "$OUT" && wait "$OUT"

# A runner whose clone lacks the version claims it and says why.
runner behind "$T/behind"
BEHIND=$RPID
wait_job "$J1"
[ "$(jq_ 'd["state"], d["runner"]')" = "failed behind" ] || fail "behind: $(cat "$T/body")"
jq_ 'd["error"]' | grep -q "runner behind: the project at $T/behind has no version ${head:0:12} (pull it there first)" ||
	fail "why: $(cat "$T/body")"
kill -INT "$BEHIND" && wait "$BEHIND"

# A runner in the project runs it; the profile is in its store.
expect 201 POST /api/project/jobs '{"kind":"matrix","version":"HEAD"}'
J2=$(jq_ 'd["id"]')
runner here "$T/p"
wait_job "$J2"
[ "$(jq_ 'd["state"], d["runner"], d["exit_status"]')" = "done here 0" ] || fail "here: $(cat "$T/body")"
[ "$(jq_ 'd["spec"]["result"]["registered"]')" = 1 ] || fail "registered: $(cat "$T/body")"
ok veles log
has "$T/out" "^version $head"
has "$T/out" "Profiles: 1 profile: 1 time"
echo ok
