#!/bin/bash
# veles push and pull through a local bare remote: two clones share profiles.
. "$(dirname "$0")/lib.sh"
git init -q --bare -b main "$T/remote.git"
new_git_project a
git remote add origin "$T/remote.git" && git push -q origin main
veles collect time -r 1 -q --workload alpha -- true 2>/dev/null && ok veles add -q 0@p
ok veles push
git --git-dir="$T/remote.git" rev-parse -q --verify refs/veles/ledger >/dev/null ||
	fail "remote has no ledger"
# Branches on the remote are untouched by a push of profiles.
[ "$(git --git-dir="$T/remote.git" rev-parse main)" = "$(git rev-parse main)" ] || fail "main moved"

git clone -q "$T/remote.git" "$T/b" && cd "$T/b" && veles init -q
ok veles pull
ok veles status
has "$T/out" "Profiles of this version \(1\)"
has "$T/out" "alpha"

# Both sides add; the second push is refused until it pulls and merges.
veles collect time -r 1 -q --workload beta -- true 2>/dev/null && ok veles add -q 0@p
cd "$T/a"
veles collect time -r 1 -q --workload gamma -- true 2>/dev/null && ok veles add -q 0@p
ok veles push
cd "$T/b"
fails 1 veles push
has "$T/err" "pull"
ok veles pull
ok veles status
has "$T/out" "Profiles of this version \(3\)"
ok veles push
cd "$T/a" && ok veles pull
# Nothing here ran `veles log`: a valid listing cache is the pull's doing.
head -c 45 .git/veles/ledger-cache | grep -q "$(git rev-parse refs/veles/ledger)" ||
	fail "pull left no valid log cache"
ok veles status
has "$T/out" "Profiles of this version \(3\)"
for w in alpha beta gamma; do has "$T/out" "$w"; done

# A removal on one side survives the merge.
ok veles rm -q 0
ok veles push
cd "$T/b" && ok veles pull && ok veles status
has "$T/out" "Profiles of this version \(2\)"

# Pushing to a path works without a named remote.
git init -q --bare "$T/other.git"
ok veles push "$T/other.git"
fails 1 veles push no-such-remote
fails 2 veles pull a b

# Plain directories share their version lines too: a pull brings the
# remote's versions (merged with ours when both lines moved), so the
# pulled profiles show in `veles log` under the versions they measured.
git init -q --bare "$T/plain.git"
mkdir "$T/pa" "$T/pb"
cd "$T/pa" && ok veles init -q && ok veles commit -m "pa first"
veles collect time -r 1 -q --workload delta -- true 2>/dev/null && ok veles add -q 0@p
ok veles push "$T/plain.git"
cd "$T/pb" && ok veles init -q && ok veles commit -m "pb first"
ok veles pull "$T/plain.git"
has "$T/out" "versions: merged"
ok veles log --oneline
has "$T/out" "merge versions from"
has "$T/out" "v2 .* \[1 profile: 1 time\] pa first"
has "$T/out" "v2 .* pb first"
ok veles push "$T/plain.git"
cd "$T/pa" && ok veles pull "$T/plain.git"
has "$T/out" "versions: fast-forward"
ok veles log --oneline
has "$T/out" "v3 .* merge versions from"
has "$T/out" "pb first"
ok veles pull "$T/plain.git"
has "$T/out" "already up to date"
