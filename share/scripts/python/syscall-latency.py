# description: system call latency per process: calls, total, min, avg, max
# args: [comm]
# record: -e raw_syscalls:sys_enter,raw_syscalls:sys_exit
#
# Pairs each thread's raw_syscalls:sys_enter with its next sys_exit and
# sums the time between them per process and system call. Calls still
# running when recording stopped (and exits whose entry came before it
# started) are left out.
import sys

from Util import nsecs, syscall_name

for_comm = sys.argv[1] if len(sys.argv) > 1 else None
entered = {}  # tid -> (id, time of entry)
stats = {}    # (comm, pid, id) -> [count, total, min, max]


def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs,
                            common_pid, common_comm, id, args):
    entered[common_pid] = (id, nsecs(common_secs, common_nsecs))


def raw_syscalls__sys_exit(event_name, context, common_cpu, common_secs, common_nsecs,
                           common_pid, common_comm, id, ret):
    start = entered.pop(common_pid, None)
    if start is None or start[0] != id:
        return
    if for_comm is not None and common_comm != for_comm:
        return
    took = nsecs(common_secs, common_nsecs) - start[1]
    s = stats.get((common_comm, common_pid, id))
    if s is None:
        stats[(common_comm, common_pid, id)] = [1, took, took, took]
    else:
        s[0] += 1
        s[1] += took
        s[2] = min(s[2], took)
        s[3] = max(s[3], took)


def trace_end():
    print("%-16s %7s %-20s %8s %12s %10s %10s %10s" %
          ("comm", "pid", "syscall", "calls", "total (us)", "min (us)", "avg (us)", "max (us)"))
    for (comm, pid, id), (n, total, lo, hi) in sorted(
            stats.items(), key=lambda kv: (-kv[1][1], kv[0])):
        print("%-16s %7d %-20s %8d %12.3f %10.3f %10.3f %10.3f" %
              (comm, pid, syscall_name(id), n, total / 1e3, lo / 1e3, total / n / 1e3,
               hi / 1e3))
