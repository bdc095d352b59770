#!/bin/sh
# make fuzz: builds the fuzz targets of tests/fuzz with clang's libFuzzer
# (and ASan+UBSan) in their own build directory, then runs each for
# FUZZ_TIME seconds (default 60), one after the other, or only FUZZ_TARGET
# (a name such as profile or monitor; several separated by spaces).
#
# Each target starts from its seed corpus and past crashes; what it finds
# new is kept in BUILD/corpus/TARGET, so a later run goes on from there. A
# crash, leak, timeout or out-of-memory input is written to
# BUILD/crashes/TARGET/ and the script ends non-zero after the run; once
# the parser is fixed, the input goes into tests/fuzz/regressions/TARGET/.
# Prints each target's executions per second.
set -u
build=${1:-build-fuzz}
time=${FUZZ_TIME:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# Every tests/fuzz/fuzz-NAME.c is a target (meson.build lists them too).
all=$(cd tests/fuzz && for f in fuzz-*.c; do f=${f#fuzz-}; printf '%s ' "${f%.c}"; done)
all=${all% }
targets=${FUZZ_TARGET:-$all}

for t in $targets; do
	case " $all " in
	*" $t "*) ;;
	*) echo "veles fuzz: no target '$t' (targets: $all)" >&2; exit 2 ;;
	esac
done
cc=${FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "veles fuzz: $cc not found: libFuzzer comes with clang (scripts/deps.sh installs it)" >&2
	exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
	# Warnings stay errors in the gcc builds; clang has a few of its own.
	CC=$cc meson setup "$build" -Dfuzzing=true -Db_sanitize=address,undefined -Dwerror=false \
		-Db_lundef=false -Dbuildtype=debugoptimized >/dev/null || exit 1
fi
ninja -C "$build" $(for t in $targets; do printf 'tests/fuzz/fuzz-%s ' "$t"; done) || exit 1

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
status=0
for t in $targets; do
	work="$build/corpus/$t"
	crashes="$build/crashes/$t"
	log="$build/fuzz-$t.log"
	mkdir -p "$work" "$crashes"
	found_before=$(ls "$crashes" | wc -l)
	echo "== fuzz-$t: $time s"
	# -timeout: an input a parser spends more than 10 s on is a finding;
	# -rss_limit_mb: so is one that makes it take more than 2 GB.
	# A target's past crashes are a folder only once it has had one.
	past="tests/fuzz/regressions/$t"
	[ -d "$past" ] || past=
	"$build/tests/fuzz/fuzz-$t" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		"$work" "tests/fuzz/corpus/$t" ${past:+"$past"} >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	echo "fuzz-$t: ${runs:-?} runs, ${secs:-?} execs/s, ${cov:-cov: ?}"
	if [ "$rc" -ne 0 ] || [ "$(ls "$crashes" | wc -l)" -ne "$found_before" ]; then
		echo "fuzz-$t: FOUND (exit $rc): see $log and $crashes/" >&2
		grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" >&2
		status=1
	fi
done
exit $status
