#!/bin/bash
# veles config: get, set (comments kept), list, edit, user vs project files.
. "$(dirname "$0")/lib.sh"
new_git_project p

ok veles config get collect.warn_dirty
[ "$(cat "$T/out")" = true ] || fail "default warn_dirty"
ok veles config set add.keep_profile true
ok veles config get add.keep_profile
[ "$(cat "$T/out")" = true ] || fail "set did not stick"
has .veles/config.yml "^  # Keep a pending profile"
has .veles/config.yml "^  keep_profile: true$"

# New sections and values that need quoting.
ok veles config set execute.pre_run "a: b # c"
ok veles config get execute.pre_run
[ "$(cat "$T/out")" = "a: b # c" ] || fail "quoted value: $(cat "$T/out")"

fails 1 veles config set collect "x"
fails 1 veles config get no.such.key
has "$T/err" "no.such.key is not set"
fails 1 veles config set "bad key" v

# The user's file: read when the project's lacks the key; project wins.
ok veles config --user set collect.warn_dirty false
[ -f "$XDG_CONFIG_HOME/veles/config.yml" ] || fail "no user config"
ok veles config get collect.warn_dirty
[ "$(cat "$T/out")" = true ] || fail "project should win"
ok veles config --user set profiles.register_after_run yes
ok veles config get profiles.register_after_run
[ "$(cat "$T/out")" = yes ] || fail "user fallback"
ok veles config --local list
hasnt "$T/out" "register_after_run"
ok veles config list
has "$T/out" "^profiles.register_after_run=yes$"
has "$T/out" "^collect.warn_dirty=true$"

# edit runs $EDITOR on the file and checks the result parses.
cat >"$T/bin/ed.sh" <<'EOS'
#!/bin/sh
printf 'collectors:\n  - name: editor\n' >>"$1"
EOS
chmod +x "$T/bin/ed.sh"
EDITOR="$T/bin/ed.sh" ok veles config edit
ok veles config get collectors.0.name
[ "$(cat "$T/out")" = editor ] || fail "edit"

# Unknown keys: refused by set, and reported with their position.
fails 1 veles config set bench.runner.name x
has "$T/err" "unknown key 'bench.runner.name'"
cat >"$T/bin/typo.sh" <<'EOS'
#!/bin/sh
printf 'profiles:\n  register_afer_run: true\n' >>"$1"
EOS
chmod +x "$T/bin/typo.sh"
EDITOR="$T/bin/typo.sh" fails 1 veles config edit
has "$T/err" "config.yml:[0-9]+:3: unknown key 'profiles.register_afer_run'"
fails 1 veles config get collect.warn_dirty
has "$T/err" "unknown key 'profiles.register_afer_run'"

# A broken file is one clear line with the position.
printf 'collect:\n  warn_dirty: [unclosed\n' >.veles/config.yml
fails 1 veles config get collect.warn_dirty
has "$T/err" "config.yml:[0-9]+:[0-9]+: "

fails 2 veles config frobnicate
fails 2 veles config
cd "$T" && fails 1 veles config --local get x
has "$T/err" "not a Veles project"
