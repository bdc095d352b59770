#!/bin/bash
# Every postprocessor's record replays: the params it writes into
# "postprocessors" (Perun's names, as check --collect-missing and the job
# matrix turn them into options: KEY: V as --KEY=V, lists repeated, true as
# --KEY, false as --no-KEY) are options it accepts, and replaying them
# writes the same record again.
. "$(dirname "$0")/lib.sh"
new_git_project p
in=$VELES_SRCDIR/tests/data/profiles/trace.perf

# replay PROFILE: the last record's name and options, one word a line.
replay() {
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["postprocessors"][-1]
print(rec["name"])
for k, v in rec["params"].items():
    opt = "--" + k.replace("_", "-")
    for item in v if isinstance(v, list) else [v]:
        if item is True:
            print(opt)
        elif item is False:
            print("--no-" + k.replace("_", "-"))
        elif item is not None:
            print("%s=%s" % (opt, item))
PY
}

params() {
	/usr/bin/python3 -c 'import json, sys
print(json.dumps(json.load(open(sys.argv[1]))["postprocessors"][-1], sort_keys=True))' "$1"
}

while read -r name args; do
	# shellcheck disable=SC2086
	ok veles postprocess -o "$T/first.perf" "$in" $name $args
	mapfile -t words < <(replay "$T/first.perf")
	ok veles postprocess -o "$T/again.perf" "$in" "${words[@]}"
	[ "$(params "$T/first.perf")" = "$(params "$T/again.perf")" ] ||
		fail "$name $args: replayed as ${words[*]}: $(params "$T/again.perf")"
done <<'LIST'
normalizer
normalizer --by uid
filter --where amount>5
filter --where amount>5 --where uid=SLList_search --any
regression-analysis
regression-analysis -m iterative -r linear -r quadratic --steps 4
regressogram
regressogram --bucket-method sqrt --statistic-function median
moving-average
moving-average --method ema --decay com --decay-value 2 --no-center
kernel-regression
kernel-regression --estimator local-linear --bandwidth 3 --kernel epanechnikov
clusterizer
clusterizer --strategy sliding-window --window-width 2 --window-height 3
LIST
