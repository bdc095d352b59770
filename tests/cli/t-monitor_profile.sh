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
/usr/bin/python3 - "$f" <<'PY' || fail "profile contents"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["header"]["type"] == "monitor" and d["header"]["cmd"] == "sleep"
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

# the same through veles collect
ok veles collect monitor -s m -i 0.05 -- sleep 0.2
[ "$(npending)" -eq 1 ] || fail "collect monitor: a pending profile"
fails 2 veles collect monitor -s C -- true
fails 2 veles collect monitor -i 0 -- true
fails 2 veles collect monitor --timeout 5 -- true
ok veles collect monitor --help
has "$T/out" '^usage: veles collect monitor'
