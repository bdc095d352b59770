"""Util: time and system call helpers for `veles script` handlers.

Times come as (common_secs, common_nsecs) pairs; nsecs() joins them into
one number of nanoseconds, the others split and print such numbers.
syscall_name() names raw_syscalls' `id` with this machine's numbering
(x86_64's table; other machines get the number back as text).
"""
import platform

NSECS_PER_SEC = 1000000000


def avg(total, n):
    return total / n if n else 0


def nsecs(secs, nsecs):
    return secs * NSECS_PER_SEC + nsecs


def nsecs_secs(nsecs):
    return nsecs // NSECS_PER_SEC


def nsecs_nsecs(nsecs):
    return nsecs % NSECS_PER_SEC


def nsecs_str(nsecs):
    return "%5u.%09u" % (nsecs_secs(nsecs), nsecs_nsecs(nsecs))


if platform.machine() == "x86_64":
    from syscalls_x86_64 import names as _syscall_names
else:
    _syscall_names = {}


def syscall_name(id):
    """The system call's name ("read"), or its number as text when this
    machine's table has no such number."""
    return _syscall_names.get(id, str(id))
