#!/bin/bash
# The compact form: what .veles/jobs/ and the store keep. Collectors write
# it, add takes it (and JSON), show raw and export give Perun's JSON back
# identical in content, old JSON blobs still load, and a damaged file is
# one error line.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
D=$VELES_SRCDIR/tests/data/profiles

# magic FILE: its first four bytes in hex.
magic() { head -c 4 "$1" | od -An -tx1 | tr -d ' \n'; }

# same_json A B [KEY...]: A and B are the same JSON but for the top-level
# members KEY.
same_json() {
	local a=$1 b=$2
	shift 2
	$py - "$a" "$b" "$@" <<'PY' || fail "$a and $b differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in sys.argv[3:]:
    a.pop(k, None)
    b.pop(k, None)
assert a == b, [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
PY
}

# Every collector's pending profile is compact; show raw and export give
# the same JSON, and a reader following the seeds loads it.
ok veles collect time -r 3 -q -- true
ds=$VELES_SRCDIR/examples/ds
# shellcheck disable=SC2046
cc -O2 $(veles cflags trace) -o ds "$ds/ds_driver.c" "$ds/ds.c" -lpthread || fail "cc ds"
ok veles collect trace --instrumented -q -- ./ds 50 10
cc -g -O0 -fno-omit-frame-pointer -o basic "$VELES_SRCDIR/tests/data/memory/basic.c" || fail cc
VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so" ok veles collect memory -q -- ./basic
[ "$(npending)" -eq 3 ] || fail "three pending profiles"
for f in .veles/jobs/*.perf; do
	[ "$(magic "$f")" = 89565046 ] || fail "$f is not compact"
	ok veles show "$f" raw --compact
	cp "$T/out" "$T/raw.json"
	ok veles export "$f" -o "$T/export.json"
	has "$T/err" "profile written to $T/export.json"
	same_json "$T/raw.json" "$T/export.json"
	$py - "$T/export.json" <<'PY' || fail "$f: not a Perun profile"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["header"]["type"] in ("time", "mixed", "memory"), p["header"]
assert isinstance(p["postprocessors"], list) and isinstance(p["models"], list)
res = p["global"]["resources"] if "global" in p else p["resources"]
assert res, "no resources"
if "resources" in p:
    assert set(p["resources"]) == set(p["resource_type_map"])
    for key, r in p["resources"].items():
        n = {len(v) for v in r.values()}
        assert len(n) == 1, (key, n)
PY
	# Indented, the same again.
	ok veles export -i "$f"
	same_json "$T/out" "$T/export.json"
	# JSON -> compact -> JSON: added from its JSON, stored compact,
	# exported the same.
	ok veles add -q -k -f "$T/export.json"
done
ok veles status
has "$T/out" "Profiles of this version \(3\)"
for blob in $(git ls-tree -r refs/veles/ledger | awk '{print $3}'); do
	git cat-file -p "$blob" >"$T/blob.perf"
	[ "$(magic "$T/blob.perf")" = 89565046 ] || fail "stored blob $blob is not compact"
	ok veles show "$blob" raw
	cp "$T/out" "$T/stored.json"
	ok veles export "$blob"
	same_json "$T/out" "$T/stored.json"
done

# Pending compact profiles are what add takes, removed once registered.
ok veles add 0@p 1@p 2@p
[ "$(npending)" -eq 0 ] || fail "pending left"
has "$T/out" "Registered 3 profiles"

# Every profile of the test data: JSON -> compact -> JSON, the same
# content (the stored one is filed under HEAD, so origin differs).
for f in bounds memory time trace trace-models; do
	ok veles show "$D/$f.perf" raw
	cp "$T/out" "$T/orig.json"
	ok veles add -q -f "$D/$f.perf"
	ok veles show "$f.perf" raw
	same_json "$T/orig.json" "$T/out" origin
done

# A blob an older Veles stored as JSON still loads.
git cat-file -p HEAD >/dev/null
head=$(git rev-parse HEAD)
$py - "$D/time.perf" "$head" >"$T/old.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["origin"] = sys.argv[2]
print(json.dumps(p))
PY
old=$(git hash-object -w "$T/old.json")
GIT_INDEX_FILE=$T/index git read-tree refs/veles/ledger
GIT_INDEX_FILE=$T/index git update-index --add --cacheinfo \
	"100644,$old,versions/${head:0:2}/${head:2}/time/old-json.perf"
tree=$(GIT_INDEX_FILE=$T/index git write-tree)
commit=$(git commit-tree "$tree" -p refs/veles/ledger -m "add 1 profile to ${head:0:7}")
git update-ref refs/veles/ledger "$commit"
ok veles show "$T/old.json" raw
cp "$T/out" "$T/old-raw.json"
ok veles status
has "$T/out" "old-json.perf"
ok veles show old-json.perf raw --compact
same_json "$T/out" "$T/old-raw.json"
ok veles export "$old" -o "$T/old-out.json"
same_json "$T/old-out.json" "$T/old-raw.json"
ok veles show old-json.perf

# Damaged compact files: one error line naming the file, nothing stored.
ok veles collect time -r 2 -q -- true
f=$(newest)
size=$(stat -c %s "$f")
head -c $((size - 1)) "$f" >"$T/cut.perf"
fails 1 veles show "$T/cut.perf" raw
has "$T/err" "^veles: $T/cut.perf: truncated compact profile"
fails 1 veles export "$T/cut.perf"
has "$T/err" "truncated compact profile"
cp "$f" "$T/bad.perf"
printf '\377' | dd of="$T/bad.perf" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
fails 1 veles show "$T/bad.perf"
has "$T/err" "^veles: $T/bad.perf: corrupt compact profile"
n=$(git ls-tree -r refs/veles/ledger | wc -l)
fails 1 veles add -f "$T/bad.perf"
[ "$(git ls-tree -r refs/veles/ledger | wc -l)" -eq "$n" ] || fail "a damaged profile was stored"
head -c 12 "$f" >"$T/tiny.perf"
fails 1 veles show "$T/tiny.perf"
has "$T/err" "truncated compact profile \(12 bytes\)"

# Outside any project, a compact file by path still exports.
cp "$f" "$T/free.perf"
mkdir "$T/elsewhere" && cd "$T/elsewhere" || fail cd
ok veles export "$T/free.perf" -o "$T/free.json"
$py -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/free.json" || fail "free export"
fails 2 veles export
fails 2 veles export a b
ok veles export --help
has "$T/out" "usage: veles export"
