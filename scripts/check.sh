#!/bin/sh
# make check: builds the normal and the sanitizer configuration, runs every
# test in both, runs the tests of the threaded code in a ThreadSanitizer
# build, and ends with one line "N passed, N failed[, N skipped]".
set -u
build=${1:-build}
asan=${2:-build-asan}
tsan=${3:-build-tsan}
# The threads: util/bgio.c (test_bgio, and the profile writer's in
# test_profile_write), profile/read_split.c (test_profile_fast),
# collect/memory/ticker.c (test_ticker, cli-collect_memory), the progress
# line of cli/run-report.c (cli-run, on a terminal), analyze/regression.c
# (test_regression). Only what they need is built there.
tsan_units="test_bgio test_git_lazy test_profile_fast test_profile_write test_regression test_ticker"
tsan_cli="cli-run cli-collect_memory"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
status=0

[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null || exit 1
[ -f "$asan/build.ninja" ] || meson setup "$asan" -Db_sanitize=address,undefined \
	-Db_lundef=false -Dbuildtype=debug >/dev/null || exit 1
[ -f "$tsan/build.ninja" ] || meson setup "$tsan" -Db_sanitize=thread -Db_lundef=false \
	-Dbuildtype=debug >/dev/null || exit 1
ninja -C "$build" || exit 1
ninja -C "$asan" || exit 1
ninja -C "$tsan" src/cli/veles runtime/libveles-memory.so \
	$(for t in $tsan_units; do printf 'tests/unit/%s ' "$t"; done) || exit 1

# Sanitizers: fail on the first report, and on leaks as well.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"

echo "== tests (normal build)"
meson test -C "$build" --print-errorlogs --num-processes 2 >"$logs/normal" 2>&1 || status=1
cat "$logs/normal"
echo "== tests (ASan+UBSan build: unit, CLI, fuzz corpus replay, libveles installed, Python)"
# The slow suite (killing, timeouts, kernel tracing: minutes of waiting on
# processes, not of our code running) once, in the normal build.
meson test -C "$asan" --print-errorlogs --num-processes 2 --suite unit --suite cli --suite fuzz \
	--suite api --suite python --no-suite slow \
	>"$logs/asan" 2>&1 || status=1
cat "$logs/asan"
echo "== tests (TSan build: the threaded code)"
# shellcheck disable=SC2086
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 meson test -C "$tsan" --no-rebuild \
	--print-errorlogs --num-processes 2 $tsan_units $tsan_cli >"$logs/tsan" 2>&1 || status=1
cat "$logs/tsan"

count() {
	# meson's summary block: "Ok:  12", "Fail:  0", "Skipped:  1", ...
	awk -v key="$1" '$1 == key":" { n += $2 } END { print n + 0 }' "$logs/normal" "$logs/asan" "$logs/tsan"
}
ok=$(count Ok)
fail=$(( $(count Fail) + $(count Timeout) + $(count "Unexpected") ))
skip=$(count Skipped)
if [ "$ok" -eq 0 ]; then
	echo "no tests ran" >&2
	status=1
fi
[ "$fail" -gt 0 ] && status=1
if [ "$skip" -gt 0 ]; then
	echo "$ok passed, $fail failed, $skip skipped"
else
	echo "$ok passed, $fail failed"
fi
exit $status
