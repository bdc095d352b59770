#!/bin/bash
# veles init: in a git work tree, in a plain directory, twice, and badly.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/g" && cd "$T/g" && git init -q -b main . || fail setup
echo x >file && git add file && git commit -qm one
ok veles init
has "$T/out" "Initialized empty Veles project in .*/g/.veles/ \(profiles in this git repository"
[ -d .veles/jobs ] && [ -d .veles/logs ] && [ -f .veles/config.yml ] || fail "missing .veles parts"
has .veles/config.yml "^# Veles project configuration"
has .git/info/exclude '^/.veles/$'
[ -z "$(git status --porcelain)" ] || fail ".veles shows in git status"

# Idempotent: the config a user edited stays.
echo "# mine" >>.veles/config.yml
ok veles init
has "$T/out" "Reinitialized existing"
has .veles/config.yml "^# mine"
[ "$(grep -c '^/.veles/$' .git/info/exclude)" -eq 1 ] || fail "exclude line repeated"

# A subdirectory of a work tree is its own project, still in the same git.
mkdir -p sub && cd sub && ok veles init -q
[ ! -s "$T/out" ] || fail "-q printed something"
has ../.git/info/exclude '^/sub/.veles/$'
cd ..

# Plain directory: a store of its own with a first version.
ok veles init "$T/plain"
has "$T/out" "plain directory"
[ -d "$T/plain/.veles/store.git" ] || fail "no store.git"
cd "$T/plain" && ok veles status
has "$T/out" "^On version v1 "

fails 2 veles init --bogus
fails 2 veles init a b
ok veles init --help
has "$T/out" "^usage: veles init"
