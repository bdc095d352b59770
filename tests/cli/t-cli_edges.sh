#!/bin/bash
# Small edges of the command line: a hidden program's profile, commands
# given no arguments, push and pull with nothing to share or a remote that
# is not there, the refs a pull fetches, a postprocessor's help.
. "$(dirname "$0")/lib.sh"
new_git_project p

# A program named .hidden: its pending profile is not a dot file, so
# status lists it (dot files in jobs/ are temporary and skipped).
cp /bin/true ./.hidden
ok veles collect time -r 1 -q -- ./.hidden
ls -A .veles/jobs | grep -q '^\.' && fail "a dot file in jobs/: $(ls -A .veles/jobs)"
ok veles status
has "$T/out" "Pending profiles in \.veles/jobs/ \(1\)"
has "$T/out" "_hidden-time-"
ok veles add -q 0@p
rm -f ./.hidden

# No arguments: one line on stderr, exit 2; --help: the usage on stdout.
for c in collect run; do
	fails 2 veles $c
	[ -s "$T/out" ] && fail "$c: output on stdout"
	ok veles $c --help
	has "$T/out" "^usage: veles $c"
	[ -s "$T/err" ] && fail "$c --help: something on stderr"
done

# push with nothing to push still finds the remote: one that is not there
# is an error, whatever there is to send.
new_git_project empty
fails 1 veles push "$T/nowhere.git"
has "$T/err" "no repository at '$T/nowhere.git'"
fails 1 veles push nowhere
fails 1 veles push
git init -q --bare "$T/empty.git"
ok veles push "$T/empty.git"
has "$T/out" "nothing to push"

# pull fetches the remote's refs/veles/* under refs/veles-remote/ and
# deletes them all when merged, whatever else the remote keeps there.
cd "$T/p" || fail cd
git init -q --bare "$T/r.git"
ok veles push "$T/r.git"
git --git-dir="$T/r.git" update-ref refs/veles/other refs/veles/ledger
new_git_project q
ok veles pull "$T/r.git"
has "$T/out" "pulled 1 profile"
[ -z "$(git for-each-ref refs/veles-remote/)" ] || fail "left: $(git for-each-ref refs/veles-remote/)"
ok veles pull "$T/r.git"
[ -z "$(git for-each-ref refs/veles-remote/)" ] || fail "left: $(git for-each-ref refs/veles-remote/)"
# A pull killed between its fetch and its merge left the fetched ledger
# (here: a ledger with one more profile); the next pull merges what the
# remote has and cleans up, losing nothing.
cd "$T/p" || fail cd
veles collect time -r 1 -q --workload two -- true 2>/dev/null && ok veles add -q 0@p
ok veles push "$T/r.git"
cd "$T/q" || fail cd
git fetch -q "$T/r.git" "+refs/veles/*:refs/veles-remote/*" || fail fetch
ok veles pull "$T/r.git"
[ -z "$(git for-each-ref refs/veles-remote/)" ] || fail "left: $(git for-each-ref refs/veles-remote/)"
[ "$(git ls-tree -r refs/veles/ledger | grep -c '\.perf$')" -eq 2 ] ||
	fail "the pulled profiles: $(git ls-tree -r refs/veles/ledger)"

# A postprocessor's help needs no profile, nor a project.
cd "$T" || fail cd
ok veles postprocess filter --help
has "$T/out" "^usage: veles postprocess PROFILE filter"
ok veles postprocess regression-analysis -h
has "$T/out" "^usage: veles postprocess PROFILE regression-analysis"
fails 2 veles postprocess filter
echo ok
