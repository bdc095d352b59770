#!/bin/bash
# The project's history page of veles serve in headless Chromium (see
# serve-history.mjs): find the planted slowdown on the chart, hover shows
# its commit, a click opens its version page, Shift+click two points opens
# their diff; the versions list with the slowdown's verdict; and the same
# page from `veles serve --export` on a plain file server. Skipped (77)
# without chromium, node or web/node_modules.
. "$(dirname "$0")/needs.sh"
. "$VELES_SRCDIR/tests/cli/lib.sh"
. "$VELES_SRCDIR/tests/cli/serve-lib.sh"
new_git_project p
for v in $(seq 1 12); do
	commit_change "version $v: <b>tweak</b>"
	python3 "$VELES_SRCDIR/tests/cli/history_profile.py" "$T/p.perf" "$v" 8
	"$VELES" add -q --force "$T/p.perf" || fail "add"
done
slow=$(git rev-parse HEAD~4)
serve_start
# check's verdicts made (in the background when a request has not the time).
for _ in $(seq 300); do
	expect 200 GET /api/project/versions
	grep -q verdict_pending "$T/body" || break
	sleep 0.1
done
export SURL STOKEN SLOW="$slow" BEFORE="$(git rev-parse HEAD~5)"
node "$VELES_SRCDIR/tests/browser/serve-history.mjs" server >"$T/result" || { cat "$T/result"; fail "browser"; }
cat "$T/result"
serve_stop

# The static export, served by a plain file server.
ok veles serve --export "$T/site"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$T/site" >"$T/http.log" 2>&1 &
HPID=$!
trap 'kill $HPID 2>/dev/null; wait $HPID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/index.html" >/dev/null && break; sleep 0.1; done
SURL="http://127.0.0.1:$port/" node "$VELES_SRCDIR/tests/browser/serve-history.mjs" static >"$T/result" ||
	{ cat "$T/result"; fail "browser, static"; }
cat "$T/result"
