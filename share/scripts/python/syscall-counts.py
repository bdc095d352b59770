# description: system call counts, by name
# args: [comm]
# record: -e raw_syscalls:sys_enter
#
# How often each system call was made: every raw_syscalls:sys_enter of the
# recording counted by its number, printed by name, most frequent first.
# With a process name, only that process's calls are counted.
import sys

from Core import autodict
from Util import syscall_name

for_comm = sys.argv[1] if len(sys.argv) > 1 else None
syscalls = autodict()


def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs,
                            common_pid, common_comm, id, args):
    if for_comm is not None and common_comm != for_comm:
        return
    try:
        syscalls[id] += 1
    except TypeError:
        syscalls[id] = 1


def trace_end():
    if for_comm is not None:
        print("\nsyscall events for %s:\n" % for_comm)
    else:
        print("\nsyscall events:\n")
    print("%-40s %10s" % ("event", "count"))
    print("%-40s %10s" % ("-" * 40, "-" * 10))
    for id, count in sorted(syscalls.items(), key=lambda kv: (-kv[1], kv[0])):
        print("%-40s %10d" % (syscall_name(id), count))
