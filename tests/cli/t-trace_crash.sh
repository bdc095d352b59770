#!/bin/bash
# veles collect trace --instrumented of a program that dies: by SIGSEGV,
# SIGABRT, or SIGKILL from outside. The runtime's records are in its
# files as they are made, so every call the program completed is kept, in
# both builds and in --aggregate; the profile says which signal ended it
# (header.killed_by), the collection succeeds with a warning, and only a
# program that ran no hook at all is said not to be built for tracing.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
data=$VELES_SRCDIR/tests/data/trace

# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace) -o dies_fi "$data/dies.c" -lpthread || fail "build dies_fi"
# shellcheck disable=SC2046
${CC:-cc} -O2 $(veles cflags trace --pg) -o dies_pg "$data/dies.c" -lpthread || fail "build dies_pg"
${CC:-cc} -O2 -o dies_plain "$data/dies.c" -lpthread || fail "build dies_plain"

# counts PROFILE: "UID TID CALLS" per function and thread, sorted.
counts() {
	$py - "$(json_of "$1")" <<'PY'
import collections, json, sys
p = json.load(open(sys.argv[1]))
out = collections.Counter()
for k, v in p["resources"].items():
    uid = p["resource_type_map"][k]["uid"]
    for i, t in enumerate(v["tid"] if "tid" in v else v["thread"]):
        out[uid, t] += v["calls"][i] if "calls" in v else 1
for (uid, t), n in sorted(out.items()):
    print(uid, t, n)
PY
}

killed_by() {
	$py -c 'import json, sys; print(json.load(open(sys.argv[1]))["header"].get("killed_by", "-"))' \
		"$(json_of "$1")"
}

# Died by a signal the program raised: exact counts, 5000 work calls and
# ten leaves each; main never returns.
for b in fi pg; do
	for how in segv:SIGSEGV:11 abort:SIGABRT:6; do
		IFS=: read -r what sig num <<<"$how"
		for mode in "" --aggregate; do
			# shellcheck disable=SC2086
			ok veles collect trace --instrumented $mode -- "./dies_$b" "$what" 5000
			has "$T/err" "^Warning: './dies_$b' killed by signal $num"
			p=$(newest)
			[ "$(killed_by "$p")" = "$sig" ] || fail "$b $what $mode: killed_by $(killed_by "$p")"
			counts "$p" | awk '{print $1, $3}' >"$T/counts"
			printf 'leaf 50000\nwork 5000\n' | diff - "$T/counts" >&2 ||
				fail "$b $what $mode: the calls before the signal"
		done
	done
done

# SIGKILL from outside, three threads: each thread's work calls are its
# own count (the program counts each after it returns), or one more (the
# kill came between the return and the count); its leaves ten times that,
# up to ten more. In both builds, records and sums.
for b in fi pg; do
	for mode in "" --aggregate; do
		rm -f count.bin
		# shellcheck disable=SC2086
		veles collect trace --instrumented $mode -- "./dies_$b" kill 0 count.bin 2 \
			>"$T/out" 2>"$T/err" &
		collector=$!
		# Until each thread returned 1000 calls (or two minutes on a
		# machine that crawls: the counts below hold at any moment).
		for _ in $(seq 1 2400); do
			[ -s count.bin ] && [ "$($py -c 'import struct, sys; d = open(sys.argv[1], "rb").read(); print(min(struct.unpack("4Q", d)[1:]))' count.bin 2>/dev/null || echo 0)" -gt 1000 ] && break
			sleep 0.05
		done
		prog=$($py -c 'import struct, sys; print(struct.unpack("Q", open(sys.argv[1], "rb").read(8))[0])' count.bin)
		kill -9 "$prog" || fail "no program to kill"
		wait "$collector" || { cat "$T/err" >&2; fail "$b $mode: the collection failed"; }
		has "$T/err" "^Warning: './dies_$b' killed by signal 9"
		p=$(newest)
		[ "$(killed_by "$p")" = SIGKILL ] || fail "$b $mode: killed_by $(killed_by "$p")"
		counts "$p" >"$T/counts"
		$py - count.bin "$T/counts" <<'PY' || fail "$b $mode: calls lost at the kill"
import struct, sys
want = sorted(struct.unpack("4Q", open(sys.argv[1], "rb").read())[1:])
got = {"work": [], "leaf": []}
for line in open(sys.argv[2]):
    uid, tid, n = line.split()
    got[uid].append(int(n))
work, leaf = sorted(got["work"]), sorted(got["leaf"])
assert len(work) == 3 and len(leaf) == 3, got
for c, w in zip(want, work):
    assert c <= w <= c + 1, (want, work)
for c, l in zip(want, leaf):
    assert 10 * c <= l <= 10 * c + 20, (want, leaf)
PY
	done
done

# A program that dies before any traced function returns is not blamed
# on its build; one that ran no hook at all is.
fails 1 veles collect trace --instrumented -- ./dies_fi segv 0
has "$T/err" "'./dies_fi' killed by signal 11 \(Segmentation fault\) before it returned from any function traced"
fails 2 veles collect trace --instrumented -- ./dies_plain exit 10
has "$T/err" "recorded no calls: was it built with"
