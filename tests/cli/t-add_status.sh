#!/bin/bash
# veles add and status: pending and registered profiles, versions, naming.
. "$(dirname "$0")/lib.sh"
new_git_project p
head=$(git rev-parse HEAD)

ok veles status
has "$T/out" "^On version ${head:0:7} \(branch main\): first version"
has "$T/out" "Profiles of this version \(0\)"
has "$T/out" "Pending profiles in .veles/jobs/ \(0\)"

veles collect time -r 2 -q -- true 2>/dev/null || fail collect
sleep 1
veles collect time -r 2 -q -- sh -c 'exit 0' 2>/dev/null || fail collect
ok veles status
has "$T/out" "Pending profiles in .veles/jobs/ \(2\)"
# Numbered by name: sh-... before true-...
has "$T/out" "^  0@p  time +sh-time-"
has "$T/out" "^  1@p  time +true-time-"

ok veles add 1@p
has "$T/out" "Registered 1 profile with version ${head:0:7}"
[ "$(npending)" -eq 1 ] || fail "pending profile not removed"
ok veles status
has "$T/out" "Profiles of this version \(1\)"
has "$T/out" "^  0@i  time +true-time-"
has "$T/out" "^  0@p  time +sh-time-"

# By file name in jobs/, keeping the file.
name=$(basename .veles/jobs/*.perf)
ok veles add -k "$name"
[ "$(npending)" -eq 1 ] || fail "--keep-profile removed the file"
# The same content again: nothing new.
ok veles add "$name"
has "$T/out" "already registered"
ok veles status --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["profiles"])==2, d; assert d["pending"]==[], d' "$T/out" || fail "status json"

# Nothing in the user's branches or work tree changed.
[ "$(git rev-parse HEAD)" = "$head" ] || fail "HEAD moved"
[ -z "$(git status --porcelain)" ] || fail "work tree changed"
git rev-parse -q --verify refs/veles/ledger >/dev/null || fail "no ledger ref"
[ "$(git ls-tree -r refs/veles/ledger | wc -l)" -eq 2 ] || fail "ledger should hold 2 profiles"

# A profile of an older version: refused, then -m or --force.
veles collect time -r 1 -q -- true 2>/dev/null || fail collect
commit_change second
new=$(git rev-parse HEAD)
fails 1 veles add 0@p
has "$T/err" "collected on version ${head:0:7}, not ${new:0:7}"
ok veles add -k -m HEAD~1 0@p
has "$T/out" "with version ${head:0:7}"
ok veles add --force 0@p
has "$T/err" "warning: .* filing it under ${new:0:7}"
ok veles status
has "$T/out" "Profiles of this version \(1\)"
f=$(git ls-tree -r --name-only refs/veles/ledger | grep "${new:2}" | head -1)
# The blob is the compact form; export gives its JSON back.
git show "refs/veles/ledger:$f" >"$T/blob.perf"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['origin']=='$new'" \
	"$(json_of "$T/blob.perf")" || fail "forced origin"

# A path anywhere, and all-or-nothing.
veles collect time -r 1 -q -- true 2>/dev/null
cp .veles/jobs/*.perf "$T/copy.perf"
fails 1 veles add 0@p no-such-profile
[ "$(npending)" -eq 1 ] || fail "partial add removed a pending profile"
ok veles add "$T/copy.perf" 0@p
has "$T/out" "Registered 1 profile"
[ -f "$T/copy.perf" ] || fail "add removed a file outside jobs/"

fails 1 veles add 5@p
has "$T/err" "no pending profile 5@p"
fails 2 veles add
fails 2 veles add --nope 0@p
fails 1 veles add -m no-such-rev 0@p
fails 1 veles add 0@i
