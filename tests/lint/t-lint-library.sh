#!/bin/sh
# scripts/lint-library.sh: on a scratch tree, it fails on library code that
# prints, exits or parses argv, passes the CLI and comments, honours its
# list of known files and fails when one on it is clean; then on the tree.
set -u
lint=$VELES_SRCDIR/scripts/lint-library.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/veles-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$T/src/cli" "$T/src/lib" "$T/scripts"
cd "$T" && git init -q . || fail "git init"
cat >src/cli/main.c <<'C'
int main(void) { printf("hi\n"); exit(0); }
C
cat >src/lib/ok.c <<'C'
/* exit( in a comment, and a process's exit( named
 * printf("...") too */
static void f(FILE *w, struct buf *b) { fprintf(w, "x"); snprintf(b, 1, "y"); s->exit(1); }
C
cat >src/lib/bad.c <<'C'
static int parse(int argc, char **argv) { return getopt_long(argc, argv, "h", 0, 0); }
static void warn(void) { fprintf(stderr, "warning\n"); }
C
: >scripts/lint-library.known
git add -A
sh "$lint" "$T" >out 2>err && fail "bad.c passed"
grep -q '^src/lib/bad.c:1:.*getopt_long' err || { cat err >&2; fail "getopt_long not named"; }
grep -q '^src/lib/bad.c:2:.*stderr' err || { cat err >&2; fail "fprintf(stderr) not named"; }
grep -q 'src/cli\|ok\.c' err && { cat err >&2; fail "the CLI or a comment named"; }

printf '# known\nsrc/lib/bad.c\n' >scripts/lint-library.known
sh "$lint" "$T" >out 2>err || { cat err >&2; fail "a known file failed"; }
grep -q '^lint-library: clean (1 files' out || fail "no clean line: $(cat out)"

echo 'static int ok;' >src/lib/bad.c
sh "$lint" "$T" >out 2>err && fail "a clean file on the list passed"
grep -q 'src/lib/bad.c no longer offends' err || { cat err >&2; fail "not told to take it off"; }

cd "$VELES_SRCDIR" && sh "$lint" || fail "the tree's library code"
