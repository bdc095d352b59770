#!/bin/bash
# A teammate clones a project whose profiles were pushed (refs/veles/*) and
# whose recipe is tracked (veles.yml): pull, log, status, show, check, run
# matrix, check --collect-missing, hook and bisect work without `veles
# init`; only the commands that keep local state make .veles/, kept out of
# git.
. "$(dirname "$0")/lib.sh"
change() { echo "/* $1 */" >>list_search.c && git commit -qam "$1" || fail "commit $1"; }
git init -q --bare -b main "$T/origin.git"
mkdir "$T/a" && cd "$T/a" && git init -q -b main .
cp "$VELES_SRCDIR/examples/list_search.c" .
printf 'prog: list_search.c\n\tcc -O2 -o prog list_search.c\n' >Makefile
printf 'prog\n' >.gitignore
cat >veles.yml <<'EOF2'
execute:
  pre_run: make -s
cmds: [./prog]
args: [4000 4000]
collectors:
  - name: time
    params: {repeat: 7, output_handling: suppress}
profiles:
  register_after_run: true
EOF2
git add -A && git commit -qm "list search" && git remote add origin "$T/origin.git"
good=$(git rev-parse HEAD)
ok veles run matrix -q
# The slowdown, in the second commit.
sed -i 's/^#define SLOW 0$/#define SLOW 1/' list_search.c
git commit -qam "count the list on every lookup"
slow=$(git rev-parse HEAD)
ok veles run matrix -q
change "third"
git push -q origin main && ok veles push
[ -d .veles ] || fail "run matrix in a project without init made no .veles/"
[ -z "$(git status --porcelain)" ] || fail ".veles/ is not kept out of git: $(git status --porcelain)"

git clone -q "$T/origin.git" "$T/b" && cd "$T/b" || fail clone
ok veles pull
has "$T/out" "pulled 2 profiles in 2 versions from origin"
ok veles log --oneline
has "$T/out" "^${slow:0:7} \[1 profile: 1 time\] count the list"
ok veles status
ok veles show -m HEAD~1 0 summary
has "$T/out" "^Command: +\./prog"
veles check head HEAD~1 >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err"; fail "check head in a fresh clone"; }
has "$T/out" "\./prog \[[a-z]+\]"
# Reading made nothing: a clone stays as git left it.
[ ! -e .veles ] || fail "a read-only command made .veles/"

# The newest commit has no profile and its parent has one: the tracked job
# measures HEAD (run matrix), and check finds the baseline.
ok veles run matrix -q
[ -d .veles/jobs ] || fail "no .veles/jobs/"
[ -z "$(git status --porcelain)" ] || fail ".veles/ is not kept out of git"
veles check head >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err"; fail "check head"; }
has "$T/out" "\./prog 4000 4000 · time"

# --collect-missing takes the tracked job as the user's own: no --yes, and
# no question, though stdin is no terminal.
change "fourth"
ok veles run matrix -q
change "fifth"
ok veles run matrix -q
ok veles rm -q -m HEAD~1 0
veles check head --collect-missing </dev/null >"$T/out" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err"; fail "check --collect-missing"; }
has "$T/err" "^check: collecting prog-time-.* on [0-9a-f]{7}$"
hasnt "$T/err" "not collecting"
ok veles log -n 2 --oneline
has "$T/out" "\[1 profile: 1 time\] fourth"

# bisect --job builds each version with the tracked execute.pre_run.
veles bisect --good "$good" --bad "$slow" -r 5 --job 'time -r 5 -o suppress -- ./prog 4000 4000' \
	>"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err" >&2; fail "bisect --job"; }
has "$T/out" "^$slow is the first slow commit"

# hook: installs in a clone, and its run reads the tracked recipe.
cd "$T" && git clone -q "$T/origin.git" c && cd c || fail clone
ok veles hook install
[ -d .veles/logs ] || fail "hook install made no .veles/logs/"
change "sixth"
rev=$(git rev-parse HEAD)
wait_hook "$rev"
has ".veles/logs/hook-$rev.log" "^1 job: 1 ok"
ok veles log -n 1 --oneline
has "$T/out" "^${rev:0:7} \[1 profile: 1 time\] sixth"

# Outside any git work tree and without .veles/, init is needed: one line.
mkdir "$T/plain" && cd "$T/plain"
fails 2 veles pull
has "$T/err" "^veles: not a Veles project \(no \.veles/ nor git work tree here or in any parent\); run .veles init. first$"
