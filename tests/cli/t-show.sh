#!/bin/bash
# veles show: raw, table, summary; every way of naming a profile.
. "$(dirname "$0")/lib.sh"
new_git_project p
veles collect time -r 3 -q -- true 2>/dev/null || fail collect
pending=$(ls .veles/jobs/*.perf)
ok veles show 0@p raw
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || fail "raw is not JSON"
ok veles show "$pending" summary
has "$T/out" "true"
ok veles add -q 0@p

for spec in 0 0@i "$(basename "$pending")"; do
	ok veles show summary "$spec"
	has "$T/out" "^Type: +time"
done
id=$(git ls-tree -r refs/veles/ledger | awk '{print $3}')
# A prefix of digits only would read as an index (N@i): take one long
# enough to hold a letter.
n=8
while [[ "${id:0:$n}" =~ ^[0-9]+$ ]]; do n=$((n + 1)); done
ok veles show "${id:0:$n}" raw
ok veles show raw "${id:0:$n}" --compact
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "--compact"

ok veles show table 0
has "$T/out" "^uid +type +subtype +"
[ "$(grep -c ' real ' "$T/out")" -eq 3 ] || fail "table rows"
ok veles show table 0 -n 2
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "--limit"
ok veles show table 0 --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert any(x["subtype"]=="real" for x in r)' "$T/out" || fail "table json"

ok veles show 0 summary
has "$T/out" "real"
has "$T/out" "mean"
ok veles show 0 summary --format json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || fail "summary json"

fails 2 veles show 0 bogusview
fails 2 veles show
fails 1 veles show 7@i
fails 1 veles show no-such-profile
echo '{"header": {"type": "time"}, "resources": [' >"$T/broken.perf"
fails 1 veles show "$T/broken.perf"
has "$T/err" "broken.perf:[0-9]+:[0-9]+:"
