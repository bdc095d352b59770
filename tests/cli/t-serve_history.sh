#!/bin/bash
# veles serve's index of the project's store (GET /api/project/versions,
# /metrics, /history): the versions with their refs and check's verdict, a
# planted slowdown's verdict and change point, a profile added and one
# pulled seen by the next request, and --export writing the same answers
# as files. t-serve_history_pg.sh runs it all on PostgreSQL.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v curl >/dev/null || { echo "skipped: needs curl"; exit 77; }

DBARGS=()
if [ "${HIST_PG:-}" = 1 ]; then
	pg_start
	DBARGS=(--db "$PG_URL")
fi
cleanup() {
	serve_stop
	pg_stop
	rm -rf "$T"
}

new_git_project p
cp "$VELES_SRCDIR/examples/list_search.c" .
cc -O2 -o fast list_search.c || fail "cc"
cc -O2 -DSLOW=1 -o slow list_search.c || fail "cc"
measure() { # BINARY [ARGS]
	cp "$1" prog
	veles collect time -r 5 -q -o suppress -- ./prog "${2:-6000}" 6000 2>/dev/null || fail collect
	ok veles add -q 0@p
}
for v in 1 2 3 4 5 6; do
	commit_change "version $v"
	if [ "$v" -lt 4 ]; then measure fast; else measure slow; fi
done
fourth=$(git rev-parse HEAD~2)
git tag v1.0 "$fourth"

# GET /api/project/versions once no verdict is still being made (check's
# statistics run in the background when a request has not the time).
versions() {
	for _ in $(seq 200); do
		expect 200 GET "/api/project/versions${1:-}"
		[ "$(jq_ 'any(v.get("verdict_pending") for v in d["versions"])')" = False ] && return
		sleep 0.1
	done
	fail "verdicts still pending: $(cat "$T/body")"
}

serve_start "${DBARGS[@]}"
trap cleanup EXIT
versions
# Six measured versions after new_git_project's first one.
[ "$(jq_ 'd["total"]')" = 7 ] || fail "7 versions: $(cat "$T/body")"
[ "$(jq_ 'd["versions"][0]["id"]')" = "$(git rev-parse HEAD)" ] || fail "newest first"
[ "$(jq_ '[r["name"] for r in d["versions"][0]["refs"]]')" = "['HEAD', 'main']" ] ||
	fail "refs at HEAD: $(jq_ 'd["versions"][0]["refs"]')"
[ "$(jq_ 'd["versions"][2]["id"]')" = "$fourth" ] || fail "log order"
[ "$(jq_ 'd["versions"][2]["refs"][0]')" = "{'name': 'v1.0', 'kind': 'tag'}" ] || fail "the tag"
[ "$(jq_ 'd["versions"][2]["parents"][0]')" = "$(git rev-parse HEAD~3)" ] || fail "parents"
# The slowdown: check against its parent calls it a degradation, more than
# +50% (the slow build takes twice as long), with an interval around it.
jq_ 'd["versions"][2]["verdict"]["class"]' | grep -q 'Degradation$' ||
	fail "slowdown's verdict: $(jq_ 'd["versions"][2]')"
jq_ '1 if d["versions"][2]["verdict"]["change"] > 0.5 else 0' | grep -qx 1 || fail "its change"
jq_ '1 if d["versions"][2]["verdict"]["interval"][0] > 0.3 else 0' | grep -qx 1 || fail "interval"
[ "$(jq_ 'd["versions"][5]["verdict"]')" = None ] || fail "the first version has no parent"
[ "$(jq_ 'd["versions"][5]["profiles"]')" = 1 ] || fail "profiles"
# Paging.
expect 200 GET '/api/project/versions?limit=2'
[ "$(jq_ 'len(d["versions"])')" = 2 ] || fail "limit"
next=$(jq_ 'd["next"]')
expect 200 GET "/api/project/versions?limit=10&after=$next"
[ "$(jq_ 'len(d["versions"])')" = 5 ] && [ "$(jq_ 'd["next"]')" = None ] || fail "after"
expect 404 GET '/api/project/versions?after=0000000000000000000000000000000000000000'
expect 400 GET '/api/project/versions?limit=x'

expect 200 GET /api/project/metrics
user=$(jq_ '[m["id"] for m in d["metrics"] if m["location"] == "./prog [user]"][0]')
[ "$(jq_ '[m for m in d["metrics"] if m["id"] == '"$user"'][0]["points"]')" = 6 ] || fail "points"
[ "$(jq_ 'd["metrics"][0]["collector"]')" = time ] || fail "collector"
expect 200 GET "/api/project/history?series=$user"
python3 - "$T/body" "$fourth" <<'PY' || fail "history: $(cat "$T/body")"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["history"]["points"]
assert d["location"] == "./prog [user]" and d["unit"] == "s"
assert [v["id"] for v in d["versions"]] == [p["version"] for p in pts] and len(pts) == 6
cp = [p["version"] for p in pts if p["change_point"]]
assert sys.argv[2] in cp, cp
assert [p for p in pts if p["version"] == sys.argv[2]][0]["shift"] > 0.5
assert len(d["profiles"]) == 6
PY
expect 400 GET /api/project/history
expect 404 GET '/api/project/history?series=999'

# A profile added: the next request sees it.
commit_change "version 7"
measure fast
versions
[ "$(jq_ 'd["total"]')" = 8 ] || fail "the new version"
[ "$(jq_ 'd["versions"][0]["profiles"]')" = 1 ] || fail "its profile"
jq_ 'd["versions"][0]["verdict"]["class"]' | grep -q 'Optimization$' || fail "back to fast"
# A second profile of the same configuration replaces the first's point.
measure fast
expect 200 GET /api/project/versions?limit=1
[ "$(jq_ 'd["versions"][0]["profiles"]')" = 2 ] || fail "two profiles"
expect 200 GET "/api/project/history?series=$user"
[ "$(jq_ 'len(d["history"]["points"])')" = 7 ] || fail "one point per version"

# A pull: a clone measures another workload on the second version.
git clone -q "$T/p" "$T/q" || fail clone
(
	cd "$T/q" && git checkout -q HEAD~5 && cp "$T/p/fast" prog &&
		"$VELES" collect time -r 3 -q -o suppress -- ./prog 4000 6000 2>/dev/null &&
		"$VELES" add -q 0@p
) >/dev/null 2>&1 || fail "the clone's profile"
ok veles pull "$T/q"
expect 200 GET /api/project/metrics
[ "$(jq_ 'len([m for m in d["metrics"] if m["workload"] == "4000 6000"])')" -ge 3 ] ||
	fail "the pulled profile's series: $(cat "$T/body")"
expect 200 GET /api/project/versions
[ "$(jq_ 'd["versions"][5]["profiles"]')" = 2 ] || fail "the pulled profile's version"
serve_stop

# The static site: the pages and every answer they read.
ok veles serve --export "$T/site" "${DBARGS[@]}"
for f in index.html assets/app.js assets/app.css api/project.json api/project/versions.json \
	api/project/metrics.json "api/project/history@series_3d$user.json" .nojekyll; do
	[ -f "$T/site/$f" ] || fail "export: no $f"
done
grep -q 'name="veles-static"' "$T/site/index.html" || fail "the static mark"
[ -f "$T/site/api/project/versions/$fourth.json" ] || fail "export: the version's page"
[ "$(ls "$T/site/api/project/profiles" | wc -l)" -ge 9 ] || fail "export: the profiles' pages"
grep -q 'src="./assets/app.js"' "$T/site/index.html" || fail "relative assets"
# Each profile's views: pages for a frame as .html, as a file server sends them.
ls "$T"/site/api/project/profiles/*/views/resources.html >/dev/null 2>&1 || fail "export: the views"
grep -qi '<html' "$(ls "$T"/site/api/project/profiles/*/views/resources.html | head -1)" ||
	fail "export: a view is no HTML page"
# The diff each version's page links to (with its first parent).
parent=$(git rev-parse "$fourth^")
f="$T/site/api/project/diff@a_3d$parent&b_3d$fourth.json"
[ -f "$f" ] || fail "export: no diff of $fourth with its parent"
[ "$(jq_ 'len(d["pairs"])' "$f")" -ge 1 ] || fail "export: the diff has no pair"
[ "$(jq_ 'len(d["versions"])' "$T/site/api/project/versions.json")" = 8 ] || fail "all versions"
# Its index was made here from nothing (the server had its own --data):
# the export waited for every verdict.
hasnt "$T/site/api/project/versions.json" verdict_pending
fails 2 veles serve --export "$T/x" --runner
echo ok
