#!/bin/sh
# make check: builds the normal and the sanitizer configuration, runs every
# test in both, and ends with one line "N passed, N failed[, N skipped]".
set -u
build=${1:-build}
asan=${2:-build-asan}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
status=0

[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null || exit 1
[ -f "$asan/build.ninja" ] || meson setup "$asan" -Db_sanitize=address,undefined \
	-Db_lundef=false -Dbuildtype=debug >/dev/null || exit 1
ninja -C "$build" || exit 1
ninja -C "$asan" || exit 1

# Sanitizers: fail on the first report, and on leaks as well.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"

echo "== tests (normal build)"
meson test -C "$build" --print-errorlogs --num-processes 2 >"$logs/normal" 2>&1 || status=1
cat "$logs/normal"
echo "== tests (ASan+UBSan build: unit, CLI and fuzz corpus replay)"
meson test -C "$asan" --print-errorlogs --num-processes 2 --suite unit --suite cli --suite fuzz \
	>"$logs/asan" 2>&1 || status=1
cat "$logs/asan"

count() {
	# meson's summary block: "Ok:  12", "Fail:  0", "Skipped:  1", ...
	awk -v key="$1" '$1 == key":" { n += $2 } END { print n + 0 }' "$logs/normal" "$logs/asan"
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
