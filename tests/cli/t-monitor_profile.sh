# veles monitor -- CMD (sample while a command runs) and --profile (its
# load as a Veles profile); veles collect monitor.
. "$VELES_SRCDIR/tests/cli/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }

# runs the command, samples until it exits, exits with its status
cd "$T" || exit 1
ok veles monitor -s c -P -i 0.05 -- sleep 0.3
lines=$(wc -l <"$T/out")
[ "$lines" -ge 4 ] && [ "$lines" -le 9 ] || fail "-- sleep 0.3 at 0.05: $lines lines"
"$VELES" monitor -s c -i 0.05 -- sh -c 'sleep 0.1; exit 3' >/dev/null 2>&1
[ $? -eq 3 ] || fail "the command's exit status"
fails 1 veles monitor -s c -- /nonexistent/prog
fails 2 veles monitor -s c sleep 1
fails 2 veles monitor --profile -s c
fails 2 veles monitor -p x -- true

# --profile: a pending profile of the summary values per interval
new_git_project p
ok veles monitor --profile -s cmD -i 0.05 -- sleep 0.3
has "$T/out" '^monitor: [0-9]+ values over 0\.[0-9] s$'
[ "$(npending)" -eq 1 ] || fail "one pending profile"
f=$(find .veles/jobs -name 'sleep-monitor-*.perf')
[ -n "$f" ] || fail "profile name"
/usr/bin/python3 - "$(json_of "$f")" <<'PY' || fail "profile contents"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["header"]["type"] == "mixed" and d["header"]["veles_type"] == "monitor"
assert d["header"]["cmd"] == "sleep"
assert d["collector_info"]["name"] == "monitor"
assert d["collector_info"]["params"]["subsystems"] == "cm"  # D is a detail
r = d["global"]["resources"]
uids = {x["uid"] for x in r}
assert {"cpu.user", "cpu.sys", "mem.free", "mem.tot"} <= uids, uids
assert all(x["type"] == "monitor" for x in r)
orders = sorted({x["order"] for x in r})
assert orders == list(range(1, len(orders) + 1)) and len(orders) >= 3, orders
tot = [x["amount"] for x in r if x["uid"] == "mem.tot"]
assert len(set(tot)) == 1 and tot[0] > 0
assert all(0 <= x["amount"] <= 100 for x in r if x["uid"] == "cpu.user")
PY
ok veles add 0@p
ok veles show 0@i
has "$T/out" 'monitor'

# --profile exits with the command's status, as -- CMD does
rm -f .veles/jobs/*.perf
"$VELES" monitor --profile -s c -i 0.05 -- sh -c 'sleep 0.1; exit 3' >/dev/null 2>&1
[ $? -eq 3 ] || fail "--profile: the command's exit status"
# a command shorter than one interval still gives its interval of values
rm -f .veles/jobs/*.perf
start=$(date +%s)
ok veles monitor --profile -s c -i 5 -- true
[ $(($(date +%s) - start)) -lt 4 ] || fail "--profile waited an interval after the command"
has "$T/out" '^monitor: [1-9][0-9]* values over 0\.[0-9] s$'
# -c, --on and --import reach the profile; what it cannot use is refused
rm -f .veles/jobs/*.perf
VELES_MODULE_PATH="$VELES_BUILDDIR/plugins" ok veles monitor --profile -s c -i 0.05 -c 2 --on \
	--import hello -- sleep 0.6
f=$(find .veles/jobs -name 'sleep-monitor-*.perf')
/usr/bin/python3 - "$(json_of "$f")" <<'PY' || fail "--profile -c 2 --on --import hello"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["collector_info"]["params"].get("per_interval") is True, d["collector_info"]
r = d["global"]["resources"]
assert sorted({x["order"] for x in r}) == [1, 2], sorted({x["order"] for x in r})
hello = [x["amount"] for x in r if x["uid"] == "hello.hello1"]
assert len(hello) == 2 and all(a > 0 for a in hello), hello
PY
fails 2 veles monitor --profile -i 0 -- true
fails 2 veles monitor --profile --sep , -- true
fails 2 veles monitor --profile -P -- true
rm -f .veles/jobs/*.perf

# the same through veles collect
ok veles collect monitor -s m -i 0.05 -- sleep 0.2
[ "$(npending)" -eq 1 ] || fail "collect monitor: a pending profile"
fails 2 veles collect monitor -s C -- true
fails 2 veles collect monitor -i 0 -- true
# the command's output: suppressed, or captured to the log and not shown
ok veles collect monitor -s m -i 0.05 -o suppress -- sh -c 'echo hidden-out; echo hidden-err >&2'
hasnt "$T/out" "^hidden"
hasnt "$T/err" "^hidden"
ok veles collect monitor -s m -i 0.05 -o capture -- sh -c 'echo kept-out; echo kept-err >&2'
hasnt "$T/out" "^kept"
log=$(ls .veles/logs/*monitor*.log) || fail "capture: no log"
grep -q kept-out "$log" && grep -q kept-err "$log" || fail "capture: the log misses output"
ok veles collect monitor -s m -i 0.05 -- sh -c 'echo shown'
has "$T/out" '^shown$'
rm -f .veles/jobs/*.perf

# --timeout stops the command (SIGTERM, then SIGKILL) and keeps its load
rm -f .veles/jobs/*.perf
start=$(date +%s)
ok veles collect monitor -s c -i 0.05 --timeout 0.3 -- sleep 30
[ $(($(date +%s) - start)) -lt 10 ] || fail "--timeout 0.3 did not stop sleep 30"
has "$T/err" '^Warning: command stopped by --timeout after 0\.3 s \(killed by signal 15'
[ "$(npending)" -eq 1 ] || fail "--timeout: the profile is written"
ok veles collect monitor -s c -i 0.05 --timeout 0.2 -- sh -c 'trap "" TERM; exec sleep 30'
has "$T/err" 'after 0\.2 s \(killed by signal 9'
[ $(($(date +%s) - start)) -lt 20 ] || fail "--timeout: SIGKILL after the grace"
fails 2 veles collect monitor --timeout 0 -- true

# a recording is the input of veles show: the same numbers as its playback
ok veles monitor -s cmD -i 0.05 -c 4 -f "$T/rec"
ok veles show "$T/rec"
has "$T/out" '^Type: +monitor$'
has "$T/out" '^Collector: +monitor \{"subsystems":"cmd","interval":0\.05,"host":'
has "$T/out" '^cpu\.user +cpu +4 '
has "$T/out" '^dsk\.kbread +dsk +4 '
ok veles show "$T/rec" table
has "$T/out" '^mem\.free +monitor +mem +[0-9.e+]+ +0\.0[0-9]* +1$'
ok veles show "$T/rec" raw
cp "$T/out" "$T/rec.json"
ok veles monitor -p "$T/rec" -P -s m
/usr/bin/python3 - "$T/rec.json" "$T/out" <<'PY' || fail "show and playback differ"
import json, sys
rows = json.load(open(sys.argv[1]))["global"]["resources"]
free = {int(r["order"]): float(r["amount"]) for r in rows if r["uid"] == "mem.free"}
lines = open(sys.argv[2]).read().split("\n")
head = lines[0].split()
col = head.index("[MEM]Free")
plot = [float(l.split()[col]) for l in lines[1:] if l]
assert len(plot) == 4 and [free[k] for k in sorted(free)] == plot, (free, plot)
PY
ok veles show flow "$T/rec" --filter-by uid mem.free --no-accumulate
has "$T/out" 'time'
ok veles show "$T/rec" scatter -o "$T/s.svg"
grep -q '<svg' "$T/s.svg" || fail "scatter of a recording"
ok veles monitor -s m -i 0.01 -c 30 -f "$T/long"
head -c $(($(stat -c %s "$T/long") * 2 / 3)) "$T/long" >"$T/cut"
ok veles show "$T/cut"
has "$T/err" 'damaged: played back its first [0-9]+ samples'
has "$T/out" '^mem\.free +mem +[0-9]+ '
ok veles collect monitor --help
has "$T/out" '^usage: veles collect monitor'

# a recording's modules join its profile as with --profile: show loads the
# modules its header names and plays their lines back to them
ok veles monitor -s m --import hello:misc -i 0.05 -c 3 -f "$T/modrec"
ok veles show "$T/modrec"
has "$T/out" '^Arguments: +-s m -i 0\.05 --import hello:misc -f '
has "$T/out" '"modules":"hello:misc"'
has "$T/out" '^hello\.hello1 +hello +3 '
has "$T/out" '^hello\.hello3 +hello +3 '
has "$T/out" '^misc\.uptime +misc +3 '
ok veles show "$T/modrec" raw
cp "$T/out" "$T/modrec.json"
ok veles monitor -p "$T/modrec" --import hello:misc --export lexpr
/usr/bin/python3 - "$T/modrec.json" "$T/out" <<'PY' || fail "show and playback differ on module values"
import json, sys
rows = json.load(open(sys.argv[1]))["global"]["resources"]
for uid in ("hello.hello1", "hello.hello2", "misc.logins", "misc.cpumhz"):
    shown = [float(r["amount"]) for r in sorted(rows, key=lambda r: r["order"]) if r["uid"] == uid]
    played = [float(l.split()[1]) for l in open(sys.argv[2]) if l.split()[0] == uid]
    assert len(shown) == 3 and shown == played, (uid, shown, played)
    assert all(r["subtype"] == uid.split(".")[0] for r in rows if r["uid"] == uid)
PY
# a recording names no code to run: a module recorded by its path is
# looked up by name in the module directories; one not there loses only
# its own values
mkdir "$T/mine"
cp "$VELES_BUILDDIR/plugins/hello.so" "$T/mine/hi.so"
ok veles monitor -s m --import "$T/mine/hi.so:misc" -i 0.05 -c 2 -f "$T/hirec"
VELES_MODULE_PATH="$T/mine" ok veles show "$T/hirec"
has "$T/out" '^hello\.hello1 +hello +2 '
ok veles show "$T/hirec"
has "$T/err" "^veles: cannot find module hi\.so: no hi\.so in .*: its records are left out$"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "a module not found: one line: $(cat "$T/err")"
hasnt "$T/out" '^hello\.'
has "$T/out" '^misc\.uptime +misc +2 '
has "$T/out" '^mem\.free +mem +2 '
# a long --import (a module deep in directories, over a kilobyte) reaches
# the shown profile whole
long="$T/mine"
while [ ${#long} -lt 1200 ]; do long="$long/dddddddddddddddddddddddddddddddddddddddddddddddddd"; done
mkdir -p "$long" && cp "$VELES_BUILDDIR/plugins/hello.so" "$long/hi.so"
ok veles monitor -s m --import "$long/hi.so:misc" -i 0.05 -c 2 -f "$T/longrec"
VELES_MODULE_PATH="$T/mine" ok veles show "$T/longrec"
grep -qF -- "--import $long/hi.so:misc -f $T/longrec" "$T/out" || fail "the long --import cut short"
grep -qF -- "\"modules\":\"$long/hi.so:misc\"" "$T/out" || fail "the long modules param cut short"
has "$T/out" '^misc\.uptime +misc +2 '
