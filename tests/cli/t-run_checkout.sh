#!/bin/bash
# veles run matrix -m REV measures each version's own program in that
# version's checkout: execute.pre_run builds it there, an external workload
# generator runs there, and the collector runs the command there, while
# veles stays where it was started. The work tree has no program at all,
# so a command run anywhere else could not start.
. "$(dirname "$0")/lib.sh"
new_git_project p
for v in 1 2; do
	printf '#!/bin/sh\necho "version%s_$1: %s ms"\n' "$v" "$v" >prog.in
	echo "$v$v" >size-1.txt
	echo "$v$v$v" >size-2.txt
	git add prog.in size-1.txt size-2.txt && git commit -qm "version $v" || fail commit
	id[v]=$(git rev-parse HEAD)
done
cat >>.veles/config.yml <<'YML'
cmds: [./prog.sh]
workloads: [sizes]
collectors:
  - name: regex
    params:
      pattern: ['(?<uid>\w+): (?<amount>[\d.]+) (?<unit>\w+)']
      output_handling: suppress
execute:
  pre_run:
    - cp prog.in prog.sh && chmod +x prog.sh
generators:
  workload:
    - id: sizes
      type: external
      min: 1
      max: 2
      command: cat size-$VELES_WORKLOAD_SIZE.txt
YML
[ ! -e prog.sh ] || fail "the work tree must have no program"
status_before=$(git status --porcelain)
ok veles run matrix -m "${id[1]}" -m "${id[2]}"
has "$T/out" "2 jobs: 2 ok"
[ ! -e prog.sh ] || fail "pre_run ran in the work tree"
[ "$(git status --porcelain)" = "$status_before" ] || fail "the work tree changed"
for f in .veles/jobs/*.perf; do
	json_of "$f"
done >"$T/profiles"
python3 - "${id[1]}" "${id[2]}" $(cat "$T/profiles") <<'PY' || fail "each version's program"
import json, sys
ids, files = sys.argv[1:3], sys.argv[3:]
seen = {}
for f in files:
    p = json.load(open(f))
    uids = sorted(r["uid"] for r in p["resource_type_map"].values())
    seen[p["origin"]] = uids
want = {ids[0]: ["version1_11", "version1_111"], ids[1]: ["version2_22", "version2_222"]}
assert seen == want, seen
PY

# collect bounds reads the checkout's sources, with its -I relative to the
# checkout's root: the header is not in the work tree any more.
mkdir inc && echo '#define N 10' >inc/n.h
printf '#include "n.h"\nint f(int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n * N; i++)\n\t\ts += i;\n\treturn s;\n}\n' >f.c
git add inc/n.h f.c && git commit -qm "bounds" || fail commit
rm -r inc .veles/jobs/*.perf
cat >.veles/config.yml <<'YML'
cmds: [f]
args: ['-Iinc']
collectors:
  - name: bounds
    params:
      source: [f.c]
YML
ok veles run matrix -m HEAD
has "$T/out" "1 job: 1 ok"
python3 - "$(json_of "$(newest)")" <<'PY' || fail "bounds in the checkout"
import json, sys
p = json.load(open(sys.argv[1]))
bounds = {(r["uid"]["source"], r["type"]): r["bound"] for r in p["resource_type_map"].values()}
assert bounds[("f.c", "total bound")] == "1 + max(0, 10 × n)", bounds
PY

# Every collector that runs a program runs the checkout's: built by
# pre_run there alone, timed, its allocations recorded through the memory
# runtime, its calls traced through the trace runtime (both preloaded into
# it alone), sampled alongside by the monitor and, where uprobes can be
# used, traced through them on its binary
# (found in the checkout, --binary too).
export VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so"
cat >w.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long work(int n)
{
	char *p = malloc(12345);
	long s = 0;
	for (int i = 0; i < n; i++) {
		p[i % 12345] = (char)i;
		s += p[i % 12345];
	}
	free(p);
	return s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	printf("%ld\n", work(n) + work(n));
	return 0;
}
C
git add w.c && git commit -qm "w" || fail commit
cc -O0 -o "$T/w" w.c || fail cc
dynamic=
if veles collect trace --dynamic -f work -o suppress -- "$T/w" >"$T/out" 2>"$T/err"; then
	dynamic='  - {name: trace, params: {dynamic: true, func: [work], binary: ./w, output_handling: suppress}}'
else
	echo "note: no dynamic trace here: $(cat "$T/err")" >&2
fi
rm -f .veles/jobs/*.perf
cat >.veles/config.yml <<YML
cmds: [./w]
args: ['1000']
collectors:
  - {name: time, params: {repeat: 2, output_handling: suppress}}
  - {name: memory, params: {output_handling: suppress}}
  - {name: trace, params: {instrumented: true, output_handling: suppress}}
  - {name: monitor, params: {output_handling: suppress}}
$dynamic
execute:
  pre_run:
    - cc -g -O0 -fno-omit-frame-pointer -finstrument-functions -o w w.c
YML
[ ! -e w ] || fail "the work tree must have no program"
ok veles run matrix -m HEAD
n=$([ -n "$dynamic" ] && echo 5 || echo 4)
has "$T/out" "$n jobs: $n ok"
[ ! -e w ] || fail "pre_run ran in the work tree"
for f in .veles/jobs/*.perf; do
	json_of "$f"
done >"$T/profiles"
python3 - $(cat "$T/profiles") <<'PY' || fail "each collector on the checkout's program"
import json, sys
seen = {}
for f in sys.argv[1:]:
    p = json.load(open(f))
    info = p["collector_info"]
    name = info["name"] + ("-dynamic" if info["params"].get("dynamic") else "")
    uids = [t["uid"] for t in p.get("resource_type_map", {}).values()]
    amounts = [a for r in (p.get("resources") or {}).values() for a in r.get("amount", [])]
    seen[name] = (uids, amounts)
assert {"time", "memory", "trace", "monitor"} <= set(seen), seen.keys()
assert 12345 in seen["memory"][1], seen["memory"]
assert any(u.get("function") == "work" for u in seen["memory"][0] if isinstance(u, dict)), seen["memory"][0]
for t in ("trace", "trace-dynamic"):
    if t in seen:
        assert "work" in seen[t][0], (t, seen[t][0])
PY
