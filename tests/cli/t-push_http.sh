#!/bin/bash
# push and pull over HTTP with a token in the URL, as the CI recipes do
# (docs/ci.md): the token authenticates, and no message, nor the ledger's
# merge commit, shows it.
. "$(dirname "$0")/lib.sh"
[ -x /usr/lib/git-core/git-http-backend ] ||
	{ echo "skipped: git-http-backend is missing" >&2; exit 77; }
token=s3cret-$$-token
git init -q --bare -b main "$T/r.git"
git -C "$T/r.git" config http.receivepack true
/usr/bin/python3 "$VELES_SRCDIR/tests/cli/git_http.py" "$T" "$token" >"$T/port" 2>"$T/http.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
url="http://x-access-token:$token@127.0.0.1:$(cat "$T/port")/r.git"
shown="http://x-access-token:\*\*\*@127\.0\.0\.1:[0-9]+/r\.git"

profile() {
	/usr/bin/python3 -c 'import json, sys
json.dump({"header": {"type": "time", "cmd": "./p", "units": {"time": "s"}},
           "collector_info": {"name": "time"},
           "global": {"resources": [{"uid": "./p", "type": "time", "amount": float(sys.argv[2])}]}},
          open(sys.argv[1], "w"))' "$1" "$2"
}
new_git_project a
profile "$T/a.perf" 1 && ok veles add -q --force "$T/a.perf"
ok veles push "$url"
has "$T/out" "^pushed 1 profile in 1 version to $shown$"
hasnt "$T/out" "$token"
git --git-dir="$T/r.git" rev-parse -q --verify refs/veles/ledger >/dev/null || fail "nothing pushed"

# Another clone adds its own profile, then pulls: a merge, whose message
# names the remote without the token.
git clone -q "$T/a" "$T/b" && cd "$T/b" || fail clone
commit_change "b's change"
profile "$T/b.perf" 2 && ok veles add -q --force "$T/b.perf"
ok veles pull "$url"
has "$T/out" "^pulled 1 profile in 1 version from $shown \(merged\)"
hasnt "$T/out" "$token"
git log refs/veles/ledger --format=%B >"$T/ledger"
has "$T/ledger" "merge profiles from $shown"
hasnt "$T/ledger" "$token"
ok veles push "$url"

# A wrong token: refused in one line that does not show it either.
fails 1 veles pull "http://x-access-token:wrong-$token@127.0.0.1:$(cat "$T/port")/r.git"
has "$T/err" "authentication"
hasnt "$T/err" "wrong-$token"
