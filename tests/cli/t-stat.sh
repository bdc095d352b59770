#!/bin/bash
# veles stat: counts of a program with a known number of page faults, the
# output formats, interval timing shape, attaching by PID, --profile, errors.
. "$(dirname "$0")/lib.sh"
with_tracefs "$@"
cd "$T"
cc -O2 -o touch "$VELES_SRCDIR/tests/cli/touch_pages.c" || fail "cc"

faults() { # faults N: page-faults of ./touch N
	veles stat -e page-faults -x, -- ./touch "$1" 2>&1 >/dev/null | cut -d, -f1
}
base=$(faults 0)
more=$(faults 3000)
extra=$((more - base))
# Start-up varies by a few faults from run to run; the pages are exact.
[ "$extra" -ge 2990 ] && [ "$extra" -le 3010 ] || fail "3000 pages gave $extra more faults"

# The default text: task-clock with CPUs utilized, rates for software
# events, hardware events as perf shows them without a PMU.
ok veles stat -- ./touch 10
has "$T/err" "Performance counter stats for './touch 10':"
has "$T/err" '^ +[0-9]+\.[0-9]+ msec task-clock +# +[0-9.]+ CPUs utilized'
has "$T/err" '^ +[0-9]+ +page-faults +# +[0-9.]+ [KM]?/sec'
has "$T/err" 'seconds time elapsed'
if [ ! -d /sys/bus/event_source/devices/cpu ]; then
	has "$T/err" '<not supported> +instructions'
fi

# CSV with a chosen separator, JSON one object per line.
ok veles stat -x ';' -e task-clock,page-faults -- ./touch 10
has "$T/err" '^[0-9.]+;msec;task-clock;[0-9]+;100\.00;[0-9.]+;CPUs utilized$'
ok veles stat --format json -e page-faults,cycles -- ./touch 10
/usr/bin/python3 - "$T/err" <<'EOS' || fail "bad stat JSON"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pf = [r for r in rows if r["event"] == "page-faults"][0]
assert pf["supported"] and pf["counter-value"] > 10 and pf["enabled-ns"] > 0, pf
cy = [r for r in rows if r["event"] == "cycles"][0]
assert cy["counter-value"] is None or cy["counter-value"] >= 0, cy
EOS

# Tracepoints count like any event when tracefs is there.
if [ -r /sys/kernel/tracing/events/syscalls/sys_enter_getpid/id ] ||
	[ -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ]; then
	ok veles stat -x, -e raw_syscalls:sys_enter -- ./touch 1
	n=$(cut -d, -f1 "$T/err")
	[ "$n" -gt 5 ] || fail "raw_syscalls:sys_enter counted $n"
fi

# -I 10 over ~0.2 s: a line per interval, 10 ms apart.
ok veles stat -I 10 -x, -e task-clock -- sleep 0.2
/usr/bin/python3 - "$T/err" <<'EOS' || fail "interval shape"
import statistics, sys
t = [float(l.split(",")[0]) for l in open(sys.argv[1])]
gaps = [b - a for a, b in zip(t, t[1:])]
# a loaded host can stretch `sleep 0.2` and wake us late now and then
assert 18 <= len(t) <= 60, len(t)
assert 0.008 <= statistics.median(gaps) <= 0.013, statistics.median(gaps)
# absolute deadlines: the k-th line is near k * 10 ms, however late one
# was; lateness does not carry over, so most lines are on time
on_time = [abs(x - 0.01 * (k + 1)) < 0.004 for k, x in enumerate(t[:-1])]
assert sum(on_time) >= 0.8 * len(on_time), t
EOS
ok veles stat -I 10 -e page-faults -- ./touch 0 50
has "$T/err" '^#           time             counts unit events'
has "$T/err" '^ +0\.0[0-9]+ +[0-9]+ +page-faults'

# The command's failure is ours; one we cannot run is an error.
veles stat -e task-clock -- sh -c 'exit 3' 2>/dev/null
[ $? -eq 3 ] || fail "exit status of the command not passed on"
fails 1 veles stat -e task-clock -- ./no-such-program
has "$T/err" "cannot run ./no-such-program"

# Attaching to a running process: counts until it exits.
./touch 0 400 &
pid=$!
ok veles stat -p "$pid" -e task-clock,page-faults -x,
has "$T/err" ',msec,task-clock,'
wait "$pid"
# A sleeping process's intervals are not counted; as in perf the line keeps
# the event's unit and, never multiplexed, 100% running.
sleep 0.25 &
ok veles stat -p "$!" -I 50 -e task-clock,page-faults -x,
has "$T/err" '^[0-9.]+,<not counted>,msec,task-clock,0,100\.00,,$'
has "$T/err" '^[0-9.]+,<not counted>,,page-faults,0,100\.00,,$'

# Bad input.
fails 2 veles stat -e no-such-event -- ./touch 1
has "$T/err" "^veles stat: unknown event 'no-such-event' \(see veles list\)$"
# perf's precise modifiers (p, pp, ppp): counted, or not supported without
# a PMU, but a known event either way.
ok veles stat -x, -e cycles:pp,instructions:upp -- ./touch 1
has "$T/err" '^([0-9]+|<not supported>),,cycles:pp,'
has "$T/err" '^([0-9]+|<not supported>),,instructions:upp,'
fails 2 veles stat -e page-faults,bogus:tracepoint -- ./touch 1
has "$T/err" "unknown event 'bogus:tracepoint'"
fails 2 veles stat -e page-faults
has "$T/err" "nothing to count"
# Without tracefs (unmounted in a mount namespace of the test's own), root
# mounts it as perf does and counts the tracepoint; anyone else is told why,
# once, not "unknown event".
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null && command -v setpriv >/dev/null; then
	unshare -m --propagation private sh -c '
		umount /sys/kernel/tracing 2>/dev/null
		umount /sys/kernel/debug/tracing 2>/dev/null
		[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] && exit 77
		"$1" stat -e sched:sched_switch,page-faults -- true >/dev/null 2>&1 || exit 3
		[ -d /sys/kernel/tracing/events ] || exit 4
		umount /sys/kernel/tracing || exit 5
		cd /tmp && setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$1" stat -e sched:sched_switch,page-faults -- true
	' sh "$VELES" >"$T/out" 2>"$T/err"
	st=$?
	[ $st -eq 77 ] && fail "tracefs cannot be unmounted in a namespace of our own"
	[ $st -ne 3 ] || fail "root could not count a tracepoint with tracefs unmounted"
	[ $st -ne 4 ] || fail "veles did not mount tracefs"
	[ $st -eq 1 ] || fail "stat of a tracepoint without tracefs exited $st"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "not one error line: $(cat "$T/err")"
	has "$T/err" "^veles stat: tracepoint 'sched:sched_switch': tracefs is not mounted \(as root: mount -t tracefs"
	hasnt "$T/err" 'unknown event|--help'
fi
fails 2 veles stat -I 0 -- ./touch 1
fails 2 veles stat -p 1 -- ./touch 1
fails 2 veles stat --format xml -- ./touch 1
ok veles stat --help
has "$T/out" '^usage: veles stat'

# Without root and with perf_event_paranoid above 0, system-wide counting
# is refused with a message that says what to change.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	cp "$VELES" "$T/veles-copy" && chmod 755 "$T" "$T/veles-copy"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/veles-copy" stat -a -e task-clock -- /bin/true >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] || fail "system-wide stat as nobody did not fail"
	has "$T/err" '^veles: no permission to open task-clock system-wide \(perf_event_paranoid is [0-9]+\): run as root or set /proc/sys/kernel/perf_event_paranoid to 0 or less'
	# Another user's process: paranoia is not the obstacle, ownership is.
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/veles-copy" stat -p 1 -e task-clock >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] || fail "stat -p 1 as nobody did not fail"
	has "$T/err" "^veles: no permission to open task-clock on process 1: it is not yours"
fi

# --profile files the counts in .veles/jobs/ like any collector's.
new_git_project p
cp "$T/touch" .
ok veles stat --profile -e page-faults,task-clock -- ./touch 100
has "$T/err" 'veles stat: saved .*/\.veles/jobs/touch-stat-100-.*\.perf'
[ "$(npending)" -eq 1 ] || fail "no pending profile"
f=$(find .veles/jobs -name '*.perf')
/usr/bin/python3 - "$(json_of "$f")" <<'EOS' || fail "bad stat profile"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["veles_type"] == "counters" and p["collector_info"]["name"] == "stat", p["header"]
pf = p["resources"]["page-faults#0"]
assert len(pf["amount"]) == 1 and pf["amount"][0] > 100, pf
assert pf["running-ns"][0] > 0 and pf["enabled-ns"][0] >= pf["running-ns"][0], pf
t = p["resource_type_map"]["page-faults#0"]
assert t["type"] == "counter" and t["subtype"] == "count", t
assert p["origin"], "no origin"
EOS
ok veles status
has "$T/out" "counters +touch-stat-100"
# With -I, one measurement per event and interval, stamped with its end.
rm .veles/jobs/*.perf
ok veles stat --profile -I 10 -e task-clock -- sleep 0.1
f=$(find .veles/jobs -name '*.perf')
/usr/bin/python3 - "$(json_of "$f")" <<'EOS' || fail "bad interval profile"
import json, sys
p = json.load(open(sys.argv[1]))
tc = p["resources"]["task-clock#0"]
ts = tc["timestamp"]
assert len(ts) >= 1 and ts == sorted(ts) and ts[-1] < 1, ts
EOS
ok veles show 0@p summary
has "$T/out" "task-clock"

# System-wide (root here): every CPU's clock.
if [ "$(id -u)" -eq 0 ]; then
	ok veles stat -a -x, -e cpu-clock -- sleep 0.1
	/usr/bin/python3 - "$T/err" "$(nproc)" <<'EOS' || fail "system-wide cpu-clock"
import sys
f = open(sys.argv[1]).read().strip().split(",")
assert f[2] == "cpu-clock" and abs(float(f[5]) - int(sys.argv[2])) < 0.2, f
EOS
fi
