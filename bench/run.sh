#!/bin/sh
# make bench: every benchmark, each measuring Veles and its peer in the same
# run and printing the ratio. Absolute times on shared machines drift; the
# ratios are what to compare.
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
status=0
sh "$here/../scripts/deps.sh"
for b in profile_load log collect_time run_matrix detect regression smoothing trace stat record \
	memory monitor script regex bounds python_load fuzz faults serve runners; do
	echo "== $b"
	bash "$here/$b.sh" "$build" || status=1
done
exit $status
