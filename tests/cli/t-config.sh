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

# The job matrix's lists: items are numbered, in block and flow style; the
# item after the last appends; comments stay.
cat >.veles/config.yml <<'EOF'
# matrix
cmds: [./a, "./b c"]   # two commands
args: []
workloads:
collectors:
  - {name: time, params: {repeat: 2}}
  - name: memory # the second
postprocessors:
- name: normalizer
EOF
ok veles config set cmds.0 ./x
ok veles config set cmds.2 "./y,z"
ok veles config set args.0 -q
ok veles config set workloads.0 7
ok veles config set workloads.1 sizes
ok veles config set collectors.0.params.warmup 3
ok veles config set collectors.1.params.repeat 4
ok veles config set collectors.2.name time
ok veles config set postprocessors.0.name filter
ok veles config set postprocessors.1.name normalizer
has .veles/config.yml '^# matrix$'
has .veles/config.yml '^cmds: \[./x, "./b c", "./y,z"\]   # two commands$'
has .veles/config.yml '^args: \["-q"\]$'
has .veles/config.yml '^  - \{name: time, params: \{repeat: 2, warmup: 3\}\}$'
has .veles/config.yml '^  - name: memory # the second$'
has .veles/config.yml '^- name: filter$'
ok veles config --local list
cat >"$T/want" <<'EOF'
cmds.0=./x
cmds.1=./b c
cmds.2=./y,z
args.0=-q
workloads.0=7
workloads.1=sizes
collectors.0.name=time
collectors.0.params.repeat=2
collectors.0.params.warmup=3
collectors.1.name=memory
collectors.1.params.repeat=4
collectors.2.name=time
postprocessors.0.name=filter
postprocessors.1.name=normalizer
EOF
diff "$T/want" "$T/out" >&2 || fail "lists set"
# get of a list or a section prints what is below it.
ok veles config get workloads
printf 'workloads.0=7\nworkloads.1=sizes\n' | diff - "$T/out" >&2 || fail "get workloads"
ok veles config get collectors.1
printf 'collectors.1.name=memory\ncollectors.1.params.repeat=4\n' | diff - "$T/out" >&2 ||
	fail "get collectors.1"
ok veles config get workloads.1
[ "$(cat "$T/out")" = sizes ] || fail "get workloads.1"
# Past the end, a name for an index, a list as a value: one line each.
fails 1 veles config set workloads.5 x
has "$T/err" "'workloads' has 2 items: set workloads.0 to workloads.2"
fails 1 veles config set workloads x
has "$T/err" "'workloads' is a list"
fails 1 veles config set cmds.x y
cp .veles/config.yml "$T/lists.yml"
printf 'collectors: {}\n' >.veles/config.yml
fails 1 veles config set collectors.0.name time
has "$T/err" "'collectors' is a map, not a list: it has no item 0"
cp "$T/lists.yml" .veles/config.yml
fails 1 veles config set execute.pre_run.1 make
has "$T/err" "'execute.pre_run' is not a list yet"
ok veles config set execute.pre_run.0 make
has .veles/config.yml "^execute:$"
has .veles/config.yml "^    - make$"
ok veles config get execute.pre_run.0
[ "$(cat "$T/out")" = make ] || fail "new list"

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
has "$T/err" "config.yml:3:1: did not find expected ',' or '\]' \(in the value of 'collect.warn_dirty': while parsing a flow sequence at 2:15\)$"

fails 2 veles config frobnicate
fails 2 veles config
cd "$T" && fails 1 veles config --local get x
has "$T/err" "not a Veles project"
