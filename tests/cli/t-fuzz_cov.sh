#!/bin/bash
# veles fuzz on a program built with `veles cflags fuzz --link`: the edge
# counts reach the fuzzer, and with --metric hits (exact counts) a fixed
# seed makes the very same session twice.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
command -v clang >/dev/null || { echo "t-fuzz_cov: needs clang (-fsanitize-coverage)" >&2; exit 77; }
mkdir -p "$T/w" && cd "$T/w" || fail "cd"

ok veles cflags fuzz
has "$T/out" "^-fsanitize-coverage=trace-pc-guard$"
ok veles cflags fuzz --link
has "$T/out" "--whole-archive .*libveles-fuzzcov.a -Wl,--no-whole-archive"
fails 2 veles cflags fuzz --pg
# shellcheck disable=SC2046
clang -O1 $(veles cflags fuzz --link) -o slow "$VELES_SRCDIR/tests/cli/fuzz-slow.c" ||
	fail "cannot build with veles cflags fuzz --link"
# Outside veles fuzz the program runs as usual.
echo hello | ./slow || fail "the instrumented program fails on its own"
mkdir seeds
printf 'alpha beta gamma\ndelta epsilon\n' >seeds/a
printf 'one two three four five six\n' >seeds/b

json() {
	$py -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

for run in 1 2; do
	ok veles fuzz -o "out$run" -i seeds --seed 7 --runs 300 -N 200 --metric hits --format json \
		-- ./slow -s '~' @@
	cp "$T/out" "$T/r$run.json"
done
[ "$(json "$T/r1.json" 'r["coverage"] and r["edges"] > 5')" = True ] ||
	fail "no edge counts: $(cat "$T/r1.json")"
has "$T/err" "edge coverage on"
[ "$(json "$T/r1.json" 'r["metric"]')" = hits ] || fail "not measured in hits"
# Edge counts are exact, so every choice repeats: the same corpus, the
# same worst input at the same cost.
diff -r out1/corpus out2/corpus >/dev/null || fail "the same seed made different corpora"
cmp out1/worst/1 out2/worst/1 || fail "the same seed found different worst inputs"
[ "$(json "$T/r1.json" 'r["worst"][0]["cost"]')" = "$(json "$T/r2.json" 'r["worst"][0]["cost"]')" ] ||
	fail "the same input cost differently"
# The slow path passes its loop some hundred times more often.
[ "$(json "$T/r1.json" 'r["worst"][0]["ratio"] >= 5')" = True ] ||
	fail "the planted path was not found: $(cat "$T/r1.json")"

# --metric hits on a program that counts no edges: one line.
cc -O1 -o plain "$VELES_SRCDIR/tests/cli/fuzz-slow.c" || fail "cc"
fails 2 veles fuzz -o out3 -i seeds --runs 20 --metric hits -- ./plain @@
has "$T/err" "needs a program built with"
# And --no-coverage ignores the counts of one that does.
ok veles fuzz -o out4 -i seeds --runs 20 --no-coverage --format json -- ./slow @@
[ "$(json "$T/out" 'r["coverage"]')" = False ] || fail "--no-coverage still counted edges"
