#!/bin/bash
# veles hook: a real commit fires the post-commit hook, which runs the
# matrix on the new commit in the background and logs to .veles/logs/.
. "$(dirname "$0")/lib.sh"
new_git_project p
cat >>.veles/config.yml <<'EOF2'
cmds: [/bin/true]
collectors:
  - {name: time, params: {repeat: 2, warmup: 0}}
EOF2

ok veles hook install
has "$T/out" "Installed .*post-commit"
[ -x .git/hooks/post-commit ] || fail "hook not executable"
ok veles hook install

commit_change "second"
rev=$(git rev-parse HEAD)
wait_hook "$rev"
has ".veles/logs/hook-$rev.log" "^1 job: 1 ok"
[ "$(npending)" -eq 1 ] || fail "no profile from the hook"
f=$(ls .veles/jobs/*.perf)
grep -q "\"origin\":\"$rev\"" "$(json_of "$f")" || fail "profile not of the new commit"

ok veles hook uninstall
[ ! -e .git/hooks/post-commit ] || fail "hook left"
fails 1 veles hook uninstall

# Someone else's hook is left alone.
printf '#!/bin/sh\necho mine\n' >.git/hooks/post-commit
fails 1 veles hook install
has "$T/err" "not Veles's"
fails 1 veles hook uninstall
ok veles hook install --force
fails 2 veles hook
fails 2 veles hook frob
