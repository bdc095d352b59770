# Shared by the tests of veles serve (sourced after lib.sh): a server on a
# free loopback port, requests with curl, JSON picked with python3.

# serve_start [ARGS...]: starts `veles serve` in the background with its
# data in $T/data; sets SURL (http://127.0.0.1:PORT/), STOKEN and SPID.
serve_start() {
	# The machine's run lock of its own: runs of servers elsewhere on
	# this machine (other tests, a benchmark) must not hold ours back.
	export XDG_RUNTIME_DIR="$T"
	# Emptied here, not by the background job's redirection: that one may
	# come after the first look, which would read the last server's address.
	: >"$T/serve.log"
	"$VELES" serve --listen 127.0.0.1:0 --data "$T/data" "$@" >"$T/serve.log" 2>&1 &
	SPID=$!
	wait_started "$SPID" "$T/serve.log" '^veles serve: open ' "veles serve"
	SURL=$(sed -n 's/^veles serve: open \(http:[^?]*\).*/\1/p' "$T/serve.log")
	STOKEN=$(sed -n 's/^veles serve: open .*?token=//p' "$T/serve.log")
	[ -n "$SURL" ] || { cat "$T/serve.log" >&2; fail "no address printed"; }
	trap 'serve_stop; pg_stop; rm -rf "$T"' EXIT
}

# wait_started PID LOG PATTERN WHAT: until a process started in the
# background says it is ready (a line of LOG matches PATTERN); fails with
# its log when it exits first or says nothing for 10 s.
wait_started() {
	for _ in $(seq 100); do
		grep -q "$3" "$2" && return 0
		kill -0 "$1" 2>/dev/null || { cat "$2" >&2; fail "$4 exited"; }
		sleep 0.1
	done
	cat "$2" >&2
	fail "$4 did not start"
}

# serve_stop: stops it as Ctrl-C would; a clean exit, and nothing the
# sanitizers found, or the test fails.
serve_stop() {
	local st=0
	if [ -n "${SPID:-}" ] && kill -0 "$SPID" 2>/dev/null; then
		kill -INT "$SPID"
		wait "$SPID" 2>/dev/null || st=$?
	fi
	SPID=
	if grep -Eq 'Sanitizer|runtime error' "$T/serve.log" 2>/dev/null; then
		cat "$T/serve.log" >&2
		fail "the sanitizers found something in veles serve"
	fi
	[ "$st" -eq 0 ] || { cat "$T/serve.log" >&2; fail "veles serve exited $st"; }
}

# req METHOD PATH [JSON] [CURL-ARGS...]: the token and the anti-CSRF header
# sent; the status in $code, the body in $T/body.
req() {
	local method=$1 path=$2 body=${3:-}
	shift $(($# < 3 ? $# : 3))
	local args=(-s -o "$T/body" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $STOKEN"
		-H 'X-Veles-CSRF: 1')
	[ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
	code=$(curl "${args[@]}" "$@" "${SURL%/}$path")
}

# expect STATUS METHOD PATH [JSON] [CURL-ARGS...]
expect() {
	local want=$1
	shift
	req "$@"
	[ "$code" = "$want" ] || { cat "$T/body" >&2; fail "expected $want, got $code: $*"; }
}

# jq_ EXPR [FILE]: a Python expression over the JSON document `d`.
jq_() {
	/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[2])); print($1)" \
		"$1" "${2:-$T/body}"
}

# wait_over PATH WHAT: GET PATH until its state is over (done, failed,
# canceled), 120 s at most; its JSON in $T/body.
wait_over() {
	local state
	for _ in $(seq 1200); do
		req GET "$1"
		state=$(jq_ 'd["state"]')
		case $state in done | failed | canceled) return 0 ;; esac
		sleep 0.1
	done
	fail "$2 still $state"
}

# wait_run ID: until the run is over; its JSON in $T/body.
wait_run() { wait_over "/api/runs/$1" "run $1"; }

# wait_job ID: until the project's job is over; its JSON in $T/body.
wait_job() { wait_over "/api/project/jobs/$1" "job $1"; }

# pg_start: a PostgreSQL server of the test's own (scripts/pg-temp.sh: from
# Debian's postgresql package, its socket in $T/pg, no TCP); its URL in
# PG_URL. Where the package is missing the test is skipped (77), the
# reason on stderr. serve_start's exit trap stops it; a test with its own
# trap calls pg_stop there.
pg_start() {
	local rc
	PG_DIR="$T/pg"
	PG_URL=$(sh "$VELES_SRCDIR/scripts/pg-temp.sh" start "$PG_DIR")
	rc=$?
	[ $rc -eq 77 ] && exit 77
	[ $rc -eq 0 ] || fail "cannot start PostgreSQL"
	trap 'pg_stop; rm -rf "$T"' EXIT
}

# pg_stop: stops pg_start's server, if there is one, and removes its files.
pg_stop() {
	[ -n "${PG_DIR:-}" ] || return 0
	sh "$VELES_SRCDIR/scripts/pg-temp.sh" stop "$PG_DIR"
	PG_DIR=
}

# can_count: perf_event_open works for software events here.
can_count() {
	"$VELES" stat -e task-clock -x, -- true >/dev/null 2>&1
}
