#!/bin/bash
# bench/script.sh BUILD_DIR: events per second of `veles script` with an
# empty handler, beside `perf script -s` with the same handler on a
# recording of the same workload (raw_syscalls:sys_enter of a program making
# N getppid calls; target: veles at least 2x perf). Each tool reads its own
# recording; the events each holds are counted once, untimed, by a counting
# script, and the runs take turns TURNS times (default 5): medians.
set -eu
build=$(cd "${1:-build}" && pwd)
veles=$build/src/cli/veles
turns=${TURNS:-5}
calls=${CALLS:-300000}
[ -x "$veles" ] || { echo "script: build $veles first" >&2; exit 1; }
command -v cc >/dev/null || { echo "script: needs cc" >&2; exit 1; }
if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then
	echo "script: skipped: tracefs is not mounted (tracepoints need it)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat >calls.c <<'EOC'
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	for (long i = 0; i < n; i++)
		getppid();
	return 0;
}
EOC
cc -O2 -o calls calls.c
printf 'def raw_syscalls__sys_enter(*args):\n    pass\n' >empty.py
cat >count.py <<'EOC'
n = 0
def raw_syscalls__sys_enter(*args):
    global n
    n += 1
def trace_end():
    print(n)
EOC

if ! "$veles" record -e raw_syscalls:sys_enter -o v.data -- ./calls "$calls" 2>rec.err; then
	echo "script: skipped: veles record cannot open tracepoints here: $(tail -1 rec.err)"
	exit 0
fi
nv=$("$veles" script -i v.data -s count.py 2>/dev/null)
np=""
if ! command -v perf >/dev/null; then
	why="perf is not installed"
elif ! perf record -q -e raw_syscalls:sys_enter -o p.data -- ./calls "$calls" >/dev/null 2>rec.err; then
	why="perf record failed: $(tail -1 rec.err)"
elif ! np=$(perf script -i p.data -s count.py 2>run.err | tail -1) || [ -z "$np" ]; then
	why="perf script -s cannot run Python here: $(grep -v '^$' run.err | tail -1)"
	np=""
fi

timed() { # prints the seconds a command took
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( t1 - t0 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >tv
: >tp
for _ in $(seq "$turns"); do
	timed "$veles" script -i v.data -s empty.py >>tv
	[ -n "$np" ] && timed perf script -i p.data -s empty.py >>tp
done
tv=$(median <tv)
rate_v=$(awk -v n="$nv" -v t="$tv" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
if [ -z "$np" ]; then
	echo "script: veles $rate_v events/s ($nv events in $((tv / 1000000)) ms, median of $turns);" \
		"perf not measured: $why"
	exit 0
fi
tp=$(median <tp)
rate_p=$(awk -v n="$np" -v t="$tp" 'BEGIN { printf "%.0f", n / (t / 1e9) }')
awk -v rv="$rate_v" -v rp="$rate_p" -v nv="$nv" -v np="$np" -v tv="$tv" -v tp="$tp" -v k="$turns" 'BEGIN {
	r = rv / rp
	printf "script with an empty handler (median of %d): veles %.0f events/s (%d in %.0f ms), " \
		"perf script -s %.0f events/s (%d in %.0f ms): %.1fx (target: >= 2x: %s)\n",
		k, rv, nv, tv / 1e6, rp, np, tp / 1e6, r, (r >= 2 ? "ok" : "MISSED")
}'
