#!/bin/bash
# bench/runners.sh BUILD_DIR: the team queue's target (docs/team.md). One
# PostgreSQL server started here (scripts/pg-temp.sh), a `veles serve` on it
# that queues RUNS runs (200) through its API, and two runners, `veles
# runner`, each a "machine" of its own: its own worktree of one project, data
# folder and run lock. Each run is a stat of a short command (SLEEP seconds)
# that notes its run's number in a log when it completes. When a third of
# the runs are done, runner a is killed -9 in the middle of a run, with its
# command (as when a machine is lost); a new runner takes its place 2 s later
# under another name, and the run a held goes back to the queue once its
# lease (LEASE seconds) expires.
# Printed: runs done, completed executions, duplicates (a run completed more
# than once), lost (a run never done), runs claimed again, claims per runner,
# the wall time; beside it the peer: the same commands under `veles stat`
# one after another in one shell, and the ratio (2 runners: ideally 0.5).
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
veles=$build/src/cli/veles
RUNS=${RUNS:-200}
SLEEP=${SLEEP:-0.1}
LEASE=${LEASE:-5}
for tool in curl psql git python3; do
	command -v $tool >/dev/null || { echo "runners: needs $tool (scripts/deps.sh)" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "runners: build $veles first" >&2; exit 1; }
"$veles" stat -e task-clock -x, -- true >/dev/null 2>&1 ||
	{ echo "runners: perf_event_open cannot count task-clock here" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench-runners.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null && { wait "$p"; } 2>/dev/null; done
	for f in "$tmp"/pid.*; do [ -s "$f" ] && kill -9 -- "-$(cat "$f")" 2>/dev/null; done
	sh "$here/../scripts/pg-temp.sh" stop "$tmp/pg"
	rm -rf "$tmp"
}
trap cleanup EXIT
ms() { echo $(($(date +%s%N) / 1000000)); }

url=$(sh "$here/../scripts/pg-temp.sh" start "$tmp/pg")
sql() { psql -qtA "$url" -c "$1"; }

# The project and its two worktrees.
git init -q -b main "$tmp/proj"
git -C "$tmp/proj" -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m one
git -C "$tmp/proj" worktree add -q "$tmp/wt-a"
git -C "$tmp/proj" worktree add -q "$tmp/wt-b"

# The server that queues (it runs nothing itself: PostgreSQL).
"$veles" serve --db "$url" --listen 127.0.0.1:0 --no-token --data "$tmp/serve" \
	>"$tmp/serve.log" 2>&1 &
pids+=($!)
until grep -q '^veles serve: open' "$tmp/serve.log"; do sleep 0.05; done
base=$(sed -n 's/^veles serve: open \(http:[^?]*\).*/\1/p' "$tmp/serve.log")
api() { curl -sf -X POST -H 'X-Veles-CSRF: 1' -H 'Content-Type: application/json' \
	--data-binary "$2" "${base%/}$1"; }
session=$(api /api/sessions '{"title":"bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
# $RUNNER comes from the runner's environment: the bench kills that
# runner's command with it, as a lost machine loses its processes.
for i in $(seq "$RUNS"); do
	cmd="echo \$\$ > $tmp/pid.\$RUNNER; sleep $SLEEP; echo $i >> $tmp/completed; rm -f $tmp/pid.\$RUNNER"
	api /api/runs "{\"session\":\"$session\",\"events\":[\"task-clock\"],\"command\":\"$cmd\"}" >/dev/null
done
echo "queued: $(sql "SELECT COUNT(*) FROM runs WHERE state = 'queued'") runs"

runner() { # runner NAME WORKTREE
	mkdir -p "$tmp/m-$1"
	(cd "$2" && RUNNER=$1 XDG_RUNTIME_DIR="$tmp/m-$1" exec "$veles" runner --db "$url" \
		--name "$1" --lease "$LEASE" --data "$tmp/data-$1" >"$tmp/$1.log" 2>&1) &
	RPID=$!
	pids+=("$RPID")
	disown "$RPID" # killed on purpose: no job notice
}
done_count() { sql "SELECT COUNT(*) FROM runs WHERE state = 'done'"; }

t0=$(ms)
runner a "$tmp/wt-a"
A=$RPID
runner b "$tmp/wt-b"
# A third of the way: a killed in the middle of a run, with its command.
until [ "$(done_count)" -ge $((RUNS / 3)) ]; do sleep 0.05; done
pa=
until [ -n "$pa" ]; do pa=$(cat "$tmp/pid.a" 2>/dev/null || true); done
# The runner and its command's process group in one call.
kill -9 -- "$A" "-$pa" 2>/dev/null || true
killed_run=$(sql "SELECT id FROM runs WHERE state = 'running' AND runner = 'a'")
rm -f "$tmp/pid.a"
tk=$(ms)
echo "killed runner a -9 during run ${killed_run:-?} after $(done_count) runs done"
sleep 2
runner a2 "$tmp/wt-a"
until [ "$(sql "SELECT COUNT(*) FROM runs WHERE state NOT IN ('done', 'failed', 'canceled')")" -eq 0 ]; do
	sleep 0.1
done
t1=$(ms)
back=$(sql "SELECT started FROM runs WHERE id = '$killed_run'")

done_runs=$(done_count)
failed=$(sql "SELECT COUNT(*) FROM runs WHERE state <> 'done'")
completed=$(wc -l <"$tmp/completed")
dups=$(sort -n "$tmp/completed" | uniq -d | wc -l)
lost=$((RUNS - $(sort -nu "$tmp/completed" | wc -l)))
again=$(sql "SELECT COUNT(*) FROM runs WHERE attempts > 1")
echo "runs done:             $done_runs of $RUNS (not done: $failed)"
echo "completed executions:  $completed"
echo "duplicates:            $dups"
echo "lost:                  $lost"
echo "claimed again:         $again (the killed run: back $(((back - tk))) ms after the kill, lease ${LEASE} s)"
for r in a b a2; do
	echo "claims by $r:$(printf '%*s' $((12 - ${#r})) '')$(grep -c ': claimed by ' "$tmp/$r.log" || true)"
done
queue_ms=$((t1 - t0))
echo "time:                  $((queue_ms / 1000)).$(printf '%03d' $((queue_ms % 1000))) s for $RUNS runs, 2 runners (one killed, replaced after 2 s)"

# The peer: the same commands measured one after another in one shell.
cd "$tmp/wt-b"
t0=$(ms)
for i in $(seq "$RUNS"); do
	"$veles" stat -e task-clock -x, -o /dev/null -- sh -c "sleep $SLEEP" >/dev/null 2>&1
done
t1=$(ms)
peer_ms=$((t1 - t0))
echo "peer (veles stat, serial): $((peer_ms / 1000)).$(printf '%03d' $((peer_ms % 1000))) s"
python3 -c "print('ratio queue/serial: %.2f' % ($queue_ms / $peer_ms))"
[ "$dups" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$done_runs" -eq "$RUNS" ]
