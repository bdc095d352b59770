#!/bin/bash
# External commands and collectors: veles-NAME and veles-collect-NAME on PATH.
. "$(dirname "$0")/lib.sh"
cat >"$T/bin/veles-hello" <<'EOS'
#!/bin/sh
echo "hello $* from ${VELES_PROJECT_ROOT:-nowhere}"
EOS
cat >"$T/bin/veles-collect-const" <<'EOS'
#!/bin/sh
# A collector in shell: writes a pending profile where Veles says.
cat >"$VELES_JOBS_DIR/const-const-none-1.perf" <<EOP
{"origin": "$VELES_ORIGIN", "header": {"type": "time", "cmd": "$1", "units": {"time": "s"}},
 "collector_info": {"name": "const", "params": {}},
 "global": {"timestamp": 0.1, "resources": [{"type": "time", "subtype": "real", "uid": "$1", "order": 1, "amount": 0.5}]}}
EOP
EOS
chmod +x "$T/bin/veles-hello" "$T/bin/veles-collect-const"

# Outside any project (the build directory is in a git work tree, which is
# a project too).
cd "$T" || fail cd
ok veles hello a b
has "$T/out" "^hello a b from nowhere$"
new_git_project p
ok veles hello
has "$T/out" "^hello  from $T/p$"
ok veles collect const ./x
ok veles add 0@p
ok veles show 0 table
has "$T/out" "0.5"

fails 2 veles nosuchcommand
has "$T/err" "not a veles command"
fails 2 veles collect nosuchcollector -- true
