#!/bin/bash
# veles serve's project pages over HTTP: a version's page (the commit, its
# refs, its profiles and check's verdict against the parent, the same as
# `veles check`), a profile's page and each of its views (the very page
# `veles show ID VIEW -o x.html` writes, served sandboxed; the memory
# report, heap map and trace summary as JSON), the diff of two profiles
# and of two versions (the numbers of `veles diff`) with the differential
# flame graph; errors: unknown ids 404, bad queries 400. Real profiles:
# collect time, memory and an aggregate trace where the machine allows,
# else the shipped example profiles.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"
command -v curl >/dev/null || { echo "skipped: needs curl"; exit 77; }
py=/usr/bin/python3

new_git_project proj
cp "$VELES_SRCDIR/examples/list_search.c" . && git add list_search.c && git commit -qm "list search"
cc -O1 -o prog list_search.c || fail "cc"
collect() { veles collect time -r 5 -q -- ./prog 800 800 >/dev/null 2>&1 || fail "collect time"; }
id_of() { sed -n "s/.*  $1 .*  \([0-9a-f]\{8\}\)\$/\1/p" "$T/out"; }
collect && ok veles add -q 0@p
ok veles status
time_old=$(id_of time)
git tag v1.0
commit_change "the second version"
collect
# A memory profile and an aggregate trace profile; the shipped ones where
# the collectors cannot run here.
export VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so"
cc -g -O0 -fno-omit-frame-pointer -o basic "$VELES_SRCDIR/tests/data/memory/basic.c" || fail "cc basic"
if ! veles collect memory -q -- ./basic >/dev/null 2>&1; then
	cp "$VELES_SRCDIR/tests/data/profiles/memory.perf" .veles/jobs/basic-memory.perf
fi
ds=$VELES_SRCDIR/examples/ds
# shellcheck disable=SC2046
if ! ${CC:-cc} -O1 $(veles cflags trace) -o ds_driver "$ds/ds_driver.c" "$ds/ds.c" -lpthread ||
	! veles collect trace --instrumented --aggregate -q -- ./ds_driver 100 30 >/dev/null 2>&1; then
	cp "$VELES_SRCDIR/tests/data/profiles/trace.perf" .veles/jobs/trace.perf
fi
ok veles add -q 0@p 1@p 2@p
head=$(git rev-parse HEAD)
first=$(git rev-parse HEAD~1)
ok veles status
mem=$(id_of memory)
trace=$(id_of mixed)
time_new=$(id_of time)
[ -n "$mem" ] && [ -n "$trace" ] && [ -n "$time_new" ] || fail "ids: $(cat "$T/out")"

serve_start --read-only

# The version's page.
expect 200 GET "/api/project/versions/$head"
cp "$T/body" "$T/version.json"
[ "$(jq_ 'd["id"]')" = "$head" ] || fail "version id"
[ "$(jq_ 'd["summary"]')" = "the second version" ] || fail "summary"
[ "$(jq_ '[p["id"] for p in d["parents"]]')" = "['$first']" ] || fail "parents"
[ "$(jq_ '[r["name"] + ":" + r["kind"] for r in d["refs"]]')" = "['main:branch']" ] || fail "refs"
[ "$(jq_ 'd["head"]')" = True ] || fail "head"
[ "$(jq_ 'd["read_only"]')" = True ] || fail "read_only"
[ "$(jq_ 'sorted(p["type"] for p in d["profiles"])')" = "['memory', 'mixed', 'time']" ] ||
	fail "profiles: $(cat "$T/body")"
[ "$(jq_ '[p["collector"] for p in d["profiles"] if p["type"] == "time"]')" = "['time']" ] ||
	fail "collector"
[ "$(jq_ 'len(d["check"]["unmatched"])')" = 2 ] || fail "unmatched"
# The verdicts are check's own, location by location (whatever they are:
# the two versions run the same code, and a loaded machine may still make
# a difference of them; exit 1 says check found one).
veles check head --format json >"$T/check.json" 2>"$T/err"
[ $? -le 1 ] || fail "check head: $(cat "$T/err")"
$py - "$T/version.json" "$T/check.json" <<'PY' || fail "verdicts differ from veles check"
import json, sys
page = json.load(open(sys.argv[1]))["check"]["pairs"]
cli = json.load(open(sys.argv[2]))["results"]
assert len(page) == 1 and page[0]["changes"], page
got = sorted((c["location"], c["class"], c["method"]) for c in page[0]["changes"])
want = sorted((c["location"], c["result"], c["method"]) for c in cli)
assert got == want, (got, want)
close = lambda x, y: (x is None and y is None) or abs(x - y) <= 1e-9 * max(1, abs(y))
for c in page[0]["changes"]:
    (w,) = [r for r in cli if r["location"] == c["location"] and r["method"] == c["method"]]
    for k in ("rel_change", "ci_low", "ci_high", "baseline", "target"):
        assert close(c[k], w.get(k)), (k, c[k], w.get(k))
PY
# The tag of the first version, and a version named by a branch or tag.
expect 200 GET /api/project/versions/v1.0
[ "$(jq_ 'd["id"]')" = "$first" ] || fail "v1.0"
[ "$(jq_ '[r["name"] for r in d["refs"]]')" = "['v1.0']" ] || fail "tag ref"
[ "$(jq_ 'd["parents"]')" != "[]" ] || fail "parents of the first"
expect 404 GET /api/project/versions/nosuchversion
expect 404 GET /api/project/versions/0000000000000000000000000000000000000000
expect 404 GET "/api/project/versions/$head/more"

# A profile's page: the header and the views that apply.
expect 200 GET "/api/project/profiles/$time_new"
[ "$(jq_ 'd["type"]')" = time ] || fail "type"
[ "$(jq_ 'd["version"]')" = "$head" ] || fail "its version"
[ "$(jq_ 'd["cmd"]')" = ./prog ] || fail "cmd"
[ "$(jq_ '"bars" in [v["name"] for v in d["views"]]')" = True ] || fail "bars of time"
[ "$(jq_ '"flamegraph" in [v["name"] for v in d["unavailable"]]')" = True ] ||
	fail "a time profile has no flame graph"
expect 200 GET "/api/project/profiles/$mem"
names=$(jq_ '" ".join(v["name"] for v in d["views"])')
for v in bars flow flamegraph memory heapmap; do
	case " $names " in *" $v "*) ;; *) fail "memory profile: no $v view ($names)" ;; esac
done
expect 200 GET "/api/project/profiles/$trace"
tnames=$(jq_ '" ".join(v["name"] for v in d["views"])')
case " $tnames " in *" flamegraph "* | *" histogram "*) ;; *) fail "trace views: $tnames" ;; esac
# An aggregate trace profile's summary: show's figures, function by function.
case " $tnames " in *" trace "*)
	expect 200 GET "/api/project/profiles/$trace/views/trace"
	cp "$T/body" "$T/trace.json"
	ok veles show "$trace" --format json
	$py - "$T/trace.json" "$T/out" <<'PY' || fail "trace summary differs from show"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["unit"] == b["unit"], (a["unit"], b["unit"])
fa = {f["uid"]: f for f in a["functions"]}
fb = {f["uid"]: f for f in b["functions"]}
assert fa.keys() == fb.keys() and fa, (fa.keys(), fb.keys())
for u, f in fb.items():
    for k in ("calls", "total", "p50", "p99"):
        assert f[k] is None and fa[u][k] is None or abs(fa[u][k] - f[k]) <= 1e-9 * max(1, abs(f[k])), (u, k)
PY
	expect 200 GET "/api/project/profiles/$trace/views/histogram"
	has "$T/body" 'VELES_FIGURE'
	;;
esac

# A graphical view is the page show -o x.html writes, sandboxed.
expect 200 GET "/api/project/profiles/$mem/views/flamegraph" "" -D "$T/headers"
ok veles show "$mem" flamegraph -o "$T/flame.html"
cmp -s "$T/body" "$T/flame.html" || fail "the flame graph differs from show -o x.html"
grep -qi '^content-security-policy:.*sandbox allow-scripts' "$T/headers" || fail "not sandboxed"
grep -qi '^x-frame-options: SAMEORIGIN' "$T/headers" || fail "frame options"
grep -qi '^content-type: text/html' "$T/headers" || fail "content type"
expect 200 GET "/api/project/profiles/$time_new/views/bars"
ok veles show "$time_new" bars -o "$T/bars.html"
cmp -s "$T/body" "$T/bars.html" || fail "bars differ from show -o x.html"
# The memory report: show memory's figures.
expect 200 GET "/api/project/profiles/$mem/views/memory"
cp "$T/body" "$T/mem.json"
ok veles show "$mem" memory --format json
$py - "$T/mem.json" "$T/out" <<'PY' || fail "memory report differs from show memory"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for k in ("allocations", "releases", "bytes", "temporary", "peak", "leaked", "leaked_blocks"):
    assert a[k] == b[k], (k, a[k], b[k])
assert [s["uid"] for s in a["by_count"]][:5] == [s["uid"] for s in b["by_count"]][:5]
PY
expect 200 GET "/api/project/profiles/$mem/views/heapmap"
[ "$(jq_ 'all(len(f["cells"]) == d["rows"] * d["cols"] for f in d["frames"])')" = True ] ||
	fail "heap map frames"
[ "$(jq_ 'len(d["frames"]) > 0')" = True ] || fail "no frame"
# A view that does not apply, an unknown view, ids that are none.
expect 404 GET "/api/project/profiles/$time_new/views/flamegraph"
has "$T/body" 'call stack'
expect 404 GET "/api/project/profiles/$time_new/views/nosuch"
expect 400 GET /api/project/profiles/not-an-id
expect 400 GET /api/project/profiles/abc
expect 404 GET /api/project/profiles/0123456789abcdef
has "$T/body" 'no profile'

# The diff of two profiles: veles diff's numbers.
expect 200 GET "/api/project/diff?a=$time_old&b=$time_new"
cp "$T/body" "$T/diff.json"
ok veles diff --format json -n 0 "$time_old" "$time_new"
$py - "$T/diff.json" "$T/out" <<'PY' || fail "diff table differs from veles diff"
import json, sys
page, cli = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
(pair,) = page["pairs"]
assert pair["flamegraph"] is False
# veles diff prints 6 significant digits, the API 10.
assert [r["name"] for r in pair["rows"]] == [r["name"] for r in cli], (pair["rows"], cli)
for r, w in zip(pair["rows"], cli):
    for k in ("baseline", "target"):
        assert abs(r[k] - w[k]) <= 1e-5 * abs(w[k]), (r, w)
PY
# Two versions: their profiles paired by configuration.
expect 200 GET "/api/project/diff?a=$first&b=HEAD"
[ "$(jq_ 'len(d["pairs"])')" = 1 ] || fail "pairs of versions"
[ "$(jq_ 'd["pairs"][0]["target"]["short"]')" = "$time_new" ] || fail "the paired profile"
[ "$(jq_ 'len(d["only_b"])')" = 2 ] || fail "only in HEAD"
# The differential flame graph, as veles diff writes it.
expect 200 GET "/api/project/diff?a=$mem&b=$mem"
[ "$(jq_ 'd["pairs"][0]["flamegraph"]')" = True ] || fail "flame graph offered"
expect 200 GET "/api/project/diff/flamegraph?a=$mem&b=$mem" "" -D "$T/headers"
ok veles diff "$mem" "$mem" flamegraph -o "$T/dflame.html"
cmp -s "$T/body" "$T/dflame.html" || fail "differential flame graph differs from veles diff"
grep -qi '^content-security-policy:.*sandbox' "$T/headers" || fail "diff flame not sandboxed"
expect 404 GET "/api/project/diff/flamegraph?a=$time_old&b=$time_new"
expect 400 GET "/api/project/diff?a=$time_old"
expect 400 GET "/api/project/diff"
expect 400 GET "/api/project/diff?a=HEAD&b=$time_new"
expect 400 GET "/api/project/diff/flamegraph?a=HEAD~1&b=HEAD"
expect 404 GET "/api/project/diff?a=nosuch&b=HEAD"
expect 404 GET "/api/project/diff/other?a=HEAD&b=HEAD"
# The pages themselves.
expect 200 GET "/p/v/$head"
expect 200 GET "/p/profile/$mem"
expect 200 GET "/p/diff?a=$first&b=$head"
serve_stop

# Writable: the same answers, read_only false.
serve_start
expect 200 GET "/api/project/versions/HEAD"
[ "$(jq_ 'd["read_only"]')" = False ] || fail "read_only"
serve_stop
echo ok
