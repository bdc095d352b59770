#!/bin/bash
# bench/serve.sh BUILD_DIR: veles serve's targets (docs/serve.md), with a
# peer where there is one, in the same run:
#  - start-up until the server answers, and its memory with a session
#    open in a browser; peer: python3 -m http.server (a server that does
#    nothing but serve files);
#  - the API: GET /api/runs/ID with wrk, CONNECTIONS clients for API_S
#    seconds while a stat -I 10 run streams to a page; peer: the same wrk
#    on python3 -m http.server's GET of a small file;
#  - live latency: PAGES headless Chromium pages follow a `stat -I 10` run
#    for LIVE_S seconds: delay from each row's time to its arrival in the
#    page (p50, p99), the same for a plain client beside them (the server's
#    side of it), and the server's own CPU over that time;
#  - a 1,000,000-row series drawn in the page from the server's summary,
#    exact once zoomed in; beside it the same points given to uPlot whole.
# The durations are parameters (the targets' are LIVE_S=60 PAGES=10
# CONNECTIONS=50); the defaults are shorter for a loaded machine.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
veles=$build/src/cli/veles
LIVE_S=${LIVE_S:-20}
PAGES=${PAGES:-10}
API_S=${API_S:-10}
CONNECTIONS=${CONNECTIONS:-50}
ROWS=${ROWS:-1000000}
for tool in wrk curl node python3 sqlite3; do
	command -v $tool >/dev/null || { echo "serve: needs $tool (scripts/deps.sh)" >&2; exit 1; }
done
[ -x "$veles" ] || { echo "serve: build $veles first" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench-serve.XXXXXX")
pids=()
# Each process gets 5 s to stop after SIGTERM, then SIGKILL: a server
# still holding a page's stream must not keep the bench from ending.
cleanup() {
	local status=$?

	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$p" 2>/dev/null; then
			echo "serve: $(ps -o args= -p "$p" | cut -c1-60) did not stop on SIGTERM" >&2
			kill -9 "$p" 2>/dev/null || true
		fi
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT

ms() { echo $(($(date +%s%N) / 1000000)); }

# start_veles: a server on a free port; URL, TOKEN, PID set, and TOOK: the
# milliseconds from exec until it answered.
start_veles() {
	local t0 t1
	t0=$(ms)
	"$veles" serve --listen 127.0.0.1:0 --data "$tmp/data" --quiet >"$tmp/serve.log" 2>&1 &
	PID=$!
	pids+=("$PID")
	until grep -q '^veles serve: open' "$tmp/serve.log"; do sleep 0.001; done
	URL=$(sed -n 's/^veles serve: open \(http:[^?]*\).*/\1/p' "$tmp/serve.log")
	TOKEN=$(sed -n 's/.*?token=//p' "$tmp/serve.log")
	until curl -sf -o /dev/null "$URL"; do sleep 0.001; done
	t1=$(ms)
	TOOK=$((t1 - t0))
}

# start_peer: python3 -m http.server on a free port, the same way.
start_peer() {
	local t0 t1 port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -p "$tmp/www" && echo '{"small":"file"}' >"$tmp/www/run.json"
	t0=$(ms)
	python3 -m http.server "$port" --bind 127.0.0.1 --directory "$tmp/www" >/dev/null 2>&1 &
	PEER=$!
	pids+=("$PEER")
	PEER_URL="http://127.0.0.1:$port/"
	until curl -sf -o /dev/null "$PEER_URL"; do sleep 0.001; done
	t1=$(ms)
	TOOK=$((t1 - t0))
}

api() { # api METHOD PATH [JSON]
	curl -sf -X "$1" -H "Authorization: Bearer $TOKEN" -H 'X-Veles-CSRF: 1' \
		${3:+-H 'Content-Type: application/json' --data-binary "$3"} "${URL%/}$2"
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "== start-up and memory"
# Until a GET / is answered, polled from Python (no process per poll).
startup() { # startup CMD...: milliseconds, median of 7 (a fresh data folder once before)
	python3 - "$@" <<'EOS'
import socket, subprocess, sys, time, statistics
cmd = sys.argv[1:]
def once(port):
    t0 = time.perf_counter()
    p = subprocess.Popen([a.replace("PORT", str(port)) for a in cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
            if s.recv(64).startswith(b"HTTP/1"):
                break
        except OSError:
            time.sleep(0.0002)
    took = (time.perf_counter() - t0) * 1000
    p.terminate()
    p.wait()
    return took
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port
first = once(free())
print(f"{statistics.median(once(free()) for _ in range(7)):.1f} {first:.1f}")
EOS
}
mkdir -p "$tmp/www" && echo '{"small":"file"}' >"$tmp/www/run.json"
read -r start_ms first_ms < <(startup "$veles" serve --listen 127.0.0.1:PORT --data "$tmp/startup" --quiet)
read -r peer_ms _ < <(startup python3 -m http.server PORT --bind 127.0.0.1 --directory "$tmp/www")
echo "start-up until GET / is answered (median of 7, ms): veles serve $start_ms (the first, making" \
	"its database: $first_ms), python3 -m http.server $peer_ms -> ratio" \
	"$(python3 -c "print(f'{$start_ms / $peer_ms:.2f}')") (target < 50 ms)"

start_veles
start_peer
S=$(api POST /api/sessions '{"title":"bench"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
R=$(api POST /api/runs "{\"session\":\"$S\",\"events\":[\"task-clock\",\"page-faults\"],\"interval_ms\":10,\"command\":\"sleep $((LIVE_S + 4 * API_S + 120))\"}" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
until [ "$(api GET "/api/runs/$R" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = running ]; do sleep 0.1; done
rss_idle=$(rss_kb "$PID")

echo "== live latency: $PAGES pages, stat -I 10, ${LIVE_S} s"
# Beside the pages, a plain client of the same stream: the server's side
# of the delay, without a browser's.
cat >"$tmp/sse.py" <<'EOS'
import json, socket, sys, time
url, token, run, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
host, port = url.split("//")[1].rstrip("/").split(":")
s = socket.create_connection((host, int(port)))
s.sendall(f"GET /api/runs/{run}/live HTTP/1.1\r\nHost: {host}:{port}\r\n"
          f"Authorization: Bearer {token}\r\n\r\n".encode())
buf, lat, ev, t0 = b"", [], None, time.time()
while time.time() - t0 < secs:
    buf += s.recv(65536)
    now = time.time() * 1000
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        if line.startswith(b"event: "):
            ev = line[7:].strip()
        elif line.startswith(b"data: ") and ev == b"rows" and time.time() - t0 > 2:
            d = json.loads(line[6:])
            lat += [now - (d["start_ms"] + t * 1000) for t in d["t"]]
print(json.dumps(lat))
EOS
c0=$(cpu_ticks "$PID")
w0=$(ms)
python3 "$tmp/sse.py" "$URL" "$TOKEN" "$R" "$LIVE_S" >"$tmp/plain.json" &
plain=$!
node "$here/serve-browser.mjs" live "$URL" "$TOKEN" "$S" "$R" "$PAGES" "$LIVE_S" >"$tmp/lat.json"
wait "$plain"
w1=$(ms)
c1=$(cpu_ticks "$PID")
rss_live=$(rss_kb "$PID")
python3 - "$tmp/lat.json" "$c0" "$c1" "$w0" "$w1" "$(getconf CLK_TCK)" "$PAGES" "$tmp/plain.json" <<'EOS'
import json, statistics, sys
plain = sorted(json.load(open(sys.argv[8])))
lat = sorted(json.load(open(sys.argv[1])))
c0, c1, w0, w1, hz, pages = map(float, sys.argv[2:8])
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
cpu = (c1 - c0) / hz / ((w1 - w0) / 1000) * 100
print(f"rows received: {len(lat)} over {pages:.0f} pages; delay from a row's time to the page (ms): "
      f"p50 {q(0.5):.1f}, p99 {q(0.99):.1f}, max {lat[-1]:.1f} (target p99 <= 50)")
p = lambda f: plain[min(len(plain) - 1, int(f * len(plain)))]
print(f"the same stream to a plain client meanwhile (the server's side): p50 {p(0.5):.1f}, "
      f"p99 {p(0.99):.1f}, max {plain[-1]:.1f} ms; load average {open('/proc/loadavg').read().split()[0]}")
print(f"server CPU while {pages:.0f} pages follow (with the pages' own requests): {cpu:.1f}% of one core "
      f"(target <= 5%)")
EOS

echo "== API: GET /api/runs/ID, $CONNECTIONS connections, ${API_S} s, a run streaming"
curl -s -N -H "Authorization: Bearer $TOKEN" "${URL}api/runs/$R/live" >/dev/null &
pids+=("$!")
# As fast as they can (throughput), then each client paced to one request
# every 40 ms (1250/s in all: latency at the target's load, not queueing).
echo 'function delay() return 40 end' >"$tmp/paced.lua"
wrk -t2 -c"$CONNECTIONS" -d"${API_S}s" --latency -H "Authorization: Bearer $TOKEN" \
	"${URL}api/runs/$R" >"$tmp/wrk.veles"
wrk -t2 -c"$CONNECTIONS" -d"${API_S}s" --latency -s "$tmp/paced.lua" \
	-H "Authorization: Bearer $TOKEN" "${URL}api/runs/$R" >"$tmp/wrk.paced"
wrk -t2 -c"$CONNECTIONS" -d"${API_S}s" --latency "${PEER_URL}run.json" >"$tmp/wrk.peer"
wrk -t2 -c"$CONNECTIONS" -d"${API_S}s" --latency -s "$tmp/paced.lua" \
	"${PEER_URL}run.json" >"$tmp/wrk.peerpaced"
python3 - "$tmp/wrk.veles" "$tmp/wrk.peer" "$tmp/wrk.paced" "$tmp/wrk.peerpaced" <<'EOS'
import re, sys
def read(path):
    t = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
    def ms(label):
        m = re.search(label + r"%\s+([\d.]+)(us|ms|s)\b", t)
        v, u = float(m.group(1)), m.group(2)
        return v / 1000 if u == "us" else v * 1000 if u == "s" else v
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    return rps, ms("50"), ms("99"), int(errors.group(1)) if errors else 0
v, p, vp, pp = (read(a) for a in sys.argv[1:5])
print(f"as fast as they can: veles serve {v[0]:.0f} GETs/s (p50 {v[1]:.2f} ms, p99 {v[2]:.2f} ms, "
      f"{v[3]} errors); python3 -m http.server (a static file) {p[0]:.0f} GETs/s (p99 {p[2]:.2f} ms) "
      f"-> throughput ratio {v[0] / p[0]:.2f}")
print(f"paced, 50 clients a request every 40 ms each: veles serve {vp[0]:.0f} GETs/s, p50 {vp[1]:.2f} ms, "
      f"p99 {vp[2]:.2f} ms, {vp[3]} errors; python3 -m http.server {pp[0]:.0f} GETs/s, "
      f"p99 {pp[2]:.2f} ms (target >= 1000/s with p99 < 10 ms)")
EOS
echo "memory (RSS): veles serve with a session open and a run streaming $((rss_idle / 1024)) MB, " \
	"after $PAGES pages followed it $((rss_live / 1024)) MB; python3 -m http.server $(($(rss_kb "$PEER") / 1024)) MB (target < 30 MB)"
# Stopped (it may have ended by itself on a slow machine).
api POST "/api/runs/$R/cancel" >/dev/null || true

echo "== a $ROWS-row series drawn in the page"
R2=$(python3 -c 'import uuid; print(uuid.uuid4())')
now=$(ms)
sqlite3 "$tmp/data/serve.db" "INSERT INTO runs (id, session_id, seq, created, started, ended, state, tool, events, streaming, interval_ms, freq, callgraph, command, env, pid, tid, exit_status, rows_count, screen) VALUES ('$R2', '$S', 1000, $now, $now, $now, 'done', 'stat', 'synthetic', 1, 1, 0, 0, 'synthetic', '', 0, 0, 0, $ROWS, '{}')"
mkdir -p "$tmp/data/runs/$R2"
python3 - "$tmp/data/runs/$R2/series.bin" "$ROWS" "$now" <<'EOS'
import math, struct, sys
path, n, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = b"synthetic\0\0"
pad = b"\0" * ((8 - len(names) % 8) % 8)
with open(path, "wb") as f:
    f.write(b"VSERIES1" + struct.pack("<IIqII", 1, 1, start, len(names), 0) + names + pad)
    rows = bytearray()
    for i in range(n):
        rows += struct.pack("<dd", i / 1000, math.sin(i / 5000) * 1000 + (i % 97))
    f.write(rows)
EOS
node "$here/serve-browser.mjs" draw "$URL" "$TOKEN" "$R2" >"$tmp/draw.json"
python3 - "$tmp/draw.json" <<'EOS'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{d['rows']} rows: the plot page drawn from the server's summary ({d['pts']} points) "
      f"{d['summary_ms']} ms after navigating to it (target < 1000); the summary fetched and drawn "
      f"again in the page: {d['again']:.0f} ms; the same rows given to uPlot whole (no fetch): "
      f"{d['whole']:.0f} ms -> ratio {d['again'] / max(d['whole'], 1):.2f}; zoomed to 1 s: "
      f"{d['zoomRows']} rows, exact {d['zoomExact']}")
EOS
