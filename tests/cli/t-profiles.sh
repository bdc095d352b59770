#!/bin/bash
# The seeds' example profiles, Perun's layouts, compression and bad input,
# through the CLI.
. "$(dirname "$0")/lib.sh"
D="$VELES_SRCDIR/tests/data/profiles"
new_git_project p

ok veles show "$D/trace.perf" summary
has "$T/out" "SLList_search\(SLList\*, int\)"
ok veles show "$D/trace.perf" table
[ "$(grep -c 'SLList_insert' "$T/out")" -eq 4 ] || fail "trace rows"
ok veles show "$D/memory.perf" table
has "$T/out" "../memory_collect_test.c:main:22"
ok veles show "$D/time.perf" table
[ "$(grep -c 'list_search' "$T/out")" -eq 6 ] || fail "time rows"
ok veles show "$D/bounds.perf" summary
has "$T/out" "partitioning"

# The seed's time example as printed, with its trailing comma.
fails 1 veles show "$D/time-seed-original.perf"
has "$T/err" "time-seed-original.perf:[0-9]+:[0-9]+: "

# Registered, read back, and still valid JSON for other readers.
for f in trace memory time bounds; do
	ok veles add -f "$D/$f.perf"
done
ok veles status
has "$T/out" "Profiles of this version \(4\)"
for i in 0 1 2 3; do
	ok veles show "$i@i" raw
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || fail "raw $i"
done

# Compressed profiles are read as they are.
python3 - "$D/trace.perf" "$T" <<'EOS'
import sys, zlib, gzip
data = open(sys.argv[1], "rb").read()
open(sys.argv[2] + "/z.perf", "wb").write(zlib.compress(data))
open(sys.argv[2] + "/g.perf", "wb").write(gzip.compress(data))
# How a Perun store keeps an object: a header, then the JSON, deflated.
open(sys.argv[2] + "/perun-object", "wb").write(zlib.compress(b"profile mixed %d\0" % len(data) + data))
EOS
for f in z.perf g.perf perun-object; do
	ok veles show "$T/$f" summary
	has "$T/out" "SLList_search"
done

# A missing required key names it.
echo '{"resources": {}, "header": {"cmd": "x"}}' >"$T/nokey.perf"
fails 1 veles show "$T/nokey.perf"
has "$T/err" "header.type"
printf '\x28\xb5\x2f\xfd garbage' >"$T/badzstd.perf"
fails 1 veles show "$T/badzstd.perf"

# Every truncation of a profile is a clean error, never a crash.
size=$(wc -c <"$D/memory.perf")
for cut in $(seq 1 41 "$size"); do
	head -c "$cut" "$D/memory.perf" >"$T/cut.perf"
	veles show "$T/cut.perf" >/dev/null 2>"$T/err"
	rc=$?
	[ "$rc" -eq 1 ] || fail "truncated at $cut: exit $rc"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "truncated at $cut: $(cat "$T/err")"
done
