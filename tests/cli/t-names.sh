#!/bin/bash
# Names that stay put and profiles filed where they were measured: short
# ids in every output and accepted wherever N@i is; a pending profile added
# by path; add --own after a matrix run over several versions; -m A..B and
# --depth; diff -m twice; --force for other types and commands.
. "$(dirname "$0")/lib.sh"
new_git_project p
cat >prog.sh <<'EOS'
#!/bin/sh
exit 0
EOS
chmod +x prog.sh
git add prog.sh && git commit -qm "add prog"
for v in 2 3 4; do commit_change "version $v"; done
v1=$(git rev-parse HEAD~3) v2=$(git rev-parse HEAD~2) v3=$(git rev-parse HEAD~1) v4=$(git rev-parse HEAD)
printf 'cmds: [./prog.sh]\ncollectors:\n  - name: time\n    params: {repeat: 2, warmup: 0}\n' \
	>>.veles/config.yml

# -m A..B: the versions B has and A has not, each once, newest first.
ok veles run matrix -q -m HEAD~3..HEAD~1
[ "$(npending)" -eq 2 ] || fail "HEAD~3..HEAD~1 is two versions"
# --depth limits a crawl (and a range) to N ancestors of each REV.
ok veles run matrix -q -m HEAD --crawl-parents --depth 1 --format json
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [x["version"] for x in r] == [sys.argv[2], sys.argv[3]], r
' "$T/out" "$v4" "$v3" || fail "--crawl-parents --depth 1: HEAD and its parent"
fails 2 veles run matrix --depth 2
fails 2 veles run matrix -m HEAD --crawl-parents --depth 0
fails 1 veles run matrix -m HEAD..HEAD
has "$T/err" "names no version"

# add --own: each pending profile with the version it was collected on
# (its origin), one store update per version.
[ "$(npending)" -eq 4 ] || fail "four pending profiles"
ok veles add --own
[ "$(npending)" -eq 0 ] || fail "--own registers every pending profile"
has "$T/out" "^Registered 2 profiles with version ${v3:0:7}$"
has "$T/out" "^Registered 1 profile with version ${v2:0:7}$"
has "$T/out" "^Registered 1 profile with version ${v4:0:7}$"
for v in "$v2" "$v3" "$v4"; do
	veles log --format json "$v" >"$T/j.json"
	python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))[0]
assert p["profiles"], p
' "$T/j.json" || fail "profiles of $v"
done
fails 2 veles add --own -m HEAD
fails 1 veles add --own
has "$T/err" "no pending profiles"
# A profile that does not say where it was measured is refused by --own.
python3 - <<'PY'
import json
res = [{"uid": "./x", "type": "time", "subtype": "real", "amount": 1.0 + i, "order": i}
       for i in range(3)]
json.dump({"header": {"type": "time", "cmd": "./x", "units": {"time": "s"}},
           "collector_info": {"name": "time"}, "global": {"resources": res}},
          open(".veles/jobs/x-time-1.perf", "w"))
PY
fails 1 veles add --own
has "$T/err" "x-time-1\.perf does not say which version it was collected on; register it with -m REV"

# veles add PATH of a pending file removes it from jobs/ as N@p would, so
# adding the whole directory next time does not fail on it.
ok veles add .veles/jobs/x-time-1.perf
[ "$(npending)" -eq 0 ] || fail "added by path, the pending file must go"
ok veles run matrix -q
ok veles run matrix -q
ok veles add "$PWD"/.veles/jobs/*.perf
[ "$(npending)" -eq 0 ] || fail "added by absolute path"

# Ids: status, log and check name profiles by the same short id, and any
# prefix of four digits or more names them back, whatever N@i says.
ok veles status
id=$(sed -nE 's/^  0@i .* ([0-9a-f]{8})$/\1/p' "$T/out")
[ -n "$id" ] || fail "status shows an id"
ok veles log -n 1
has "$T/out" "^  $id  0@i  time +prog\.sh-time-"
ok veles show "${id:0:5}" tableof resources
# A new profile shifts N@i; the id still names the same one.
veles collect time -r 2 -q -o suppress -- ./prog.sh 2>/dev/null || fail collect
ok veles add -q 0@p
ok veles check profiles "$id" 1@i
has "$T/out" "^  $id prog\.sh-time-[^ ]+ @${v4:0:7} -> [0-9a-f]{8} prog\.sh-time-"
veles check profiles "$id" 1@i --format json >"$T/j.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["baseline_id"].startswith(sys.argv[2]) and len(r["target_id"]) == 40, r
' "$T/j.json" "$id" || fail "ids in JSON"

# An id prefix made of digits only is the id, not an index: a hundred
# profiles, so that some id begins with four digits.
python3 - <<'PY'
import json
for k in range(100):
    res = [{"uid": "./d", "type": "time", "subtype": "real", "amount": 1.0 + k, "order": 0}]
    json.dump({"header": {"type": "time", "cmd": "./d", "units": {"time": "s"}},
               "collector_info": {"name": "time"}, "global": {"resources": res}},
              open(".veles/jobs/d-time-%03d.perf" % k, "w"))
PY
ok veles add -q .veles/jobs/d-time-*.perf
veles log --format json -n 1 | python3 -c '
import json, re, sys
ids = [p["id"] for p in json.load(sys.stdin)[0]["profiles"]]
for i in ids:
    d = re.match("[0-9]*", i).group(0)
    if len(d) >= 4 and sum(j.startswith(d) for j in ids) == 1:
        print(d, i)
        break
' >"$T/digits"
read -r digits full <"$T/digits"
[ -n "$digits" ] || fail "no id begins with four digits among a hundred"
ok veles show "$digits" tableof resources
veles show "${full:0:12}" tableof resources >"$T/want" || fail "show by id"
cmp -s "$T/out" "$T/want" || fail "$digits is the id $full, not an index"

# diff: -m twice gives each side its version; the same profile twice warns.
ok veles diff -m "$v2" 0 -m "$v3" 0
has "$T/out" "^\([0-9a-f]{8} prog\.sh-time-[^ ]+ @${v2:0:7} -> [0-9a-f]{8} prog\.sh-time-[^ ]+ @${v3:0:7}\)$"
hasnt "$T/err" "same profile"
ok veles diff -m "$v2" 0 0
has "$T/err" "BASE and TARGET are the same profile"
fails 2 veles diff -m a -m b -m c 0 0

# Other types, other commands: an error unless --force.
python3 - <<'PY'
import json
json.dump({"header": {"type": "memory", "cmd": "./prog.sh", "units": {"memory": "B"}},
           "collector_info": {"name": "memory"},
           "global": {"resources": [{"uid": "main", "type": "memory", "subtype": "malloc",
                                     "amount": 64}]}}, open("mem.perf", "w"))
PY
fails 2 veles diff 0 ./mem.perf
has "$T/err" "is a time profile of \./[a-z.]+, mem\.perf a memory profile of \./prog\.sh \(--force compares them anyway\)$"
ok veles diff --force 0 ./mem.perf
fails 2 veles check profiles 0 ./mem.perf
echo ok
