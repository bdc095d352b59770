#!/bin/bash
# The project's pages of veles serve in headless Chromium (serve-pages.mjs):
# a version's page with check's verdict coloured, a profile's page and its
# views (the show -o x.html pages in their frames, the memory report, the
# heap map), the diff of two versions with its table and differential flame
# graph, and the same pages read-only. Skipped (77) without chromium, node
# or web/node_modules.
. "$(dirname "$0")/needs.sh"
. "$VELES_SRCDIR/tests/cli/lib.sh"
. "$VELES_SRCDIR/tests/cli/serve-lib.sh"

# Two versions, each with a time profile (the second 35% slower: check
# says Degradation) and a memory profile (call stacks: flame graphs).
new_git_project proj
export VELES_MEMORY_LIB="${VELES_BUILDDIR:-$(dirname "$VELES")/../..}/runtime/libveles-memory.so"
cc -g -O0 -fno-omit-frame-pointer -o "$T/basic" "$VELES_SRCDIR/tests/data/memory/basic.c" || fail "cc"
version() {
	/usr/bin/python3 - "$T/p.perf" "$1" <<'PY'
import json, random, sys
slow = float(sys.argv[2])
r = random.Random(int(slow * 100))
res = [{"uid": "./prog", "type": "time", "subtype": sub, "order": k,
        "amount": 0.010 * slow * f * (1 + r.gauss(0, 0.005))}
       for sub, f in (("real", 1.0), ("user", 0.8)) for k in range(9)]
json.dump({"header": {"type": "time", "cmd": "./prog", "units": {"time": "s"}},
           "collector_info": {"name": "time"}, "global": {"resources": res}},
          open(sys.argv[1], "w"))
PY
	ok veles add -q --force "$T/p.perf"
	if veles collect memory -q -- "$T/basic" >/dev/null 2>&1; then
		ok veles add -q 0@p
	else
		ok veles add -q --force "$VELES_SRCDIR/tests/data/profiles/memory.perf"
	fi
}
version 1.0
commit_change "a slower version"
version 1.35
export HEAD=$(git rev-parse HEAD) PARENT=$(git rev-parse HEAD~1)

serve_start
export SURL STOKEN READ_ONLY=0
node "$VELES_SRCDIR/tests/browser/serve-pages.mjs" >"$T/result" || { cat "$T/result"; fail "browser"; }
cat "$T/result"
serve_stop
serve_start --read-only
export SURL STOKEN READ_ONLY=1
node "$VELES_SRCDIR/tests/browser/serve-pages.mjs" >"$T/result" || { cat "$T/result"; fail "browser, read-only"; }
cat "$T/result"
serve_stop
echo ok
