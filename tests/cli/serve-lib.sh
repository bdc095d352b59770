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
	for _ in $(seq 100); do
		grep -q '^veles serve: open ' "$T/serve.log" && break
		kill -0 "$SPID" 2>/dev/null || { cat "$T/serve.log" >&2; fail "veles serve exited"; }
		sleep 0.1
	done
	SURL=$(sed -n 's/^veles serve: open \(http:[^?]*\).*/\1/p' "$T/serve.log")
	STOKEN=$(sed -n 's/^veles serve: open .*?token=//p' "$T/serve.log")
	[ -n "$SURL" ] || { cat "$T/serve.log" >&2; fail "no address printed"; }
	trap 'serve_stop; rm -rf "$T"' EXIT
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

# wait_run ID: until the run is over (done, failed, canceled); its JSON in $T/body.
wait_run() {
	local state
	for _ in $(seq 600); do
		req GET "/api/runs/$1"
		state=$(jq_ 'd["state"]')
		case $state in done | failed | canceled) return 0 ;; esac
		sleep 0.1
	done
	fail "run $1 still $state"
}

# can_count: perf_event_open works for software events here.
can_count() {
	"$VELES" stat -e task-clock -x, -- true >/dev/null 2>&1
}
