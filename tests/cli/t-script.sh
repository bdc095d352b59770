#!/bin/bash
# veles script: Python handlers get the decoded fields of the tracepoints a
# recording holds; the starter script, the bundled scripts, and one-line
# errors. Tracepoints need tracefs and perf_event_open rights: as root
# without tracefs mounted the test mounts it in a namespace of its own;
# skipped (77) when that cannot be done.
. "$(dirname "$0")/lib.sh"
with_tracefs "$@"
cd "$T"
cc -O1 -o calls "$VELES_SRCDIR/tests/cli/syscalls.c" || fail "cc"
if ! veles record -e raw_syscalls:sys_enter -o c.data -- ./calls >pid.txt 2>"$T/err"; then
	echo "skipped: cannot record tracepoints here: $(cat "$T/err")"
	exit 77
fi
pid=$(cat pid.txt)
arch=$(uname -m)

# Each sys_enter reaches its handler with the common arguments and the
# format's fields (id, args), in time order, between trace_begin and
# trace_end; perf_trace_context answers for the current event.
cat >check.py <<'EOS'
import sys
from perf_trace_context import common_pc, common_flags, common_lock_depth
from Core import autodict
from Util import syscall_name, nsecs

seen = autodict()
state = {"begun": False, "last": 0, "ours": 0}

def trace_begin():
    state["begun"] = True

def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs,
                            common_pid, common_comm, id, args):
    assert state["begun"]
    assert event_name == "raw_syscalls__sys_enter", event_name
    t = nsecs(common_secs, common_nsecs)
    assert t >= state["last"], "not in time order"
    state["last"] = t
    assert isinstance(common_pc(context), int) and isinstance(common_flags(context), int)
    assert isinstance(common_lock_depth(context), int)
    assert len(args) == 6 and all(isinstance(a, int) for a in args), args
    if common_pid != int(sys.argv[1]):
        return
    assert common_comm == "calls", common_comm
    state["ours"] += 1
    key = (id, args[0]) if args[0] == 12345 else id
    try:
        seen[key] += 1
    except TypeError:
        seen[key] = 1

def trace_end():
    print("calls", state["ours"])
    print("getppid", seen[110] if sys.argv[2] == "x86_64" else 5)
    print("close-12345", seen[(3, 12345)] if sys.argv[2] == "x86_64" else 3)
    print("name", syscall_name(110) if sys.argv[2] == "x86_64" else "getppid")
EOS
ok veles script -i c.data -s check.py "$pid" "$arch"
has "$T/out" '^getppid 5$'
has "$T/out" '^close-12345 3$'
has "$T/out" '^name getppid$'
ours=$(sed -n 's/^calls //p' "$T/out")
[ "$ours" -ge 8 ] || fail "only $ours sys_enter samples of the program"

# Events without a handler go to trace_unhandled with the common arguments.
ok veles record -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o ce.data -- ./calls
cat >unhandled.py <<'EOS'
n = {"enter": 0, "other": 0}
def raw_syscalls__sys_enter(*args):
    n["enter"] += 1
def trace_unhandled(event_name, context, common_cpu, common_secs, common_nsecs,
                    common_pid, common_comm):
    assert event_name == "raw_syscalls__sys_exit", event_name
    n["other"] += 1
def trace_end():
    print(n["enter"], n["other"])
EOS
ok veles script -i ce.data -s unhandled.py
read -r enter other <"$T/out"
[ "$enter" -ge 8 ] && [ "$other" -ge 8 ] || fail "enter $enter, unhandled exits $other"

# Flag and symbolic fields are named from the recorded formats' print fmt.
ok veles record -e irq:softirq_entry,sched:sched_switch -o fl.data -- true
cat >flags.py <<'EOS'
from Core import flag_str, symbol_str
def trace_end():
    print(flag_str("sched__sched_switch", "prev_state", 2),
          flag_str("sched__sched_switch", "prev_state", 3),
          symbol_str("irq__softirq_entry", "vec", 1), sep=",")
    # perf's Core: 0 without a name, unnamed bits and values are "".
    print(repr(flag_str("sched__sched_switch", "prev_state", 0)),
          repr(flag_str("sched__sched_switch", "prev_state", 1 << 30)),
          repr(symbol_str("irq__softirq_entry", "vec", 99)))
EOS
ok veles script -i fl.data -s flags.py
has "$T/out" '^D,S \| D,TIMER$'
has "$T/out" "^'' '' ''$"

# The starter script: a handler per recorded event, printing every field.
ok veles script -i ce.data -g python
has "$T/out" '^generated Python script: veles-script.py$'
has veles-script.py '^def raw_syscalls__sys_enter\(event_name, context, common_cpu,$'
has veles-script.py '^        id, args\):$'
has veles-script.py '^def raw_syscalls__sys_exit\('
has veles-script.py '^        id, ret\):$'
ok veles script -i ce.data -s veles-script.py
has "$T/out" '^in trace_begin$'
has "$T/out" '^raw_syscalls__sys_enter +[0-9]+ +[0-9]+\.[0-9]{9} +[0-9]+ calls +id=[0-9]+, args=\['
has "$T/out" '^raw_syscalls__sys_exit .* id=[0-9]+, ret=-?[0-9]+$'
has "$T/out" '^in trace_end$'
fails 1 veles script -i ce.data -g python
has "$T/err" 'veles-script.py exists'

# The bundled scripts: listed, recorded for and reported.
ok veles script -l
has "$T/out" '^  syscall-counts \[comm\] +system call counts'
has "$T/out" '^  syscall-latency \[comm\] '
has "$T/out" '^  wakeup-latency +wakeup latency'
ok veles script -i sc.data record syscall-counts -- ./calls
has "$T/err" 'samples of raw_syscalls:sys_enter written to sc.data'
ok veles script -i sc.data report syscall-counts calls
has "$T/out" '^syscall events for calls:$'
if [ "$arch" = x86_64 ]; then
	has "$T/out" '^getppid +5$'
	has "$T/out" '^close +([3-9]|[1-9][0-9]+)$'
fi
ok veles script -i sl.data record syscall-latency -- ./calls
ok veles script -i sl.data report syscall-latency
has "$T/out" '^calls +[0-9]+ +[a-z0-9_]+ +[0-9]+ '
[ "$arch" = x86_64 ] && has "$T/out" "^calls +[0-9]+ +getppid +5 " || true

# The formats are in the recording (docs/perf-data.md).
grep -aq 'print fmt:' ce.data || fail "no tracepoint format stored in ce.data"

# -a: every process on every CPU; wakeup-latency pairs wakeups and switches.
ok veles script -i wl.data record wakeup-latency -- ./calls
has "$T/err" 'samples of sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_switch written'
cat >comms.py <<'EOS'
comms = set()
def sched__sched_switch(event_name, context, common_cpu, common_secs, common_nsecs,
                        common_pid, common_comm, *fields):
    comms.add(common_comm)
def trace_end():
    print(len(comms), " ".join(sorted(comms)))
EOS
ok veles script -i wl.data -s comms.py
has "$T/out" '^([2-9]|[1-9][0-9]+) .*\bveles\b'
ok veles script -i wl.data report wakeup-latency
has "$T/out" '^wakeup latency: [0-9]+ wakeups$'

# Errors: one line each.
fails 2 veles script
fails 2 veles script -g perl
fails 1 veles script -i c.data -s missing.py
has "$T/err" 'cannot read missing.py'
echo "not a recording" >bad.data
fails 1 veles script -i bad.data -s check.py
has "$T/err" 'not a veles record file'
ok veles record -e cpu-clock -o clock.data -- ./calls
fails 1 veles script -i clock.data -s check.py
has "$T/err" 'not a tracepoint'
fails 1 veles script report no-such-script
has "$T/err" "no bundled script 'no-such-script'"
printf 'def raw_syscalls__sys_enter(*a):\n    raise ValueError("boom")\n' >raises.py
veles script -i c.data -s raises.py >/dev/null 2>"$T/err" && fail "a raising handler succeeded"
has "$T/err" 'ValueError: boom'
has "$T/err" '^veles: script: raises.py failed'

# Scripts written for perf find $PERF_EXEC_PATH in os.environ (the bundled
# scripts' directory unless the user set it), while the process's own
# environment, which veles does not change, has no such variable.
cat >execpath.py <<'EOS'
import ctypes, os
def trace_end():
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    print("exec", os.environ["PERF_EXEC_PATH"], libc.getenv(b"PERF_EXEC_PATH"))
EOS
env -u PERF_EXEC_PATH "$VELES" script -i c.data -s execpath.py >"$T/out" 2>"$T/err" ||
	fail "script execpath.py: $(cat "$T/err")"
has "$T/out" '^exec /.* None$'
PERF_EXEC_PATH=/mine ok veles script -i c.data -s execpath.py
has "$T/out" "^exec /mine b'/mine'$"

# Without libpython the module cannot load: one line says what to install.
mkdir fake && cd fake || fail "cd"
echo 'int fake_python(void) { return 0; }' >py.c
echo 'int fake_python(void); int veles_script_python_run(void) { return fake_python(); }' >mod.c
cc -shared -fPIC -Wl,-soname,libpython3.99.so.1.0 -o libpython3.99.so.1.0 py.c || fail "cc"
cc -shared -fPIC -o mod.so mod.c -L. -l:libpython3.99.so.1.0 || fail "cc"
rm libpython3.99.so.1.0
cd "$T" || fail "cd"
VELES_SCRIPT_MODULE=$T/fake/mod.so fails 1 veles script -i c.data -s check.py
has "$T/err" '^veles: script: Python is not available: .*libpython3.99.so.1.0: cannot open shared object file.*install libpython3'
# Without the module itself, the error says that, not that Python is missing.
VELES_SCRIPT_MODULE=$T/fake/no-such.so fails 1 veles script -i c.data -s check.py
has "$T/err" '^veles: script: the Python module .*/fake/no-such.so is not there: veles was built without it'
hasnt "$T/err" 'libpython'
