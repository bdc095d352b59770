# description: wakeup latency, system-wide: min, avg, max per process
# args:
# record: -a -e sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_switch
#
# The time from a task's wakeup (sched_wakeup, or sched_wakeup_new for a
# new task) to the sched_switch that puts it on a CPU, summed per process
# name. Needs every CPU's switches, so it records with -a (as root).
from Util import nsecs

woken = {}  # pid -> time of its wakeup
stats = {}  # comm -> [count, total, min, max]
total = [0, 0, None, 0]


def sched__sched_wakeup(event_name, context, common_cpu, common_secs, common_nsecs,
                        common_pid, common_comm, comm, pid, *rest):
    woken.setdefault(pid, nsecs(common_secs, common_nsecs))


sched__sched_wakeup_new = sched__sched_wakeup


def add(s, took):
    s[0] += 1
    s[1] += took
    s[2] = took if s[2] is None else min(s[2], took)
    s[3] = max(s[3], took)


def sched__sched_switch(event_name, context, common_cpu, common_secs, common_nsecs,
                        common_pid, common_comm, prev_comm, prev_pid, prev_prio, prev_state,
                        next_comm, next_pid, *rest):
    start = woken.pop(next_pid, None)
    if start is None:
        return
    took = nsecs(common_secs, common_nsecs) - start
    add(stats.setdefault(next_comm, [0, 0, None, 0]), took)
    add(total, took)


def trace_end():
    n, tot, lo, hi = total
    print("wakeup latency: %d wakeups" % n)
    if not n:
        return
    print("  min %.3f us, avg %.3f us, max %.3f us\n" % (lo / 1e3, tot / n / 1e3, hi / 1e3))
    print("%-20s %8s %10s %10s %10s" % ("comm", "wakeups", "min (us)", "avg (us)", "max (us)"))
    for comm, (cnt, t, mn, mx) in sorted(stats.items(), key=lambda kv: (-kv[1][3], kv[0])):
        print("%-20s %8d %10.3f %10.3f %10.3f" % (comm, cnt, mn / 1e3, t / cnt / 1e3, mx / 1e3))
