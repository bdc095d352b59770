#!/bin/bash
# veles list: software events everywhere, tracepoints when tracefs is there,
# search over names and descriptions, JSON for the UI.
. "$(dirname "$0")/lib.sh"
with_tracefs "$@"
cd "$T"
ok veles list
has "$T/out" '^  task-clock +\[software\] '
has "$T/out" '^  page-faults +\[software\] '
has "$T/out" '^  rNNN +\[raw'
# Without a PMU the hardware events are listed as such, never as usable.
if ! perf_hw=$(ls /sys/bus/event_source/devices/cpu 2>/dev/null) || [ -z "$perf_hw" ]; then
	has "$T/out" '^  instructions +\[hardware, not supported\]'
fi
if [ "$(id -u)" -eq 0 ] || [ -r /sys/kernel/tracing/events/sched/sched_switch/id ]; then
	has "$T/out" '^  sched:sched_switch +\[tracepoint\] fields: prev_comm, prev_pid'
fi

# The pattern matches names and descriptions, case-insensitively.
ok veles list FAULT
has "$T/out" '^  page-faults '
has "$T/out" '^  major-faults '
hasnt "$T/out" 'task-clock'
ok veles list 'served without I/O'
has "$T/out" '^  minor-faults '
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "description search matched more than minor-faults"
ok veles list no-such-event-anywhere
[ -s "$T/out" ] && fail "an unmatched pattern listed events"

# PMU events from libpfm4's tables; LIBPFM_FORCE_PMU picks a table even
# where the CPU has no PMU to detect (then the kernel rejects them).
export LIBPFM_FORCE_PMU=skl
ok veles list INST_RETIRED
has "$T/out" '^  skl::INST_RETIRED +\[pmu(, not supported)?\] Number of instructions retired'
ok veles stat -x, -e skl::inst_retired:any_p -- true
has "$T/err" '^([0-9]+|<not supported>),,skl::inst_retired:any_p,'
# EVENT:UMASK without its PMU:: is libpfm4's too, not an unknown tracepoint.
ok veles stat -x, -e inst_retired:any_p -- true
has "$T/err" '^([0-9]+|<not supported>),,inst_retired:any_p,'
unset LIBPFM_FORCE_PMU

ok veles list --format json task-clock
/usr/bin/python3 - "$T/out" <<'EOS' || fail "bad list JSON"
import json, sys
v = json.load(open(sys.argv[1]))
e = [x for x in v if x["name"] == "task-clock"][0]
assert e["kind"] == "software" and e["supported"] is True, e
assert "description" in e
EOS

fails 2 veles list --format xml
fails 2 veles list a b
ok veles list --help
has "$T/out" '^usage: veles list'
