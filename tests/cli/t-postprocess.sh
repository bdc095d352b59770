#!/bin/bash
# veles postprocess: the command, the record it leaves, and the normalizer.
. "$(dirname "$0")/lib.sh"
new_git_project p
cp "$VELES_SRCDIR/tests/data/profiles/trace.perf" .veles/jobs/
ok veles postprocess --help
has "$T/out" "normalizer"
ok veles postprocess 0 normalizer --help
has "$T/out" "--by KEY"
[ "$(npending)" -eq 1 ] || fail "--help wrote a profile"

ok veles postprocess 0@p normalizer
has "$T/err" "profile written to .veles/jobs/tst-normalizer-"
[ "$(npending)" -eq 2 ] || fail "no new pending profile"
out=$(ls .veles/jobs/tst-normalizer-*.perf)
python3 - "$(json_of "$out")" "$VELES_SRCDIR/tests/data/profiles/trace.perf" <<'PY' || fail "normalised values"
import json, sys
new, old = (json.load(open(f)) for f in sys.argv[1:])
assert new["postprocessors"] == [{"name": "normalizer", "params": {"of": "amount", "by": "type"}}], new["postprocessors"]
def amounts(p):
    return {k: v["amount"] for k, v in p["resources"].items()}
a, b = amounts(old), amounts(new)
# every type shares one group ("mixed"): divided by the largest of all
top = max(abs(x) for v in a.values() for x in v)
for k in a:
    for x, y in zip(a[k], b[k]):
        assert abs(x / top - y) < 1e-12, (k, x, y)
assert max(abs(y) for v in b.values() for y in v) == 1.0
PY

# Postprocessing the result again appends a second record.
ok veles postprocess -o "$T/twice.perf" "$out" normalizer --by uid
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert [r["name"] for r in p["postprocessors"]] == ["normalizer", "normalizer"]
assert p["postprocessors"][1]["params"]["by"] == "uid"
top = {}
for k, v in p["resources"].items():
    uid = p["resource_type_map"][k]["uid"]
    top[uid] = max(top.get(uid, 0), max(abs(x) for x in v["amount"]))
assert set(top.values()) <= {0.0, 1.0} and 1.0 in top.values(), top
' "$T/twice.perf" || fail "--by uid"

# A file in and a file out need no project.
mkdir "$T/elsewhere" && cd "$T/elsewhere" || fail cd
ok veles postprocess -o "$T/free.perf" "$VELES_SRCDIR/tests/data/profiles/trace.perf" normalizer
has "$T/free.perf" '"name":"normalizer"'
fails 2 veles postprocess "$VELES_SRCDIR/tests/data/profiles/trace.perf" normalizer
cd "$T/p" || fail cd

fails 2 veles postprocess
fails 2 veles postprocess 0
fails 2 veles postprocess 0 nosuch
fails 1 veles postprocess 0 normalizer --bogus
fails 1 veles postprocess 0 normalizer --of
fails 1 veles postprocess 0 normalizer --of nosuchkey
fails 1 veles postprocess 9@p normalizer
[ "$(npending)" -eq 2 ] || fail "a failed run wrote a profile"
echo ok
