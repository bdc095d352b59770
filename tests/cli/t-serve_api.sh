#!/bin/bash
# veles serve's JSON API with curl: every endpoint and its errors, the
# token, CSRF and Host checks, runs queued one at a time, stat and record
# data and downloads, cancel, attach, delete, the schema version.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
cd "$T"
command -v curl >/dev/null || { echo "skipped: needs curl"; exit 77; }

# Options refused before anything listens.
ok veles serve --help
has "$T/out" '^usage: veles serve'
fails 1 veles serve --listen nonsense --data "$T/x"
has "$T/err" 'use ADDRESS:PORT'
fails 1 veles serve --listen 0.0.0.0:0 --no-token --data "$T/x"
has "$T/err" 'needs a token'
fails 1 veles serve --token-file "$T/no-such-file" --data "$T/x"
fails 1 veles serve --db 'postgresql://veles@/veles?host=/nonexistent/veles' --data "$T/x"
has "$T/err" 'cannot connect to postgresql://veles@/veles'
fails 2 veles serve extra-argument
echo short >"$T/short-token"
fails 1 veles serve --listen 127.0.0.1:0 --token-file "$T/short-token" --data "$T/x"
has "$T/err" 'token must have 16'

serve_start
port=${SURL##*:}
port=${port%/}

# Pages: the UI, its assets, an error page for the rest.
expect 200 GET /
grep -q '<script src="/assets/app.js"' "$T/body" || fail "no UI"
expect 200 GET /assets/app.js
expect 200 GET /assets/app.css
expect 404 GET /nowhere
has "$T/body" '<h1>404 Not found</h1>'
expect 204 GET /favicon.ico
expect 400 GET /assets/../serve.db '' --path-as-is
expect 400 GET '/api/sessions/%zz'
expect 400 GET '/api/%00'

# The token: needed by the API, in a header, the query or the cookie.
code=$(curl -s -o "$T/body" -w '%{http_code}' "${SURL}api/info")
[ "$code" = 401 ] || fail "no token: $code"
has "$T/body" '"error":"a token is needed'
code=$(curl -s -o "$T/body" -w '%{http_code}' -H 'X-Veles-Token: wrong-token-0123456789' "${SURL}api/info")
[ "$code" = 401 ] || fail "wrong token: $code"
code=$(curl -s -o "$T/body" -w '%{http_code}' "${SURL}api/info?token=$STOKEN")
[ "$code" = 200 ] || fail "token in the query: $code"
curl -s -D "$T/head" -o /dev/null "${SURL}?token=$STOKEN"
has "$T/head" '^HTTP/1.1 303'
has "$T/head" "^Set-Cookie: veles_token_$port=$STOKEN; Path=/; HttpOnly; SameSite=Strict"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "veles_token_$port=$STOKEN" "${SURL}api/info")
[ "$code" = 200 ] || fail "token in the cookie: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "${SURL}?token=not-the-token-at-all")
[ "$code" = 401 ] || fail "a wrong token in the page's address: $code"
# Another Host (DNS rebinding) is refused; changes need X-Veles-CSRF and
# an Origin, when sent, that is ours.
expect 403 GET /api/info '' -H "Host: attacker.example:$port"
code=$(curl -s -o "$T/body" -w '%{http_code}' -H "Authorization: Bearer $STOKEN" \
	-H 'Content-Type: application/json' -d '{"title":"x"}' "${SURL}api/sessions")
[ "$code" = 403 ] || fail "POST without X-Veles-CSRF: $code"
has "$T/body" 'X-Veles-CSRF'
expect 403 POST /api/sessions '{"title":"x"}' -H 'Origin: http://attacker.example'
expect 201 POST /api/sessions '{"title":"x"}' -H "Origin: http://127.0.0.1:$port"

expect 200 GET /api/info
[ "$(jq_ 'd["database"]')" = sqlite ] || fail "info"

# Events: the list of veles list, searchable, with this session's uses.
expect 200 GET /api/events
jq_ '[e for e in d["events"] if e["name"] == "page-faults"][0]["description"]' | grep -q 'page faults' ||
	fail "no page-faults in the events"
expect 200 GET '/api/events?q=served%20without'
[ "$(jq_ '[e["name"] for e in d["events"]]')" = "['minor-faults']" ] || fail "events search"
expect 400 GET '/api/events?session=not-an-id'
expect 405 POST /api/events '{}'

# Sessions.
expect 201 POST /api/sessions '{"title":"loops <script>alert(1)</script>"}'
S=$(jq_ 'd["id"]')
[ "$(jq_ 'd["title"]')" = 'loops <script>alert(1)</script>' ] || fail "title not kept as it is"
expect 400 POST /api/sessions '{"title":""}'
expect 400 POST /api/sessions 'not json'
expect 400 POST /api/sessions '[1,2]'
expect 400 POST /api/sessions '{"title":5}'
head -c 300000 /dev/zero | tr '\0' 'a' >"$T/big"
expect 413 POST /api/sessions '' --data-binary @"$T/big" -H 'Content-Type: application/json'
expect 200 GET '/api/sessions?q=LOOPS'
[ "$(jq_ 'len(d["sessions"])')" = 1 ] || fail "search by title"
expect 200 GET "/api/sessions?q=${S:0:13}"
[ "$(jq_ 'd["sessions"][0]["id"]')" = "$S" ] || fail "search by id"
expect 200 GET '/api/sessions?q=no-such-session'
[ "$(jq_ 'len(d["sessions"])')" = 0 ] || fail "search matched nothing"
expect 404 GET /api/sessions/00000000-0000-4000-8000-000000000000
expect 404 GET /api/sessions/not-a-uuid
expect 405 PUT "/api/sessions/$S" '{}'
expect 404 GET /api/no-such-thing
# Bounded requests: the address, its parts, its parameters.
expect 400 GET "/api/sessions?q=$(head -c 5000 /dev/zero | tr '\0' a)"
has "$T/body" 'longer than 4096'
expect 400 GET /api/a/b/c/d/e/f/g/h/i
expect 400 GET "/api/sessions?$(for i in $(seq 40); do printf 'p%d=1&' "$i"; done)"
head -c 300000 /dev/zero | tr '\0' 'a' >"$T/bigrun"
expect 413 POST /api/runs '' --data-binary @"$T/bigrun" -H 'Content-Type: application/json'

# Runs refused with a reason.
run() { # run JSON-FIELDS: POST /api/runs in session $S
	req POST /api/runs "{\"session\":\"$S\",$1}"
}
run '"events":["task-clock"]'
[ "$code" = 400 ] && has "$T/body" 'give a command' || fail "run without a workload: $code"
run '"events":["no-such-event"],"command":"true"'
[ "$code" = 400 ] && has "$T/body" "unknown event 'no-such-event'" || fail "unknown event: $code"
run '"events":[],"command":"true"'
[ "$code" = 400 ] && has "$T/body" 'at least one event' || fail "stat without events: $code"
run '"events":["task-clock"],"command":"true","pid":1'
[ "$code" = 400 ] || fail "command and pid: $code"
run '"events":["task-clock"],"command":"true","env":"1BAD=x"'
[ "$code" = 400 ] && has "$T/body" 'NAME=VALUE' || fail "bad environment: $code"
run '"events":["task-clock"],"command":"true","env":"A=\"unterminated"'
[ "$code" = 400 ] || fail "unterminated quote: $code"
run '"tool":"record","events":["task-clock","page-faults"],"command":"true"'
[ "$code" = 400 ] && has "$T/body" 'several tracepoints' || fail "record of two events: $code"
run '"tool":"trace","events":["task-clock"],"command":"true"'
[ "$code" = 400 ] || fail "unknown tool: $code"
run '"events":["task-clock"],"command":"true","interval_ms":-1'
[ "$code" = 400 ] || fail "negative interval: $code"
expect 400 POST /api/runs '{"session":"00000000-0000-4000-8000-000000000000","events":["task-clock"],"command":"true"}'

if ! can_count; then
	echo "skipped the runs: perf_event_open refuses software events here"
	exit 77
fi

# A stat run: environment, output, exit status, its series.
run '"events":["task-clock","page-faults"],"interval_ms":10,"command":"echo out $COUNT $THREAD_NUM; echo err >&2; head -c 3000000 /dev/zero | od >/dev/null; exit 3","env":"COUNT=7 THREAD_NUM=\"1 2\"","screen":{"search":"fault","histogram":{"event":"page-faults"}}'
[ "$code" = 201 ] || { cat "$T/body"; fail "stat run: $code"; }
R1=$(jq_ 'd["id"]')
wait_run "$R1"
[ "$(jq_ 'd["state"], d["exit_status"]')" = "done 3" ] || fail "stat run: $(cat "$T/body")"
[ "$(jq_ 'd["screen"]["histogram"]["event"]')" = page-faults ] || fail "screen state not kept"
rows=$(jq_ 'd["rows"]')
[ "$rows" -ge 1 ] || fail "no rows"
expect 200 GET "/api/runs/$R1/output?stream=stdout"
[ "$(jq_ 'd["text"]')" = "out 7 1 2" ] || fail "stdout: $(cat "$T/body")"
expect 200 GET "/api/runs/$R1/output?stream=stderr"
[ "$(jq_ 'd["text"]')" = "err" ] || fail "stderr"
expect 400 GET "/api/runs/$R1/output?stream=stdin"
expect 200 GET "/api/runs/$R1/output?stream=stdout&from=4"
[ "$(jq_ 'd["from"], d["text"]')" = "4 7 1 2" ] || fail "stdout from a byte: $(cat "$T/body")"
expect 200 GET "/api/runs/$R1/output?stream=stdout&download=1"
[ "$(cat "$T/body")" = "out 7 1 2" ] || fail "stdout downloaded: $(cat "$T/body")"
expect 200 GET "/api/runs/$R1/series?points=1000"
[ "$(jq_ 'd["columns"], d["units"], d["exact"], d["rows"] == len(d["t"])')" = "['task-clock', 'page-faults'] ['msec', ''] True True" ] ||
	fail "series: $(head -c 300 "$T/body")"
expect 200 GET "/api/runs/$R1/series?points=1"
[ "$(jq_ 'd["exact"] or len(d["t"]) <= 2')" = True ] || fail "summary of one point"
expect 400 GET "/api/runs/$R1/series?points=0"
# A window of the run: its rows exactly, none outside it.
expect 200 GET "/api/runs/$R1/series?from=0&to=0.015&points=1000"
jq_ 'd["exact"] and d["total_rows"] == '"$rows"' and all(0 <= t <= 0.015 for t in d["t"]) and len(d["t"]) == d["rows"]' |
	grep -qx True || fail "a window of the series: $(head -c 300 "$T/body")"
expect 400 GET "/api/runs/$R1/series?from=abc"
expect 200 GET "/api/runs/$R1/totals"
faults=$(jq_ 'int(d["sums"][1])')
[ "$faults" -gt 100 ] || fail "page faults summed: $faults"
expect 200 GET "/api/runs/$R1/histogram?column=page-faults&bins=5"
[ "$(jq_ 'len(d["edges"]), sum(d["counts"])')" = "6 $rows" ] || fail "histogram"
expect 400 GET "/api/runs/$R1/histogram?column=cycles"
expect 400 GET "/api/runs/$R1/histogram?column=page-faults&bins=0"
expect 404 GET "/api/runs/$R1/report"
expect 404 GET "/api/runs/$R1/nothing"
expect 200 GET "/api/runs/$R1/csv"
head -1 "$T/body" | grep -qx 'time,"task-clock","page-faults"' || fail "CSV header"
[ "$(($(wc -l <"$T/body") - 1))" = "$rows" ] || fail "CSV rows"
expect 200 GET "/api/runs/$R1/raw"
head -1 "$T/body" | grep -q '^time,' || fail "a stat run's raw data is its CSV"
expect 200 GET "/api/runs/$R1/hdf5"
/usr/bin/python3 - "$T/body" "$R1" "$rows" <<'EOS' || fail "HDF5 of a stat run"
import sys, h5py
f = h5py.File(sys.argv[1])
g = f["run_" + sys.argv[2].replace("-", "_")]
assert g.attrs["tool"] == b"stat", dict(g.attrs)
assert g.attrs["exit_status"] == 3
v = g["stat/block0_values"]
assert v.shape == (int(sys.argv[3]), 2), v.shape
assert list(g["stat/axis0"]) == [b"task-clock", b"page-faults"]
try:
    import pandas
except ImportError:
    sys.exit(0)
df = pandas.read_hdf(sys.argv[1], "run_" + sys.argv[2].replace("-", "_") + "/stat")
assert list(df.columns) == ["task-clock", "page-faults"] and len(df) == int(sys.argv[3]), df
EOS
# The live stream of a finished run: everything, then the end; resumed
# from its last id, nothing again.
curl -s -N -H "Authorization: Bearer $STOKEN" "${SURL}api/runs/$R1/live" >"$T/sse"
has "$T/sse" '^event: rows$'
has "$T/sse" '^data: \{"stream":"stdout","from":0,"text":"out 7 1 2\\n"\}'
tail -4 "$T/sse" | grep -q "^event: end$" || fail "no end event"
last=$(grep '^id: ' "$T/sse" | tail -1 | cut -d' ' -f2)
curl -s -N -H "Authorization: Bearer $STOKEN" -H "Last-Event-ID: $last" "${SURL}api/runs/$R1/live" >"$T/sse2"
hasnt "$T/sse2" '^event: (rows|output)$'
has "$T/sse2" '^event: end$'

# A run every millisecond, followed live from its queueing: every row
# once, in order; rows closer than the stream's gap (20 ms) go together.
run '"events":["task-clock"],"interval_ms":1,"command":"sleep 1"'
R0=$(jq_ 'd["id"]')
curl -s -N -H "Authorization: Bearer $STOKEN" "${SURL}api/runs/$R0/live" >"$T/sse0"
wait_run "$R0"
/usr/bin/python3 - "$T/sse0" "$(jq_ 'd["rows"]')" <<'EOS' || fail "a 1 ms run's stream"
import json, sys
msgs = [json.loads(l[6:]) for l in open(sys.argv[1]) if l.startswith('data: {"from"')]
rows = int(sys.argv[2])
assert rows > 200, rows
assert [m["from"] for m in msgs] == [sum(len(p["t"]) for p in msgs[:i]) for i in range(len(msgs))]
assert sum(len(m["t"]) for m in msgs) == rows, (sum(len(m["t"]) for m in msgs), rows)
assert len(msgs) < rows / 4, f"{len(msgs)} messages for {rows} rows"
EOS
expect 204 DELETE "/api/runs/$R0"

# A record run: the hot function, the flame graph, the record file.
cc -O1 -g -o "$T/hot" "$VELES_SRCDIR/tests/cli/serve_hot.c" || fail "cc"
run "\"tool\":\"record\",\"events\":[],\"freq\":2000,\"callgraph\":true,\"command\":\"$T/hot 300000000\""
[ "$code" = 201 ] || fail "record run: $code"
R2=$(jq_ 'd["id"]')
wait_run "$R2"
[ "$(jq_ 'd["state"]')" = done ] || fail "record run: $(cat "$T/body")"
expect 200 GET "/api/runs/$R2/report"
[ "$(jq_ 'd["rows"][0]["symbol"]')" = hot_spin ] || fail "hot function: $(head -c 400 "$T/body")"
expect 200 GET "/api/runs/$R2/flame"
jq_ 'json.dumps(d)' | grep -q '"n": "hot_spin"' || fail "no hot_spin in the flame graph"
expect 200 GET "/api/runs/$R2/raw"
cp "$T/body" "$T/rec.data"
ok veles report -i "$T/rec.data"
has "$T/out" 'hot_spin'
expect 200 GET "/api/runs/$R2/hdf5"
/usr/bin/python3 - "$T/body" "$R2" <<'EOS' || fail "HDF5 of a record run"
import sys, h5py
g = h5py.File(sys.argv[1])["run_" + sys.argv[2].replace("-", "_")]
assert g["hot/axis1"][0] == b"hot_spin", list(g["hot/axis1"])
assert g["events/block0_values"].shape[1] == 7
assert list(g["samples/axis0"]) == [b"samples", b"period"]
EOS

# One run at a time: the second waits, queued; cancel it, then stop the
# first; cancelling again is a conflict.
run '"events":["task-clock"],"command":"sleep 30"'
R3=$(jq_ 'd["id"]')
run '"events":["task-clock"],"command":"sleep 30"'
R4=$(jq_ 'd["id"]')
for _ in $(seq 100); do
	req GET /api/queue
	[ "$(jq_ 'd["running"] and d["running"]["id"]')" = "$R3" ] && break
	sleep 0.1
done
[ "$(jq_ 'd["running"]["id"], [r["id"] for r in d["queued"]] == ["'"$R4"'"], d["queued"][0]["position"]')" = "$R3 True 0" ] ||
	fail "queue: $(cat "$T/body")"
expect 200 POST "/api/runs/$R4/cancel"
[ "$(jq_ 'd["state"]')" = canceled ] || fail "queued run not canceled"
expect 200 POST "/api/runs/$R3/cancel"
wait_run "$R3"
[ "$(jq_ 'd["state"], d["exit_status"]')" = "canceled 143" ] || fail "running run: $(cat "$T/body")"
expect 409 POST "/api/runs/$R3/cancel"
expect 405 GET "/api/runs/$R3/cancel"

# Attached to a PID: counts until stopped; stopping ends it as done.
sleep 60 &
sleeper=$!
run "\"events\":[\"task-clock\"],\"interval_ms\":50,\"pid\":$sleeper"
R5=$(jq_ 'd["id"]')
for _ in $(seq 100); do
	req GET "/api/runs/$R5"
	[ "$(jq_ 'd["state"]')" = running ] && break
	sleep 0.1
done
expect 200 POST "/api/runs/$R5/cancel"
wait_run "$R5"
[ "$(jq_ 'd["state"], d["exit_status"]')" = "done None" ] || fail "attached run: $(cat "$T/body")"
kill -0 "$sleeper" || fail "stopping an attached run killed the process"
# A thread: counted until it ends (here its process is killed).
run "\"events\":[\"task-clock\"],\"interval_ms\":50,\"tid\":$sleeper"
R7=$(jq_ 'd["id"]')
for _ in $(seq 100); do
	req GET "/api/runs/$R7"
	[ "$(jq_ 'd["state"]')" = running ] && break
	sleep 0.1
done
kill "$sleeper"
wait_run "$R7"
[ "$(jq_ 'd["state"], d["tid"]')" = "done $sleeper" ] || fail "attached thread: $(cat "$T/body")"
run '"events":["task-clock"],"tid":1073741823'
R8=$(jq_ 'd["id"]')
wait_run "$R8"
[ "$(jq_ 'd["state"], d["error"]')" = "failed no thread 1073741823" ] || fail "no such thread: $(cat "$T/body")"

# A session's runs in one HDF5 file: every run that has data.
expect 200 GET "/api/sessions/$S/hdf5"
/usr/bin/python3 - "$T/body" "$R1" "$R2" "$R4" <<'EOS' || fail "HDF5 of a session"
import sys, h5py
f = h5py.File(sys.argv[1])
g = lambda r: "run_" + r.replace("-", "_")
assert g(sys.argv[2]) in f and g(sys.argv[3]) in f, list(f)
assert f[g(sys.argv[2])].attrs["tool"] == b"stat" and f[g(sys.argv[3])].attrs["tool"] == b"record"
assert "stat" not in f.get(g(sys.argv[4]), {}), "a run canceled while queued has no table"
EOS
expect 404 GET /api/sessions/00000000-0000-4000-8000-000000000000/hdf5
expect 404 GET "/api/runs/$R4/csv"
has "$T/body" "the run has no series"
expect 404 GET "/api/runs/00000000-0000-4000-8000-000000000000/live"

# Deleting a running run stops it first.
run '"events":["task-clock"],"command":"sleep 29.'$$'"'
R9=$(jq_ 'd["id"]')
for _ in $(seq 100); do
	req GET "/api/runs/$R9"
	[ "$(jq_ 'd["state"]')" = running ] && break
	sleep 0.1
done
expect 204 DELETE "/api/runs/$R9"
expect 404 GET "/api/runs/$R9"
[ -e "$T/data/runs/$R9" ] && fail "a running run deleted keeps its files"
for _ in $(seq 30); do pgrep -xf "sleep 29.$$" >/dev/null || break; sleep 0.1; done
pgrep -xf "sleep 29.$$" >/dev/null && fail "a deleted running run's command still runs"
expect 200 GET /api/queue
[ "$(jq_ 'd["running"]')" = None ] || fail "a deleted run still runs: $(cat "$T/body")"

# Lists, then deleting a run and a session takes their files.
expect 200 GET "/api/runs?session=$S"
[ "$(jq_ 'len(d["runs"])')" = 7 ] || fail "runs of the session"
expect 200 GET "/api/runs?session=$S&state=canceled"
[ "$(jq_ 'len(d["runs"])')" = 2 ] || fail "runs by state"
expect 400 GET "/api/runs?session=bad"
expect 200 GET "/api/events?session=$S"
[ "$(jq_ 'd["uses"]["task-clock"], d["uses"]["page-faults"]')" = "6 1" ] || fail "uses: $(jq_ 'd["uses"]')"
[ -d "$T/data/runs/$R1" ] || fail "no files for a run"
expect 204 DELETE "/api/runs/$R1"
[ -e "$T/data/runs/$R1" ] && fail "a deleted run's files stay"
expect 404 GET "/api/runs/$R1"
expect 404 DELETE "/api/runs/$R1"
expect 204 DELETE "/api/sessions/$S"
[ -e "$T/data/runs/$R2" ] && fail "a deleted session's runs' files stay"
expect 404 GET "/api/runs/$R2"
expect 404 GET "/api/sessions/$S"

# A run the last server left running (killed, its machine lost) goes back
# to the queue at the next start and runs again; a database from a newer
# veles is refused.
expect 201 POST /api/sessions '{"title":"again"}'
S=$(jq_ 'd["id"]')
run '"events":["task-clock"],"command":"true"'
R6=$(jq_ 'd["id"]')
wait_run "$R6"
serve_stop
sqlite3 "$T/data/serve.db" "UPDATE runs SET state = 'running' WHERE id = '$R6'"
[ "$(sqlite3 "$T/data/serve.db" 'SELECT version FROM schema_version')" = 3 ] || fail "schema version"
serve_start
wait_run "$R6"
[ "$(jq_ 'd["state"], d["attempts"]')" = "done 2" ] || fail "abandoned run: $(cat "$T/body")"
has "$T/serve.log" 'were running when the last server stopped: 1 back in the queue'
serve_stop
# Claimed thrice and lost each time: failed.
sqlite3 "$T/data/serve.db" "UPDATE runs SET state = 'running', attempts = 3 WHERE id = '$R6'"
serve_start
expect 200 GET "/api/runs/$R6"
[ "$(jq_ 'd["state"], d["error"]')" = "failed its runner stopped answering, each time it was claimed" ] ||
	fail "abandoned run: $(cat "$T/body")"
serve_stop
sqlite3 "$T/data/serve.db" 'UPDATE schema_version SET version = 99'
fails 1 veles serve --listen 127.0.0.1:0 --data "$T/data"
has "$T/err" 'schema 99, from a newer veles'
exit 0
