#!/bin/bash
# veles record + report: sampling a program finds its hot function; the
# record file is ours (docs/perf-data.md); errors are one line.
. "$(dirname "$0")/lib.sh"
with_tracefs "$@"
cd "$T"
cc -O1 -fno-omit-frame-pointer -o hot "$VELES_SRCDIR/tests/cli/hot.c" || fail "cc"

ok veles record -F 999 -g -o hot.data -- ./hot
has "$T/err" '^veles record: [0-9]+ samples of (cycles|cpu-clock) written to hot.data'
has "$T/out" '^[01]$'
head -c 8 hot.data | grep -q VELESPD1 || fail "no VELESPD1 magic"

ok veles report -i hot.data
has "$T/out" "^# Samples: [0-9]+ of event '(cycles|cpu-clock)'"
# The first line is the hot function, with most of the samples.
first=$(grep -v '^#' "$T/out" | head -1)
echo "$first" | grep -Eq ' hot +hot +\[\.\] hot_loop$' || fail "top line is not hot_loop: $first"
# hot_loop runs some eight times as long as cold_loop. On a loaded host
# the kernel's own samples (scheduling, interrupts) dilute both alike
# (hot_loop was seen at 58% there), so the two are compared with each other.
has "$T/out" '\[\.\] cold_loop$'
share=$(echo "$first" | awk '{print int($1)}')
cold=$(grep '\[\.\] cold_loop$' "$T/out" | head -1 | awk '{print int($1) + 1}')
[ "$share" -ge $((3 * cold)) ] || fail "hot_loop has $share% of the samples, cold_loop $cold%"

# Call chains: hot_loop is called from main (middle's frame pointer is not
# pushed when the sample lands before its prologue, so match loosely).
ok veles report -i hot.data -g --format json
/usr/bin/python3 - "$T/out" <<'EOS' || fail "bad report JSON"
import json, sys
r = json.load(open(sys.argv[1]))
top = r["entries"][0]
assert top["symbol"] == "hot_loop" and top["object"] == "hot", top
assert any("main" in c["chain"] for c in top["callers"]), top["callers"]
assert r["samples"] > 10, r["samples"]
EOS

# Collapsed stacks for flame graphs: outermost first, counts summing to
# the samples.
ok veles report -i hot.data --folded
has "$T/out" '^hot;.*main;hot_loop [0-9]+$'
total=$(awk '{n += $NF} END {print n}' "$T/out")
samples=$(veles report -i hot.data | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p")
[ "$total" -eq "$samples" ] || fail "folded counts $total, samples $samples"

# A fixed period instead of a frequency; the default file name.
ok veles record -e cpu-clock -c 1000000 -- ./hot
[ -s veles.data ] || fail "no veles.data"
ok veles report
has "$T/out" 'hot_loop'

# Attaching to a running process until it exits.
./hot >/dev/null &
pid=$!
ok veles record -o pid.data -p "$pid"
wait "$pid"
ok veles report -i pid.data --min 0
has "$T/out" 'hot_loop|cold_loop'

# A program that moves to another CPU: its samples on CPU 0 sit in the
# file after CPU 1's buffer held its mmap records, or before them; report
# replays by time, so they are named all the same.
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	cc -O1 -o pinhop "$VELES_SRCDIR/tests/cli/pinhop.c" || fail "cc pinhop"
	ok veles record -o hop.data -- taskset -c 1 ./pinhop
	ok veles report -i hop.data --format json --min 0
	# Kernel samples (interrupts on a loaded host) are left out of the count.
	/usr/bin/python3 - "$T/out" <<'EOS' || fail "samples of a migrating program unnamed"
import json, sys
r = json.load(open(sys.argv[1]))
user = [e for e in r["entries"] if not e["kernel"]]
spin = sum(e["samples"] for e in user if e["symbol"] == "spin_loop")
total = sum(e["samples"] for e in user)
assert total > 100 and spin >= 0.95 * total, (spin, total, r["entries"][:4])
EOS
fi

# -a names what was running before it began: mmap records from
# /proc/PID/maps let a running program's samples be symbolised. hot runs
# for seconds (a loaded machine or the ASan build may take more than its
# 0.2 s to start recording) and is stopped once the recording is done.
if [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ]; then
	./hot 40 >/dev/null &
	pid=$!
	for _ in $(seq 200); do
		[ "$(readlink "/proc/$pid/exe")" = "$T/hot" ] && break
		sleep 0.01
	done
	ok veles record -a -o all.data -- sleep 0.2
	kill "$pid" 2>/dev/null
	wait "$pid"
	ok veles report -i all.data --format json --min 0
	/usr/bin/python3 - "$T/out" <<'EOS' || fail "samples of a running program unnamed with -a"
import json, sys
r = json.load(open(sys.argv[1]))
user = [e for e in r["entries"] if e["command"] == "hot" and not e["kernel"]]
named = sum(e["samples"] for e in user if e["symbol"] in ("hot_loop", "cold_loop"))
total = sum(e["samples"] for e in user)
assert total >= 10 and named >= 0.8 * total, (named, total, user[:4])
EOS
fi

# A stripped program's functions come from its separate debug file, found
# by build-id under $VELES_DEBUGINFO_PATH or by its .gnu_debuglink beside
# it; a debug file of another build is not taken.
mkdir dbg && cd dbg || fail "cd dbg"
cc -g -O1 -fno-omit-frame-pointer -Wl,--build-id -o hot "$VELES_SRCDIR/tests/cli/hot.c" ||
	fail "cc -g"
cc -g -O1 -fno-omit-frame-pointer -Wl,--build-id -O2 -o other "$VELES_SRCDIR/tests/cli/hot.c"
objcopy --only-keep-debug hot hot.debug && strip hot && objcopy --add-gnu-debuglink=hot.debug hot ||
	fail "objcopy"
objcopy --only-keep-debug other other.debug || fail "objcopy other"
id=$(readelf -n hot | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "no build-id"
ok veles record -F 999 -o dbg.data -- ./hot
mv hot.debug keep.debug
export VELES_DEBUGINFO_PATH="$T/dbg/none"
ok veles report -i dbg.data
hasnt "$T/out" 'hot_loop'
# By debuglink: beside the program, then in its .debug/ directory.
cp keep.debug hot.debug
ok veles report -i dbg.data
has "$T/out" ' hot +hot +\[\.\] hot_loop$'
mkdir .debug && mv hot.debug .debug/
ok veles report -i dbg.data
has "$T/out" ' hot +hot +\[\.\] hot_loop$'
# A debug file of another build under the link's name: its CRC differs.
cp other.debug .debug/hot.debug
ok veles report -i dbg.data
hasnt "$T/out" 'hot_loop'
rm -r .debug
# By build-id.
mkdir -p "bid/.build-id/${id:0:2}"
cp keep.debug "bid/.build-id/${id:0:2}/${id:2}.debug"
VELES_DEBUGINFO_PATH="$T/dbg/none:$T/dbg/bid" ok veles report -i dbg.data
has "$T/out" ' hot +hot +\[\.\] hot_loop$'
cp other.debug "bid/.build-id/${id:0:2}/${id:2}.debug"
VELES_DEBUGINFO_PATH="$T/dbg/bid" ok veles report -i dbg.data
hasnt "$T/out" 'hot_loop'
unset VELES_DEBUGINFO_PATH
cd "$T"

# --profile files the samples as a profile with traces.
new_git_project p
cp "$T/hot" .
ok veles record --profile -g -F 999 -o r.data -- ./hot
has "$T/err" 'veles record: saved .*/\.veles/jobs/hot-record-.*\.perf'
[ "$(npending)" -eq 1 ] || fail "no pending profile"
f=$(find .veles/jobs -name '*.perf')
/usr/bin/python3 - "$(json_of "$f")" <<'EOS' || fail "bad record profile"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["veles_type"] == "samples" and p["collector_info"]["name"] == "record"
assert p["collector_info"]["params"]["call_graph"] is True
by_uid = {}
for k, t in p["resource_type_map"].items():
    by_uid.setdefault(t["uid"], 0)
    by_uid[t["uid"]] += sum(p["resources"][k]["amount"])
    if t["uid"] == "hot_loop" and t["subtype"] == "hot":
        assert any(f["func"] == "main" for f in t["trace"]), t
assert max(by_uid, key=by_uid.get) == "hot_loop", by_uid
EOS
ok veles show 0@p summary
has "$T/out" 'hot_loop +hot'
# Its flame graph: callers outermost first, the sampled function on top.
ok veles show 0@p flamegraph -o "$T/fg.svg"
has "$T/fg.svg" '<title>main$'
has "$T/fg.svg" '^[0-9,]+ samples, [0-9.]+% of all'
has "$T/fg.svg" '<title>hot_loop$'
hasnt "$T/fg.svg" '<title>\?$'
# The recording itself is the input of show, as that profile.
ok veles show r.data
has "$T/out" '^Command: +hot$'
has "$T/out" '^Collector: +record \{"event":"cpu-clock","freq":999,"call_graph":true\}$'
has "$T/out" 'hot_loop +hot'
ok veles show r.data flamegraph -o "$T/fg2.svg"
has "$T/fg2.svg" '<title>hot_loop$'
cp r.data "$f" "$T/"
cd "$T"
# Outside any project, files named by path are shown all the same.
[ -d "$T/.veles" ] && fail "the test directory is a project"
ok veles show r.data
has "$T/out" 'hot_loop +hot'
ok veles show r.data flamegraph -o "$T/fg3.svg"
has "$T/fg3.svg" '<title>hot_loop$'
ok veles show "$(basename "$f")" summary
has "$T/out" 'hot_loop +hot'
fails 2 veles show 0@p
has "$T/err" 'not a Veles project'

# Errors.
fails 2 veles record -e no-such-event -- ./hot
has "$T/err" "^veles record: unknown event 'no-such-event' \(see veles list\)$"
# As another user, a tracepoint is refused for want of privilege (tracefs
# is root's; raw tracepoint data needs perf_event_paranoid -1), and says so.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	[ -d /sys/kernel/tracing/events ]; then
	cp "$VELES" "$T/veles-copy" && chmod 755 "$T" "$T/veles-copy"
	mkdir -m 777 "$T/nb"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$T/veles-copy" record \
		-e raw_syscalls:sys_enter -o "$T/nb/x.data" -- /bin/true >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] || fail "record of a tracepoint as nobody did not fail"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "not one error line: $(cat "$T/err")"
	has "$T/err" '^veles( record)?: .*(no permission|run as root)'
	hasnt "$T/err" 'unknown event'
fi
fails 2 veles record
fails 2 veles record -F 0 -- ./hot
fails 1 veles record -o x.data -- ./no-such-program
has "$T/err" "cannot run ./no-such-program"
[ -e x.data ] && fail "a failed record left its file"
fails 1 veles report -i missing.data
echo "not a recording" >bad.data
fails 1 veles report -i bad.data
has "$T/err" 'not a veles record file'
ok veles record --help
has "$T/out" '^usage: veles record'
ok veles report --help
has "$T/out" '^usage: veles report'
true
