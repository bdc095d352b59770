#!/bin/bash
# bench/collect_time.sh BUILD_DIR: what `veles collect time` costs per run
# over the floor (a bare posix_spawn + wait4 loop, bench/spawn_floor.c) and
# against hyperfine -N, all timing 200 runs of /bin/true in the same session.
#
# Each contender is one process that runs /bin/true 200 times; hyperfine
# times each of them 10 times and we divide the median by 200, so Veles's
# start-up and its profile write count against it. The same tools with one
# run each give the fixed cost, which tells the per-run loop apart from
# start-up. On a shared machine the load drifts between hyperfine's blocks,
# so we repeat the whole set ROUNDS times (default 3) and print the median
# of each ratio.
set -eu
build=$(cd "${1:-build}" && pwd)
runs=200
rounds=${ROUNDS:-3}
floor=$build/bench/spawn_floor
veles=$build/src/cli/veles
for tool in hyperfine git python3; do
	command -v $tool >/dev/null || { echo "collect_time: needs $tool" >&2; exit 1; }
done
[ -x "$floor" ] || { echo "collect_time: build $floor first" >&2; exit 1; }
[ -x "$veles" ] || { echo "collect_time: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q project && cd project
git -c user.name=bench -c user.email=bench@example.com commit -q --allow-empty -m init
"$veles" init >/dev/null

# -w 0: the same spawns as the others (the default adds one warm-up run).
collect="$veles collect time -q -o suppress -w 0"
for r in $(seq "$rounds"); do
	hyperfine -N --warmup 2 --runs 10 --export-json "$tmp/r$r.json" --style none \
		"$floor $runs /bin/true" \
		"$collect -r $runs -- /bin/true" \
		"hyperfine -N --runs $runs --style none /bin/true" \
		"$floor 1 /bin/true" \
		"$collect -r 1 -- /bin/true" >/dev/null
	rm -f .veles/jobs/*.perf
done

python3 - "$tmp" "$rounds" "$runs" <<'EOS'
import json, statistics, sys
tmp, rounds, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = []
for r in range(1, rounds + 1):
    res = json.load(open(f"{tmp}/r{r}.json"))["results"]
    floor, veles, hf, floor1, veles1 = (x["median"] for x in res)
    rows.append(dict(
        floor=floor / runs * 1e6, veles=veles / runs * 1e6, hf=hf / runs * 1e6,
        fixed=(veles1 - floor1) * 1e3,
        # the loop alone: what one more run costs, start-up taken out
        loop=((veles - veles1) / (floor - floor1) - 1) * 100))
med = lambda k: statistics.median(row[k] for row in rows)
ratio = lambda k: statistics.median(row[k] / row["floor"] - 1 for row in rows) * 100
print(f"collect time -r {runs} -- /bin/true: veles {med('veles'):.0f} µs/run, "
      f"bare spawn+wait4 {med('floor'):.0f} µs/run -> {ratio('veles'):+.1f}% "
      f"(target <= +3%); hyperfine -N {med('hf'):.0f} µs/run ({ratio('hf'):+.1f}%)")
print(f"  of which start-up and profile write: {med('fixed'):.1f} ms once "
      f"({med('fixed') * 1e3 / runs / med('floor') * 100:+.1f}% at {runs} runs); "
      f"the measuring loop alone: {med('loop'):+.1f}% per run")
print("  per round (veles, hyperfine vs floor): " + ", ".join(
      f"{(row['veles'] / row['floor'] - 1) * 100:+.1f}%/{(row['hf'] / row['floor'] - 1) * 100:+.1f}%"
      for row in rows))
EOS
