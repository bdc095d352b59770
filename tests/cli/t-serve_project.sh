#!/bin/bash
# veles serve in a project: /api/project names it and its current version,
# the pages under /p/ are served (and not outside a project), and
# --read-only refuses every request that would change something.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v curl >/dev/null || { echo "skipped: needs curl"; exit 77; }

# Outside a project: no project pages.
mkdir "$T/plain" && cd "$T/plain"
serve_start
expect 404 GET /api/project
has "$T/body" 'shows no project'
expect 404 GET /p
serve_stop

new_git_project proj
commit_change "the first version"
serve_start --read-only
expect 200 GET /api/project
[ "$(jq_ 'd["name"]')" = proj ] || fail "name: $(cat "$T/body")"
[ "$(jq_ 'd["vcs"]')" = git ] || fail "vcs"
[ "$(jq_ 'd["head"]["id"]')" = "$(git rev-parse HEAD)" ] || fail "head"
[ "$(jq_ 'd["head"]["summary"]')" = "the first version" ] || fail "summary"
[ "$(jq_ 'd["read_only"]')" = True ] || fail "read_only"
expect 404 GET /api/project/nosuch
expect 200 GET /p
grep -q '<script src="/assets/app.js"' "$T/body" || fail "no UI at /p"
expect 200 GET /p/anything/below
# Read-only: reading works, writing is refused whatever it is.
expect 200 GET /api/sessions
expect 403 POST /api/sessions '{"title":"x"}'
has "$T/body" 'read-only'
expect 403 DELETE /api/sessions/00000000-0000-4000-8000-000000000000
serve_stop

# Writable by default.
serve_start
expect 200 GET /api/project
[ "$(jq_ 'd["read_only"]')" = False ] || fail "read_only by default"
expect 405 POST /api/project
expect 201 POST /api/sessions '{"title":"x"}'
serve_stop
echo ok
