# Shared by the CLI tests: a private temporary world per test and a few
# assertions. A test script sources this, then runs steps; the first failed
# assertion ends it with status 1 and says where.
set -u
: "${VELES:?VELES must point at the veles binary}"
: "${VELES_SRCDIR:?}"

T=$(mktemp -d "${TMPDIR:-/tmp}/veles-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
# Nothing from the developer's own configuration leaks in.
export HOME="$T/home"
export XDG_CONFIG_HOME="$HOME/.config"
mkdir -p "$HOME"
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Test Author" GIT_AUTHOR_EMAIL="author@example.com"
export GIT_COMMITTER_NAME="Test Author" GIT_COMMITTER_EMAIL="author@example.com"
export LC_ALL=C
unset VISUAL EDITOR
PATH="$T/bin:$PATH"
mkdir -p "$T/bin"

veles() { "$VELES" "$@"; }

fail() {
	echo "FAIL (${BASH_SOURCE[1]}:${BASH_LINENO[0]}): $*" >&2
	exit 1
}

# ok CMD...: runs CMD, which must succeed; its output is in $T/out, $T/err.
ok() {
	"$@" >"$T/out" 2>"$T/err" || {
		cat "$T/out" "$T/err" >&2
		fail "expected success: $*"
	}
}

# fails STATUS CMD...: CMD must exit with STATUS and say exactly one line on
# stderr, prefixed "veles".
fails() {
	local want=$1 got
	shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" -eq "$want" ] || { cat "$T/err" >&2; fail "expected exit $want, got $got: $*"; }
	[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err" >&2; fail "expected one error line: $*"; }
	grep -q '^veles' "$T/err" || fail "error line does not start with veles: $(cat "$T/err")"
}

# has FILE PATTERN: FILE contains the extended regular expression PATTERN.
has() {
	grep -Eq -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "no /$2/ in $1"; }
}

hasnt() {
	! grep -Eq -- "$2" "$1" || { cat "$1" >&2; fail "unexpected /$2/ in $1"; }
}

# A git repository with one commit, initialised for Veles, as cwd.
new_git_project() {
	mkdir -p "$T/$1" && cd "$T/$1" || fail "cd"
	git init -q -b main .
	echo "int main(void) { return 0; }" >prog.c
	git add prog.c && git commit -qm "first version"
	veles init -q || fail "init"
}

commit_change() {
	echo "/* $1 */" >>prog.c
	git commit -qam "$1"
}

# wait_hook REV: until the post-commit hook's run in the background has
# summed up its job for commit REV in .veles/logs/hook-REV.log (30 s at
# most; the caller then checks the summary).
wait_hook() {
	for _ in $(seq 300); do
		grep -q "^1 job" ".veles/logs/hook-$1.log" 2>/dev/null && return 0
		sleep 0.1
	done
}

# Pending profiles: the count of .perf files in jobs/.
npending() {
	find .veles/jobs -name '*.perf' | wc -l
}

# with_tracefs "$@": for tests of tracepoints and uprobes. Where tracefs is
# not mounted and we are root, veles mounts it itself (as perf does); the
# test then runs again in a mount namespace of its own (unshare -m), so that
# the host is left as it was.
with_tracefs() {
	if [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		[ -n "${VELES_TEST_TRACEFS_NS:-}" ]; then
		return 0
	fi
	if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
		unshare -m true 2>/dev/null; then
		rm -rf "$T"
		VELES_TEST_TRACEFS_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
}

# The memory collector's tests: a git project as cwd, the test programs'
# sources in $D, the runtime to preload and the flags to build them with.
memory_test_setup() {
	new_git_project p
	D="$VELES_SRCDIR/tests/data/memory"
	export VELES_MEMORY_LIB="$VELES_BUILDDIR/runtime/libveles-memory.so"
	CFLAGS="-g -O0 -fno-omit-frame-pointer"
}
# The latest pending profile.
newest() { ls -t .veles/jobs/*.perf | head -1; }

# json_of PROFILE: the profile (any form: pending and stored ones are
# compact) as Perun's JSON in a new file under $T, whose path it prints.
json_of() {
	local out
	out=$(mktemp "$T/json.XXXXXX") || fail "mktemp"
	"$VELES" export -o "$out" "$1" 2>"$out.err" || { cat "$out.err" >&2; fail "export $1"; }
	echo "$out"
}

# trace_counts PROFILE: "UID CALLS" per resource of a trace profile, sorted.
trace_counts() {
	/usr/bin/python3 - "$(json_of "$1")" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for k, v in sorted(p["resources"].items()):
    print(p["resource_type_map"][k]["uid"], len(v["amount"]))
PY
}

# uftrace_calls OUT: examples/ds built for uftrace (-pg, no inlining) as
# ./ds_pg and run under it (200 60); each function's calls as uftrace
# reports them in OUT, for uftrace_agree.
uftrace_calls() {
	local ds=$VELES_SRCDIR/examples/ds
	${CC:-cc} -O2 -fno-inline -pg -o ds_pg "$ds/ds_driver.c" "$ds/ds.c" -lpthread
	uftrace record -d uftrace.data ./ds_pg 200 60 >/dev/null || fail "uftrace record"
	uftrace report -d uftrace.data -f call --no-pager >"$1" 2>/dev/null ||
		fail "uftrace report"
}

# uftrace_agree UREPORT COUNTS WHAT [FUNCTION...]: COUNTS (trace_counts's
# lines) names 12 functions or more, each with the calls uftrace counted
# (uftrace_calls's UREPORT), and each FUNCTION among them; else fails
# saying WHAT.
uftrace_agree() {
	/usr/bin/python3 - "$1" "$2" "${@:4}" <<'PY' || fail "$3"
import re, sys
want = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\d+)\s+(\S+)\s*$", line)
    if m:
        want[m.group(2)] = int(m.group(1))
got = dict((n, int(c)) for n, c in (l.split() for l in open(sys.argv[2])))
assert len(got) >= 12, got
for f, n in got.items():
    assert want.get(f) == n, (f, n, want.get(f))
for f in sys.argv[3:]:
    assert f in got, f
PY
}

# trace_sigcalls ROUNDS: tests/data/trace/sigcalls.c, built as ./sigcalls,
# traced ROUNDS times in the instrumented mode: every call its signal
# handlers made is kept, as many as it counted itself.
trace_sigcalls() {
	for _ in $(seq "$1"); do
		ok veles collect trace --instrumented -f work -f on_prof -f burst -f leaf -- ./sigcalls 1000000
		read -r _ _ handled _ leaves < <(grep "^[0-9]* burst" "$T/out")
		trace_counts "$(newest)" >"$T/counts"
		for want in "work 1000000" "on_prof $handled" "burst $handled" "leaf $leaves"; do
			has "$T/counts" "^$want\$"
		done
	done
}

# trace_paired PROFILE THREADS [LOOSE]: in each of THREADS threads, work and
# leaf calls, as many of each or one leaf more (the work call open at the
# end is dropped); main and spin never return, so they have none. The
# instrumented mode commits a record only once it is stored
# (docs/trace-format.md), and a leaf returns before its work: never one
# leaf fewer. LOOSE (the dynamic mode, whose samples of several threads
# are read as they come): with more than one thread, one leaf fewer too.
trace_paired() {
	/usr/bin/python3 - "$(json_of "$1")" "$2" "${3:-}" <<'PY'
import json, sys, collections
p = json.load(open(sys.argv[1]))
r = {p["resource_type_map"][k]["uid"]: v for k, v in p["resources"].items()}
assert set(r) == {"work", "leaf"}, r.keys()
work = collections.Counter(r["work"]["tid"])
leaf = collections.Counter(r["leaf"]["tid"])
assert len(work) == int(sys.argv[2]) and set(leaf) == set(work), (work, leaf)
ok = (0, 1) if len(work) == 1 or not sys.argv[3] else (-1, 0, 1)
for t in work:
    assert work[t] > 0 and leaf[t] - work[t] in ok, (t, work[t], leaf[t])
for k, v in r.items():
    for a, e in zip(v["amount"], v["exclusive"]):
        assert 0 <= e <= a, (k, a, e)
PY
}
