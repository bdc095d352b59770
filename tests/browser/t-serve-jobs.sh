#!/bin/bash
# A project's jobs page in headless Chromium (see serve-jobs.mjs): the job
# matrix started from the page on the current version, its progress and
# output followed live until it is done, the profiles it made listed; then
# the store has them. Skipped (77) without chromium, node or
# web/node_modules.
. "$(dirname "$0")/needs.sh"
command -v curl >/dev/null || { echo "skipped: needs curl"; exit 77; }
. "$VELES_SRCDIR/tests/cli/lib.sh"
. "$VELES_SRCDIR/tests/cli/serve-lib.sh"

new_git_project p
# Three jobs of a moment each: the page sees the matrix part done.
printf '#!/bin/sh\nsleep 0.4\necho "$@"\n' >prog
chmod +x prog
cat >veles.yml <<'Y'
cmds: [./prog]
args: [a, b, c]
collectors:
  - {name: time, params: {repeat: 1, warmup: 0}}
Y
git add prog veles.yml && git commit -qm "the <b>recipe</b>" || fail commit
head=$(git rev-parse HEAD)

serve_start
export SURL STOKEN HEAD_ID="$head"
node "$VELES_SRCDIR/tests/browser/serve-jobs.mjs" >"$T/result" || { cat "$T/result" "$T/serve.log"; fail "browser"; }
cat "$T/result"
serve_stop
ok veles log
has "$T/out" "Profiles: 3 profiles: 3 time"
[ "$(git worktree list | wc -l)" -eq 1 ] || fail "a worktree was left"
exit 0
