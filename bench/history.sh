#!/bin/sh
# veles serve's history page over a project of 10,000 versions x 20
# metrics: how long the page takes to open (the API's answers, and the
# page drawn in headless Chromium when playwright-core and chromium are
# there), and how soon the store index follows a `veles add` and a
# `veles pull` (the whole next request: the index's refresh and the
# answer). Peer: `veles log --perf` over the same store, the terminal's
# way to the same history.
# usage: bench/history.sh BUILD_DIR [VERSIONS [METRICS]]
set -eu
build=${1:?usage: bench/history.sh BUILD_DIR [VERSIONS [METRICS]]}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
n=${2:-10000}
m=${3:-20}
veles=$build/src/cli/veles
populate=$build/bench/history_populate
[ -x "$populate" ] && [ -x "$veles" ] || { echo "history.sh: build $build first" >&2; exit 1; }
command -v curl >/dev/null || { echo "history.sh: needs curl" >&2; exit 1; }
tmp=$(mktemp -d)
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
repo=$tmp/repo
echo "populating $n versions x $m metrics..." >&2
"$populate" "$repo" "$n" "$m"
cd "$repo"

export XDG_RUNTIME_DIR=$tmp
"$veles" serve --listen 127.0.0.1:0 --no-token --data "$tmp/data" >"$tmp/serve.log" 2>&1 &
spid=$!
for _ in $(seq 100); do grep -q '^veles serve: open ' "$tmp/serve.log" && break; sleep 0.1; done
url=$(sed -n 's/^veles serve: open \(http:[^?]*\).*/\1/p' "$tmp/serve.log")
[ -n "$url" ] || { cat "$tmp/serve.log" >&2; exit 1; }

# ms of one GET (its whole answer read)
get_ms() {
	curl -s -o "$tmp/body" -w '%{time_total}\n' "${url%/}$1" | awk '{ printf "%.1f", $1 * 1000 }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

cold=$(get_ms '/api/project/versions?limit=200')
echo "index built from nothing (first request, $n versions x $m metrics): $cold ms"
# check's verdicts of a whole new history are made in the background; what
# follows is measured meanwhile (the machine's other core busy with them),
# and their end is awaited last.
t0=$(date +%s.%N)

# The page's requests as it opens: the versions list's first page, the
# metrics, the first metric's history.
for _ in 1 2 3 4 5 6 7; do
	a=$(get_ms '/api/project/versions?limit=200')
	b=$(get_ms '/api/project/metrics')
	c=$(get_ms '/api/project/history?series=1')
	echo "$a $b $c" | awk '{ print $1 + $2 + $3 }'
done | median >"$tmp/api"
api=$(cat "$tmp/api")
points=$(python3 -c "import json; print(len(json.load(open('$tmp/body'))['history']['points']))")
echo "history page's API answers (versions, metrics, a history of $points points): $api ms (target < 1000)"

browser=
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ] && command -v node >/dev/null &&
	[ -d "$src/web/node_modules/playwright-core" ]; then
	browser=$(node "$src/bench/history-browser.mjs" "${url%/}/p/" 5)
	echo "history page opened in Chromium (answers + chart + list drawn): $browser ms (target < 1000)"
else
	echo "history page in Chromium: skipped (needs chromium, node, web/node_modules)"
fi

# A profile added to the newest version: the next request's time.
head=$(git rev-parse HEAD)
for i in 1 2 3 4 5; do
	printf '{"origin":"add%s","header":{"type":"time","cmd":"./prog","workload":"1000","units":{"time":"s"}},"collector_info":{"name":"time","params":{}},"resources":[{"amount":0.1%s,"uid":"./prog","subtype":"m00"}]}' \
		"$i" "$i" >"$tmp/add$i.perf"
	"$veles" add -q -f "$tmp/add$i.perf"
	get_ms '/api/project/versions?limit=1'
	echo
	python3 -c "import json,sys; v=json.load(open('$tmp/body'))['versions'][0]; sys.exit(0 if v['id']=='$head' and v['profiles']==$((i + 1)) else 1)" ||
		{ echo "history.sh: the added profile is not in the answer" >&2; exit 1; }
done | median >"$tmp/add"
add=$(cat "$tmp/add")
echo "index updated after a veles add (the next request, whole): $add ms (target < 100)"
# Its verdict follows from the background: how long after that request.
t0=$(date +%s.%N)
while curl -s "${url%/}/api/project/versions?limit=1" | grep -q '"verdict_pending":true'; do
	sleep 0.01
done
t1=$(date +%s.%N)
echo "$t0 $t1" | awk '{ printf "  its verdict (check against the parent) in the answers %.0f ms later\n", ($2 - $1) * 1000 }'
first=$(get_ms '/api/project/history?series=1')
echo "  the first history of a series after the change (change points made again): $first ms"

# A pull of a clone's new profile (on the version before HEAD).
cp -a "$repo" "$tmp/clone"
for i in 1 2 3; do
	(cd "$tmp/clone" &&
		printf '{"origin":"pull%s","header":{"type":"time","cmd":"./prog","workload":"1000","units":{"time":"s"}},"collector_info":{"name":"time","params":{}},"resources":[{"amount":0.2%s,"uid":"./prog","subtype":"m00"}]}' \
			"$i" "$i" >"$tmp/pull$i.perf" &&
		"$veles" add -q -f -m HEAD~1 "$tmp/pull$i.perf")
	"$veles" pull -q "$tmp/clone" >/dev/null 2>&1 || "$veles" pull "$tmp/clone" >/dev/null
	get_ms '/api/project/versions?limit=2'
	echo
	python3 -c "import json,sys; v=json.load(open('$tmp/body'))['versions'][1]; sys.exit(0 if v['profiles']==$((i + 1)) else 1)" ||
		{ echo "history.sh: the pulled profile is not in the answer" >&2; exit 1; }
done | median >"$tmp/pull"
pull=$(cat "$tmp/pull")
echo "index updated after a veles pull (the next request, whole): $pull ms (target < 100)"

while curl -s "${url%/}/api/project/versions?limit=100000" | grep -q '"verdict_pending":true'; do
	sleep 1
done
t1=$(date +%s.%N)
echo "$t0 $t1" | awk -v n="$n" '{ printf "check'"'"'s verdicts of all %d versions made in the background: %.0f s after the first request\n", n, $2 - $1 }'

peer=$(/usr/bin/time -f %e "$veles" log --perf '[m00]' 2>&1 >/dev/null | tail -1 | awk '{ printf "%.1f", $1 * 1000 }')
open=${browser:-$api}
echo "$open $peer" | awk '{ printf "peer: veles log --perf [m00] over the same store %s ms; the history page opens in %.2fx its time\n", $2, $1 / $2 }'
