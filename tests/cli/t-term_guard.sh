#!/bin/bash
# A profile's strings reach a terminal as text: tests/data/crafted/
# terminal-escapes.perf holds a title change (OSC 0), a clipboard write
# (OSC 52), a screen clear, a \r and a C1 CSI in its command and uid. On a
# pseudo-terminal every such byte shows as \xNN, while Veles's own colours
# and progress line still work; through a pipe the bytes are as stored.
. "$(dirname "$0")/lib.sh"
new_git_project p
crafted=$VELES_SRCDIR/tests/data/crafted/terminal-escapes.perf

# on_tty OUT CMD...: runs CMD on a pseudo-terminal; its output in OUT.
on_tty() {
	local out=$1
	shift
	/usr/bin/python3 - "$out" "$@" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
out = b""
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
status = os.waitpid(pid, 0)[1]
open(sys.argv[1], "wb").write(out)
sys.exit(os.waitstatus_to_exitcode(status))
PY
}

# escapes FILE: the escape sequences in FILE, one a line, ESC as "ESC".
escapes() {
	/usr/bin/python3 -c 'import re, sys
for m in re.finditer(rb"\x1b[^a-zA-Z]*[a-zA-Z]?|\xc2[\x80-\x9f]|\x07|\r(?!\n)", open(sys.argv[1], "rb").read()):
    print(repr(m.group(0)))' "$1"
}

on_tty "$T/tty" "$VELES" show "$crafted" summary || fail "show on a terminal"
[ -z "$(escapes "$T/tty")" ] || fail "raw sequences reached the terminal: $(escapes "$T/tty")"
has "$T/tty" 'Command: +\./x\\x1b\]0;pwned\\x07'
has "$T/tty" 'a\\x1b\[2J\\x0dB\\xc2\\x9b31m\\x1b\]52;c;cHduZWQ=\\x07'
# Through a pipe, the bytes as they are (scripts read them).
veles show "$crafted" summary | grep -q "$(printf '\033]0;pwned')" || fail "a pipe must get raw bytes"

# The project's own output keeps its colours and its progress line.
ok veles add -q "$crafted" -f
commit_change second
veles collect time -r 3 -q -o suppress -- ./x 2>/dev/null
cp "$crafted" .veles/jobs/x.perf
ok veles add -q x.perf -f
on_tty "$T/tty" "$VELES" check head
/usr/bin/python3 - "$T/tty" <<'PY' || fail "check's colours or the crafted uid"
import re, sys
out = open(sys.argv[1], "rb").read()
seqs = set(re.findall(rb"\x1b[^a-zA-Z]*[a-zA-Z]", out))
assert all(re.fullmatch(rb"\x1b\[[0-9;]*m", s) for s in seqs), seqs
assert b"\\x1b]52;" in out, out
PY
cat >slow.sh <<'SH'
#!/bin/sh
sleep 0.3
SH
chmod +x slow.sh
on_tty "$T/tty" "$VELES" collect time -r 6 -w 0 -- ./slow.sh || fail "collect on a terminal"
has "$T/tty" "$(printf '\r')Collecting [0-9]/6 \.\.\."
has "$T/tty" "$(printf '\033\\[K')"
