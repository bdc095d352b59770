#!/bin/bash
# veles script -g python on crafted recordings (tests/data/crafted/, made
# by make-script-names.py): the names of their tracepoints and fields are
# Python code, carriage returns and quotes. The generated script must
# compile, run nothing of theirs when loaded, and still register each
# handler under the name veles script looks up.
. "$(dirname "$0")/lib.sh"
D=$VELES_SRCDIR/tests/data/crafted
cd "$T" || fail cd
mkdir stub && : >stub/perf_trace_context.py && : >stub/Core.py

# A name that once ran `touch pwned-name` when the script was loaded.
mkdir payload && cd payload || fail cd
ok veles script -i "$D/script-name-payload.data" -g python
PYTHONPATH=../stub python3 -c 'import runpy; runpy.run_path("veles-script.py")' ||
	fail "loading the script"
[ -e pwned-name ] && fail "the tracepoint's name ran as code"
cd "$T" || fail cd

ok veles script -i "$D/script-names.data" -g python
has "$T/out" '^generated Python script: veles-script.py$'
# Nothing but printable ASCII, tabs and newlines: no \r, no bidi controls.
LC_ALL=C grep -nP '[^\x20-\x7e\t]' veles-script.py && fail "a raw control or non-ASCII byte"
python3 -m py_compile veles-script.py || fail "the generated script does not compile"

# Loaded with stand-ins for the modules veles script provides.
PYTHONPATH=stub python3 - >"$T/run" <<'PY' || fail "loading the script"
import runpy
g = runpy.run_path("veles-script.py")
keys = ['evil__a(*a): pass\r__import__("os").system("touch pwned-name")\rdef b',
        "raw_syscalls__sys_enter", "my-sys__ev.1", "s\u00e9__n\u202e"]
for k in keys:
    assert callable(g.get(k)), "no handler for %r" % k
# Called as veles script calls it: the common arguments, then the fields.
g["raw_syscalls__sys_enter"]("ev", None, 1, 2, 3, 4, "comm", *range(12))
PY
[ -e pwned-name ] && fail "the tracepoint's name ran as code"
[ -e pwned-field ] && fail "a field's name ran as code"
# Each field printed under its own name, in order.
has "$T/run" 'from=0, context=1, print=2, x"y=3, a.b=4, 100%d=5, id=6, id=7, field_7=8, ok_name=9, '

# A second -g does not overwrite the first script.
fails 1 veles script -i "$D/script-names.data" -g python
echo ok
