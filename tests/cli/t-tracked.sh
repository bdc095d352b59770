#!/bin/bash
# The tracked recipe: veles.yml at the project's root (or matrix.file) holds
# the job matrix; .veles/config.yml overrides it part by part, the user's
# config.yml fills in below it; `veles config --tracked` edits it; the
# tracked file cannot point elsewhere.
. "$(dirname "$0")/lib.sh"
new_git_project p
cat >veles.yml <<'EOF2'
# the team's recipe
cmds: [/bin/true]
args: [-a]
collectors:
  - {name: time, params: {repeat: 2, warmup: 0}}
EOF2
git add veles.yml && git commit -qm recipe

ok veles run matrix --format json
has "$T/out" '"cmd":"/bin/true"'
has "$T/out" '"args":"-a"'
ok veles config get cmds.0
has "$T/out" '^/bin/true$'
ok veles config --tracked get args.0
has "$T/out" '^-a$'
ok veles config list
has "$T/out" '^collectors.0.name=time$'

# .veles/config.yml wins, each part of the matrix whole: its args replace
# the tracked ones; cmds and collectors still come from veles.yml.
ok veles config set args.0 -b
hasnt veles.yml -b
ok veles run matrix --format json
has "$T/out" '"args":"-b"'
hasnt "$T/out" '"args":"-a"'
has "$T/out" '"cmd":"/bin/true"'
# The user's file is below the tracked one: its collectors do not count.
mkdir -p "$XDG_CONFIG_HOME/veles"
printf 'collectors:\n  - {name: memory}\nworkloads: [w1]\n' >"$XDG_CONFIG_HOME/veles/config.yml"
ok veles run matrix --format json
has "$T/out" '"collector":"time"'
has "$T/out" '"workload":"w1"'
rm "$XDG_CONFIG_HOME/veles/config.yml"

# `config --tracked set` edits veles.yml and keeps its comments.
ok veles config --tracked set args.1 -c
has veles.yml '^# the team.s recipe$'
has veles.yml -c
ok veles config --local get args.0
has "$T/out" '^-b$'

# matrix.file: another tracked file, named by a local setting.
mkdir ci && printf 'cmds: [/bin/echo]\ncollectors: [{name: time, params: {repeat: 1}}]\n' >ci/perf.yml
ok veles config set matrix.file ci/perf.yml
ok veles run matrix --format json
has "$T/out" '"cmd":"/bin/echo"'
ok veles config set matrix.file ci/none.yml
fails 2 veles run matrix
has "$T/err" "matrix.file \(in .*/\.veles/config\.yml\) names .*/ci/none\.yml, which does not exist"
fails 1 veles config get cmds.0
# An empty matrix.file turns the tracked file off.
ok veles config set matrix.file ''
fails 2 veles run matrix
has "$T/err" "no jobs: the matrix needs cmds and collectors"
fails 1 veles config --tracked get cmds.0
has "$T/err" "no tracked file: matrix.file is empty in"
# The tracked file cannot name another: that would take the recipe out of
# the tree a reviewer reads.
ok veles config set matrix.file veles.yml
printf 'matrix:\n  file: /tmp/elsewhere.yml\n' >>veles.yml
fails 2 veles run matrix
has "$T/err" "veles\.yml:[0-9]+:3: matrix\.file is a local setting"
git checkout -q veles.yml
ok veles config set matrix.file veles.yml
# A typo in the tracked file is its own FILE:LINE:COL.
printf 'colectors: []\n' >>veles.yml
fails 2 veles run matrix
has "$T/err" "/veles\.yml:[0-9]+:1: unknown key 'colectors'"
git checkout -q veles.yml
# reset --tracked rewrites the tracked file, the old one kept beside it.
ok veles config --tracked reset developer
has "$T/out" "/veles\.yml reset to the developer template \(the old file is veles\.yml\.old\)$"
has veles.yml "^  collect_before_check: true"
cmp -s veles.yml.old <(git show HEAD:veles.yml) || fail "veles.yml.old is not the old file"
git checkout -q veles.yml && rm veles.yml.old

# A project in a subdirectory reads the veles.yml beside its .veles/.
mkdir -p "$T/q/sub" && cd "$T/q" && git init -q -b main . && cd sub
veles init -q || fail init
printf 'cmds: [/bin/true]\ncollectors: [{name: time, params: {repeat: 1}}]\n' >veles.yml
ok veles run matrix --format json
has "$T/out" '"cmd":"/bin/true"'
