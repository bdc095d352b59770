#!/bin/bash
# libgit2 is loaded only when a command reads the repository (not by a
# collect in a clean work tree), and a missing one is one clear error line.
. "$(dirname "$0")/lib.sh"
new_git_project p

# loaded_libgit2 CMD...: true when running CMD loaded libgit2.
loaded_libgit2() {
	LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -q 'file=libgit2\.so'
}

loaded_libgit2 "$VELES" --version && fail "--version loaded libgit2"
loaded_libgit2 "$VELES" status || fail "status did not load libgit2"
ok veles status

# collect reads HEAD and proves the tree clean from git's files; a change
# needs libgit2's status, and gets the warning.
touch -d '2001-01-01' prog.c && git update-index --refresh >/dev/null
loaded_libgit2 "$VELES" collect time -q -r 1 -- true && fail "a clean collect loaded libgit2"
ok veles collect time -q -r 1 -- true
hasnt "$T/err" "uncommitted"
# shellcheck disable=SC2046
python3 - $(for f in .veles/jobs/*.perf; do json_of "$f"; done) "$(git rev-parse HEAD)" <<'EOS' ||
	fail "origin is not HEAD"
import json, sys
for f in sys.argv[1:-1]:
    assert json.load(open(f))["origin"] == sys.argv[-1], f
EOS
echo "/* change */" >>prog.c
loaded_libgit2 "$VELES" collect time -q -r 1 -- true || fail "a dirty collect did not load libgit2"
ok veles collect time -q -r 1 -- true
has "$T/err" "uncommitted changes may skew the profile"
git checkout -q prog.c

# A libgit2 the loader finds first but cannot load.
mkdir -p "$T/badlib"
soname=$(LD_DEBUG=files "$VELES" status 2>&1 >/dev/null |
	sed -n 's/.*file=\(libgit2\.so[^ ]*\).*/\1/p' | head -n 1)
[ -n "$soname" ] || fail "no libgit2 soname seen"
echo "not a library" >"$T/badlib/$soname"
LD_LIBRARY_PATH="$T/badlib" fails 2 veles status
has "$T/err" "^veles: cannot load libgit2 \($soname\): "
LD_LIBRARY_PATH="$T/badlib" ok veles --version
