#!/bin/bash
# veles serve in a real browser (headless Chromium driven by playwright-core,
# see serve.mjs): sessions, the events list, live stat, record's hot
# function, reloading a run's whole screen, downloads read back (HDF5 with
# h5py), deleting, two browsers queueing, escaping, the token.
# Skipped (77) without chromium, node or web/node_modules.
. "$(dirname "$0")/needs.sh"
. "$VELES_SRCDIR/tests/cli/lib.sh"
. "$VELES_SRCDIR/tests/cli/serve-lib.sh"
cd "$T" || exit 1
if ! can_count; then
	echo "skipped: perf_event_open refuses software events here"
	exit 77
fi
cc -O1 -g -o "$T/hot" "$VELES_SRCDIR/tests/cli/serve_hot.c" || fail "cc"
# Its hot function named <script>alert(1)</script>: skipped where the
# assembler cannot spell such a name.
cc -O1 -g -o "$T/uid" "$VELES_SRCDIR/tests/cli/serve_uid.c" || { echo "skipped: the assembler refuses a quoted symbol name"; exit 77; }

# A non-loopback address without a token is refused outright.
fails 1 veles serve --listen 0.0.0.0:0 --no-token --data "$T/x"
has "$T/err" 'needs a token'

serve_start
# A second server on every address: the page asks for its token.
"$VELES" serve --listen 0.0.0.0:0 --data "$T/data2" >"$T/serve2.log" 2>&1 &
SPID2=$!
trap 'serve_stop; kill $SPID2 2>/dev/null; wait $SPID2 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do grep -qs '^veles serve: open ' "$T/serve2.log" && break; sleep 0.1; done
SURL2=$(sed -n 's/^veles serve: open http:\/\/[^:]*\(:[0-9]*\/\).*/http:\/\/127.0.0.1\1/p' "$T/serve2.log")
STOKEN2=$(sed -n 's/^veles serve: open .*?token=//p' "$T/serve2.log")
mkdir -p "$T/dl"
export SURL STOKEN SURL2 STOKEN2 HOT="$T/hot" MARKUP="$T/uid" DATA="$T/data" DL="$T/dl"
node "$VELES_SRCDIR/tests/browser/serve.mjs" >"$T/result" || { cat "$T/result"; fail "browser"; }
cat "$T/result"

# What the page downloaded: the CSV, the record file, the HDF5 file.
head -1 "$T/dl/stat.csv" | grep -q '^time,"task-clock","minor-faults"$' || fail "CSV header: $(head -1 "$T/dl/stat.csv")"
[ "$(wc -l <"$T/dl/stat.csv")" -gt 2 ] || fail "CSV rows"
ok veles report -i "$T/dl/record.data"
has "$T/out" 'hot_spin'
/usr/bin/python3 - "$T/dl/stat.h5" "$T/dl/record.h5" "$T/dl/session.h5" <<'EOS' || fail "HDF5 downloads"
import sys, h5py
s = h5py.File(sys.argv[1])
(g,) = list(s)
assert list(s[g]["stat/axis0"]) == [b"task-clock", b"minor-faults"], list(s[g]["stat/axis0"])
assert s[g]["stat/block0_values"].shape[0] > 2
r = h5py.File(sys.argv[2])
(g,) = list(r)
assert r[g]["hot/axis1"][0] == b"hot_spin", list(r[g]["hot/axis1"])
# The session's file: its three runs (stat, record, the uid's record).
a = h5py.File(sys.argv[3])
assert len(a) == 3 and g in a, list(a)
assert sorted(a[k].attrs["tool"] for k in a) == [b"record", b"record", b"stat"]
assert b"<script>alert(1)</script>" in [a[k]["hot/axis1"][0] for k in a if "hot" in a[k]]
try:
    import pandas
except ImportError:
    sys.exit(0)
df = pandas.read_hdf(sys.argv[1], list(s)[0] + "/stat")
assert list(df.columns) == ["task-clock", "minor-faults"], df.columns
EOS
exit 0
