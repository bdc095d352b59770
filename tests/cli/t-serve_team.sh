#!/bin/bash
# A team database: veles serve and veles runner sharing one PostgreSQL
# server (started here from Debian's postgresql package, its socket in the
# test's folder). A server on PostgreSQL queues runs but runs none; runners
# claim them, each run once; a runner killed -9 mid-run loses its lease and
# another runner takes the run again once the lease expires.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
cd "$T"
command -v curl >/dev/null || { echo "skipped: needs curl" >&2; exit 77; }
can_count || { echo "skipped: perf_event_open cannot count task-clock here" >&2; exit 77; }

ok veles runner --help
has "$T/out" '^usage: veles runner --db'
fails 2 veles runner --data "$T/x"
has "$T/err" 'the queue.s database'
fails 2 veles runner --db sqlite:x --listen 127.0.0.1:0
fails 2 veles serve --name a --data "$T/x"
has "$T/err" 'go with --runner'
fails 2 veles runner --db sqlite:x --lease 1

pg_start

RPIDS=()
cleanup() {
	for p in "${RPIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	for f in "$T"/r[234].pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	serve_stop
	pg_stop
	rm -rf "$T"
}

# runner NAME [ARGS...]: `veles runner` in the background, as if on a
# machine of its own (its run lock and data apart); its pid in RPID, its
# log $T/NAME.log.
runner() {
	local name=$1
	shift
	set -- "$name" "$@"
	mkdir -p "$T/m-$1"
	XDG_RUNTIME_DIR="$T/m-$1" "$VELES" runner --db "$PG_URL" --data "$T/data-$1" --name "$@" \
		--lease 3 >"$T/$1.log" 2>&1 &
	RPID=$!
	RPIDS+=("$RPID")
	wait_started "$RPID" "$T/$1.log" "^veles runner: $1, data in" "runner $1"
}

serve_start --db "$PG_URL"
trap cleanup EXIT
has "$T/serve.log" '^veles serve: open '
grep -q 'runs executed here' "$T/serve.log" && fail "a server on PostgreSQL runs runs"
expect 201 POST /api/sessions '{"title":"team"}'
S=$(jq_ 'd["id"]')
queue() { # queue COMMAND: a stat run of COMMAND; its id in R
	expect 201 POST /api/runs "{\"session\":\"$S\",\"events\":[\"task-clock\"],\"command\":\"$1\"}"
	R=$(jq_ 'd["id"]')
}
# pid_written FILE: until a queued command has written its pid to FILE
# (10 s at most; what follows checks the run).
pid_written() {
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
}

# Nobody runs it until a runner comes.
queue "echo first"
R1=$R
sleep 1.5
req GET "/api/runs/$R1"
[ "$(jq_ 'd["state"]')" = queued ] || fail "a run ran without a runner"
runner a
A=$RPID
wait_run "$R1"
[ "$(jq_ 'd["state"], d["runner"], d["attempts"]')" = "done a 1" ] ||
	fail "first run: $(cat "$T/body")"

# Runner a killed -9 in the middle of a run; b takes it after the lease.
queue "echo \$\$ > $T/r2.pid; exec sleep 60"
R2=$R
pid_written "$T/r2.pid"
req GET "/api/runs/$R2"
[ "$(jq_ 'd["state"], d["runner"]')" = "running a" ] || fail "second run: $(cat "$T/body")"
kill -9 "$A"
wait "$A" 2>/dev/null
kill "$(cat "$T/r2.pid")"
rm -f "$T/r2.pid"
runner b
for _ in $(seq 200); do
	req GET "/api/runs/$R2"
	[ "$(jq_ 'd["runner"]')" = b ] && break
	sleep 0.1
done
[ "$(jq_ 'd["runner"], d["attempts"]')" = "b 2" ] || fail "not taken again: $(cat "$T/body")"
# Whoever saw the lease expire first (the server or b) put the run back.
cat "$T/serve.log" "$T/b.log" >"$T/both.log"
has "$T/both.log" 'lease.s. expired: 1 run.s. back in the queue'
kill "$(cat "$T/r2.pid")" 2>/dev/null
wait_run "$R2"

# Several runners on one queue: every run done, each claimed once.
runner c
ids=()
for i in $(seq 8); do
	queue "sleep 0.5; echo $i"
	ids+=("$R")
done
for id in "${ids[@]}"; do
	wait_run "$id"
	[ "$(jq_ 'd["state"], d["attempts"]')" = "done 1" ] || fail "run $id: $(cat "$T/body")"
done
cat "$T/b.log" "$T/c.log" | grep -c ': claimed by ' >"$T/claims"
[ "$(cat "$T/claims")" -eq 9 ] || fail "claims: $(cat "$T/claims") (expected 9)"
grep -q ': claimed by b' "$T/b.log" && grep -q ': claimed by c' "$T/c.log" ||
	fail "one runner did all the work"

# Cancelled from the server while runner b runs it: b stops it.
queue "echo \$\$ > $T/r3.pid; exec sleep 60"
R3=$R
pid_written "$T/r3.pid"
expect 200 POST "/api/runs/$R3/cancel"
[ "$(jq_ 'd["state"]')" = canceled ] || fail "cancel: $(cat "$T/body")"
for _ in $(seq 100); do
	kill -0 "$(cat "$T/r3.pid")" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$(cat "$T/r3.pid")" 2>/dev/null && fail "the canceled run's command still runs"
cat "$T/b.log" "$T/c.log" >"$T/both.log"
has "$T/both.log" "run $R3 is no longer this runner's"
expect 200 GET "/api/runs/$R3"
[ "$(jq_ 'd["state"]')" = canceled ] || fail "cancel undone: $(cat "$T/body")"

# Runners stop cleanly on SIGTERM.
stop_runners() {
	for p in "${RPIDS[@]}"; do
		[ "$p" = "$A" ] && continue
		kill -TERM "$p"
		wait "$p" || fail "a runner exited $?"
	done
	RPIDS=()
}
stop_runners

# A second process of a runner's name on its machine, started while the
# first runs a run, leaves that run alone (the machine's run lock is held).
runner e
queue "echo \$\$ > $T/r4.pid; exec sleep 60"
R4=$R
pid_written "$T/r4.pid"
XDG_RUNTIME_DIR="$T/m-e" "$VELES" runner --db "$PG_URL" --data "$T/data-e2" --name e --lease 3 \
	>"$T/e2.log" 2>&1 &
RPIDS+=("$!")
for _ in $(seq 100); do
	grep -q "^veles runner: e, data in" "$T/e2.log" && break
	sleep 0.1
done
sleep 1
req GET "/api/runs/$R4"
[ "$(jq_ 'd["state"], d["runner"], d["attempts"]')" = "running e 1" ] ||
	fail "a second runner e took the run: $(cat "$T/body")"
expect 200 POST "/api/runs/$R4/cancel"
for _ in $(seq 100); do
	kill -0 "$(cat "$T/r4.pid")" 2>/dev/null || break
	sleep 0.1
done
stop_runners

# A runner in a project shares what its runs add to the store: pulled and
# pushed to the team's remote after each run.
git init -q --bare -b main "$T/remote.git"
new_git_project w1
git remote add origin "$T/remote.git" && git push -q origin main
runner d --push origin
cd "$T"
fails 2 veles serve --data "$T/x" --push origin
queue "$VELES collect time -r 1 -q --workload shared -- true && $VELES add -q 0@p"
wait_run "$R"
[ "$(jq_ 'd["state"], d["runner"], d["exit_status"]')" = "done d 0" ] || fail "collect run: $(cat "$T/body")"
for _ in $(seq 100); do
	grep -q "pushed to origin" "$T/d.log" && break
	sleep 0.1
done
has "$T/d.log" "run $R: pushed to origin"
git clone -q "$T/remote.git" "$T/w2" && cd "$T/w2" && veles init -q
ok veles pull
ok veles status
has "$T/out" "shared"
cd "$T"

# A second server on the same database: nothing to migrate, the same runs.
SURL0=$SURL STOKEN0=$STOKEN SPID0=$SPID
mv "$T/serve.log" "$T/serve0.log"
serve_start --db "$PG_URL" --data "$T/data2"
trap cleanup EXIT
grep -q 'migrated' "$T/serve.log" && fail "migrated twice"
expect 200 GET "/api/runs/$R2"
serve_stop
SURL=$SURL0 STOKEN=$STOKEN0 SPID=$SPID0
mv "$T/serve0.log" "$T/serve.log"

stop_runners
grep -Eq 'Sanitizer|runtime error' "$T"/*.log && fail "the sanitizers found something"
exit 0
