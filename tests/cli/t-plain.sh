#!/bin/bash
# A plain directory: versions by `veles commit`, store in .veles/store.git.
. "$(dirname "$0")/lib.sh"
mkdir "$T/d" && cd "$T/d" && ok veles init
veles collect time -r 1 -q -- true 2>/dev/null || fail collect
ok veles add 0@p
ok veles commit -m "faster search"
has "$T/out" "^\[v2 [0-9a-f]{7}\] faster search$"
veles collect time -r 1 -q -- true 2>/dev/null || fail collect
ok veles add 0@p
ok veles log --oneline
has "$T/out" "^v2 \([0-9a-f]{7}\) \[1 profile: 1 time\] faster search$"
has "$T/out" "^v1 \([0-9a-f]{7}\) \[1 profile: 1 time\] initial version$"
ok veles status
has "$T/out" "^On version v2 "
ok veles show 0 summary
fails 2 veles commit
fails 1 veles log v9
# Not a git repository: nothing was created outside .veles.
[ ! -d .git ] || fail "plain project grew a .git"

new_git_project g
fails 1 veles commit -m x
has "$T/err" "use .git commit."
