#!/bin/sh
# make demo: in a temporary git repository, profile two versions of a small
# C program (the second one slower), register the profiles with their
# commits, and show the history and both summaries; then a job matrix with
# regression analysis, the memory collector, kernel counters and the trace
# collector.
set -eu
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
veles="$build/src/cli/veles"
work=$(mktemp -d "${TMPDIR:-/tmp}/veles-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Veles Demo}" GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-demo@example.com}"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
N=20000
RUNS=10

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

cd "$work"
step "A project with one C program, in git"
git init -q -b main .
cp "$top/examples/list_search.c" .
git add list_search.c
git commit -qm "Search a linked list"
run "$veles" init

step "Version 1: build, measure $RUNS runs, register"
run cc -O2 -o list_search list_search.c
run "$veles" collect time -w 1 -r $RUNS -- ./list_search $N
run "$veles" add 0@p

step "Version 2: check the list length on every lookup (slower)"
sed -i 's/^#define SLOW 0$/#define SLOW 1/' list_search.c
git commit -qam "Check the list length on every lookup"
run cc -O2 -o list_search list_search.c
run "$veles" collect time -w 1 -r $RUNS -- ./list_search $N
run "$veles" add 0@p

step "History"
run "$veles" log --oneline
run "$veles" status

step "Version 1"
run "$veles" show -m HEAD~1 0 summary
step "Version 2"
run "$veles" show 0 summary

step "Did version 2 degrade? (exit status 1 says it did)"
printf '$ %s\n' "veles check head"
status=0
"$veles" check head || status=$?
echo "exit status $status"

step "The history of one metric, with the shift marked"
run "$veles" log --perf "[user]"

step "How does its time grow with the list? A job matrix over sizes, with regression analysis"
cat >>.veles/config.yml <<'YML'
cmds: [./list_search]
workloads: [sizes]
generators:
  workload:
    - id: sizes
      type: integer
      min_range: 2000
      max_range: 20000
      step: 2000
collectors:
  - name: time
    params: {repeat: 3, warmup: 1, output_handling: suppress}
postprocessors:
  - name: filter
    params: {where: "subtype=user"}
  - name: regression-analysis
    params: {method: full, regression_models: all}
YML
run cat .veles/config.yml
run "$veles" run matrix
run "$veles" show 0@p tableof models --sort-by r_square --descending
run "$veles" show 0@p scatter
"$veles" show 0@p scatter -o "$top/build/demo-scatter.html" >/dev/null
"$veles" show 0@p scatter -o "$top/build/demo-scatter.svg" >/dev/null
echo "(also written: build/demo-scatter.html, build/demo-scatter.svg)"

step "Where does it allocate? Every allocation with its call stack and source line"
run cc -O2 -g -o list_search list_search.c
run "$veles" collect memory -q -- ./list_search 2000
run "$veles" show 0@p memory

step "Counters from the kernel, perf-style (software events work on any machine)"
run "$veles" stat -e task-clock,page-faults,context-switches -- ./list_search $N

step "How long does each call take? The trace collector, instrumented"
run cp -r "$top/examples/ds" ds
run cc -O2 $("$veles" cflags trace) -o ds_driver ds/ds_driver.c ds/ds.c -lpthread
run "$veles" collect trace --instrumented -f SLList_search -- ./ds_driver 1000
run "$veles" show 0@p summary
