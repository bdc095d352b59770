#!/bin/bash
# veles log: versions with their profiles, oneline, json, limits, revisions.
. "$(dirname "$0")/lib.sh"
new_git_project p
veles collect time -r 1 -q -- true 2>/dev/null && ok veles add -q 0@p
commit_change second
commit_change third
veles collect time -r 1 -q -- true 2>/dev/null && ok veles add -q 0@p
sleep 1
veles collect time -r 1 -q -- sh -c true 2>/dev/null && ok veles add -q 0@p

ok veles log --oneline
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "expected 3 versions"
has "$T/out" "^[0-9a-f]{7} \[2 profiles: 2 time\] third$"
has "$T/out" "^[0-9a-f]{7} \[no profiles\] second$"
has "$T/out" "^[0-9a-f]{7} \[1 profile: 1 time\] first version$"

ok veles log
has "$T/out" "^version [0-9a-f]{40}$"
has "$T/out" "^Author:   Test Author <author@example.com>$"
has "$T/out" "^Profiles: 2 profiles: 2 time$"
has "$T/out" "^    second$"

ok veles log -n 1 --oneline
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "-n 1"
ok veles log --oneline HEAD~1
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "log REV"
ok veles log --profiles-only --oneline
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "--profiles-only"

ok veles log --format json
python3 - "$T/out" <<'EOS' || fail "log json"
import json, sys
v = json.load(open(sys.argv[1]))
assert [x["summary"] for x in v] == ["third", "second", "first version"]
assert len(v[0]["profiles"]) == 2 and v[0]["profiles"][0]["type"] == "time"
assert v[0]["parents"] == [v[1]["id"]]
assert all(len(p["id"]) == 40 for p in v[0]["profiles"])
EOS

fails 1 veles log no-such-rev
fails 2 veles log -n x
fails 2 veles log a b

# A repository without commits has an empty log.
mkdir "$T/empty" && cd "$T/empty" && git init -q && veles init -q
ok veles log
[ ! -s "$T/out" ] || fail "empty log printed something"
ok veles status
has "$T/out" "No version yet"

# The listing cache: carried forward by add and rm, and what log prints
# with it is what log prints without it.
cd "$T/p"
cache=.git/veles/ledger-cache
ok veles log --format json
[ -f "$cache" ] || fail "log left no cache"
veles collect time -r 1 -q --workload again -- true 2>/dev/null && ok veles add -q 0@p
ok veles rm -q -m HEAD~2 0
head -c 45 "$cache" | grep -q "$(git rev-parse refs/veles/ledger)" || fail "cache not advanced"
ok veles log --format json
cp "$T/out" "$T/with-cache"
rm "$cache"
ok veles log --format json
cmp -s "$T/out" "$T/with-cache" || fail "cached log differs from a fresh one"
has "$T/out" "again"
# A damaged cache is ignored, not believed.
printf 'VLC1 %s\n0123' "$(git rev-parse refs/veles/ledger)" >"$cache"
ok veles log --format json
cmp -s "$T/out" "$T/with-cache" || fail "damaged cache was used"
