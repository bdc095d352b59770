# veles monitor --export: lexpr to the terminal and a socket, graphite's
# plaintext protocol and prometheus's /metrics, each checked by a real
# listener on loopback.
. "$VELES_SRCDIR/tests/cli/lib.sh"
cd "$T" || exit 1
export VELES_MODULE_PATH="$VELES_BUILDDIR/plugins"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }

ok veles monitor -s cm --import hello --on --export lexpr -c 2 -i 0.05
[ "$(grep -cE '^sample\.time [0-9.]+$' "$T/out")" -eq 2 ] || fail "lexpr: two samples"
has "$T/out" '^cpu\.user [0-9]+$'
has "$T/out" '^mem\.tot [0-9]+$'
has "$T/out" '^hello\.hello3 300$'

# listen.py MODE: accepts one connection, prints what it was sent
cat >"$T/listen.py" <<'PY'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(20)
c, _ = s.accept()
data = b""
while True:
    d = c.recv(65536)
    if not d:
        break
    data += d
sys.stdout.write(data.decode())
PY
listen() { # listen OUT: starts a listener; its port in $port
	rm -f "$T/port"
	python3 "$T/listen.py" "$T/port" >"$1" &
	lpid=$!
	for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
	port=$(cat "$T/port")
}

listen "$T/graphite"
ok veles monitor -s cn --import hello --on --export "graphite,127.0.0.1:$port" -c 2 -i 0.05
wait "$lpid"
host=$(hostname | cut -d. -f1)
[ "$(grep -cE "^$host\.cpu\.user [0-9]+ [0-9]{10}$" "$T/graphite")" -eq 2 ] ||
	{ cat "$T/graphite" >&2; fail "graphite: cpu.user twice"; }
has "$T/graphite" "^$host\.net\.kbin [0-9]+ [0-9]{10}$"
has "$T/graphite" "^$host\.hello\.hello1 100 [0-9]{10}$"
[ ! -s "$T/out" ] || fail "graphite prints nothing"

# names as each protocol allows them: a module's name with a space, a
# slash and a colon keeps its dots for graphite and loses them for
# prometheus
havecc=0
"${CC:-cc}" -shared -fPIC -I "$VELES_SRCDIR/src" -o "$T/calls.so" \
	"$VELES_SRCDIR/tests/data/monitor/calls.c" 2>/dev/null && havecc=1
if [ "$havecc" = 1 ]; then
	listen "$T/graphite2"
	ok veles monitor -s c --import "$T/calls.so,$T/clog" --export "graphite,127.0.0.1:$port" \
		-c 1 -i 0.05
	wait "$lpid"
	has "$T/graphite2" "^$host\.tc\.odd_name_x_1 5 [0-9]{10}$"
fi

listen "$T/lexpr"
ok veles monitor -s m --export "lexpr,127.0.0.1:$port" -c 1 -i 0.05
wait "$lpid"
has "$T/lexpr" '^mem\.free [0-9]+$'

# prometheus: /metrics answers while sampling; other paths are 404. The
# monitor runs for up to a minute (killed below), so a slow start on a busy
# host still finds it serving.
pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$VELES" monitor -s cm --export "prometheus,$pport" -c 600 -i 0.1 >"$T/pout" 2>"$T/perr" &
vpid=$!
cat >"$T/get.py" <<'PY'
import sys, time, urllib.error, urllib.request
url = "http://127.0.0.1:%s%s" % (sys.argv[1], sys.argv[2])
for _ in range(100):
    try:
        print(urllib.request.urlopen(url, timeout=5).read().decode(), end="")
        sys.exit(0)
    except urllib.error.HTTPError as e:
        print(e.code)
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
sleep 0.3
python3 "$T/get.py" "$pport" /metrics >"$T/metrics" || fail "prometheus: no answer"
python3 "$T/get.py" "$pport" /other >"$T/other" || fail "prometheus: no answer"
kill -TERM "$vpid"
wait "$vpid" || fail "prometheus: veles failed: $(cat "$T/perr")"
host=$(hostname | cut -d. -f1)
has "$T/metrics" "^veles_cpu_user\{host=\"$host\"\} [0-9]+$"
has "$T/metrics" "^veles_mem_tot\{host=\"$host\"\} [0-9]+$"
has "$T/other" '^404$'
has "$T/metrics" '^# TYPE veles_cpu_user gauge$'
# every sample line follows its TYPE line
awk '/^# TYPE/ {t = $3; next} { split($1, a, "{"); if (a[1] != t) exit 1 }' "$T/metrics" ||
	fail "prometheus: a value without its TYPE line"

# served in every mode: back to back (-i 0), where the monitor never waits;
# names cleaned up for prometheus. curl is the client.
if command -v curl >/dev/null; then
	imp=""
	[ "$havecc" = 1 ] && imp="--import $T/calls.so,$T/clog2"
	# shellcheck disable=SC2086
	"$VELES" monitor -s c $imp --export "prometheus,$pport" -c 100000000 -i 0 \
		>"$T/pout" 2>"$T/perr" &
	vpid=$!
	got=0
	# Before the first sample the page is served empty: wait for one.
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$pport/metrics" >"$T/metrics0" &&
			grep -q "^veles_cpu_user" "$T/metrics0" && got=1 && break
		sleep 0.05
	done
	kill -TERM "$vpid"
	wait "$vpid" || fail "prometheus -i 0: veles failed: $(cat "$T/perr")"
	[ "$got" = 1 ] || fail "prometheus -i 0: nothing served"
	has "$T/metrics0" "^veles_cpu_user\{host=\"$host\"\} [0-9]+$"
	if [ "$havecc" = 1 ]; then
		has "$T/metrics0" '^# TYPE veles_tc_odd_name_x:1 gauge$'
		has "$T/metrics0" "^veles_tc_odd_name_x:1\{host=\"$host\"\} 5$"
	fi
fi

# prometheus listens on loopback unless given an address: 127.0.0.1 for a
# bare PORT, the address given otherwise (IPv6 in brackets).
# listening PORT: the local address (as /proc/net/tcp{,6} spell it) of the
# socket listening on PORT, once there is one.
listening() {
	python3 - "$1" <<'PY'
import sys, time
port = "%04X" % int(sys.argv[1])
for _ in range(400):
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(f).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            col = row.split()
            addr, p = col[1].split(":")
            if p == port and col[3] == "0A":
                print(addr)
                sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
}
# bound SPEC WANT: --export SPEC listens on WANT.
bound() {
	"$VELES" monitor -s c --export "$1" -c 100000000 -i 0.1 >/dev/null 2>"$T/perr" &
	vpid=$!
	addr=$(listening "$pport") || { kill -TERM "$vpid"; fail "$1: never listened"; }
	kill -TERM "$vpid"
	wait "$vpid" || fail "$1: veles failed: $(cat "$T/perr")"
	[ "$addr" = "$2" ] || fail "$1 listens on $addr, not $2"
}
bound "prometheus,$pport" 0100007F
bound "prometheus,127.0.0.1:$pport" 0100007F
bound "prometheus,0.0.0.0:$pport" 00000000
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	bound "prometheus,[::1]:$pport" 00000000000000000000000001000000
else
	echo "no IPv6 loopback here: [::1] not checked" >&2
fi
fails 2 veles monitor --export prometheus,::1:9100 -c 1
has "$T/err" "IPv6 address goes in brackets"
fails 2 veles monitor --export prometheus,127.0.0.1:70000 -c 1
fails 2 veles monitor --export "prometheus,[::1]9100" -c 1
fails 2 veles monitor --export nope -c 1
fails 2 veles monitor --export graphite -c 1
fails 2 veles monitor --export prometheus,abc -c 1
fails 2 veles monitor --export lexpr,nohostport -c 1
fails 1 veles monitor --export graphite,127.0.0.1:1 -c 1 -i 0.05
