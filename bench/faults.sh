#!/bin/bash
# bench/faults.sh BUILD_DIR: Veles under faults and at scale (issue 13).
#
#  - KILLS (default 1000) kill -9s of `veles add`, of `veles rm` and of
#    `veles run matrix` (every other one on HEAD in a worktree), each at a
#    random moment. After each killed add or rm a plain one runs, timed: a
#    stall is one that takes over 2 s (a stale lock used to cost 10 s).
#    Then: lost (a profile neither pending nor registered, or an untouched
#    one gone), stranded (lock files, temporaries, libgit2's temporary
#    objects, temporary directories, worktrees, branches left after the
#    next command), fsck errors.
#  - ADDS (default 100) adds beside a looping `git gc`, then beside a
#    looping `git gc --prune=now`: failed adds, lost profiles, fsck errors.
#  - config.yml of 125,000 and 500,000 list items: `veles config get`
#    beside PyYAML's C loader (the same libyaml) reading the same file.
#  - A traced program killed by SIGSEGV, SIGABRT and SIGKILL: the calls the
#    profile keeps against those it completed (it counts them itself).
set -u
build=$(cd "${1:-build}" && pwd)
kills=${KILLS:-1000}
adds=${ADDS:-100}
veles=$build/src/cli/veles
here=$(cd "$(dirname "$0")" && pwd)
for tool in python3 git; do
	command -v $tool >/dev/null || { echo "faults: needs $tool" >&2; exit 1; }
done
python3 -c 'import yaml' 2>/dev/null || { echo "faults: needs python3-yaml" >&2; exit 1; }
[ -x "$veles" ] || { echo "faults: build $veles first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-bench-faults.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/tmp HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$TMPDIR" "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com

# seconds CMD...: runs CMD, prints how long it took.
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

# A project with one profile to copy: $tmp/$1, cwd.
project() {
	mkdir -p "$tmp/$1" && cd "$tmp/$1" || exit 1
	git init -q -b main . && git commit -q --allow-empty -m init
	"$veles" init -q
	"$veles" collect time -r 1 -q --workload seed -- true 2>/dev/null
	seed=$(ls .veles/jobs/*.perf)
	# Its JSON, whose workload each copy changes (add reads either form).
	"$veles" export -o "$tmp/$1.seed" "$seed" 2>/dev/null
	rm "$seed"
}

# pending NAME...: pending profiles NAME.perf, each its own workload.
pending() {
	for n in "$@"; do
		sed "s/\"seed\"/\"$n\"/" "$tmp/$P.seed" >".veles/jobs/$n.perf"
	done
}

registered() { git ls-tree -r --name-only refs/veles/ledger 2>/dev/null | sed 's|.*/||'; }

fsck_errors() {
	git fsck --no-dangling 2>&1 | grep -Eic 'error|missing|broken|invalid' || true
}

# kill_at CMD...: CMD in the background, SIGKILL after 5-150 ms (an add
# or rm takes about 20-100 ms here: the kills land all along it).
kill_at() {
	"$@" >/dev/null 2>&1 &
	local pid=$!
	sleep "$(printf '0.%03d' $((RANDOM % 146 + 5)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# ---- add ----
P=add
project add
stalls=0 slowest=0
for i in $(seq 1 "$kills"); do
	pending "a$i" "b$i"
	kill_at "$veles" add -q "a$i.perf"
	s=$(seconds "$veles" add -q "b$i.perf")
	(($(echo "$s > 2" | bc))) && stalls=$((stalls + 1))
	(($(echo "$s > $slowest" | bc))) && slowest=$s
done
slowest=$(printf '%.2f' "$slowest")
registered >"$tmp/reg"
lost=0
for i in $(seq 1 "$kills"); do
	for n in "a$i" "b$i"; do
		grep -qx "$n.perf" "$tmp/reg" || [ -e ".veles/jobs/$n.perf" ] || lost=$((lost + 1))
	done
done
stranded=$(find .git .veles/jobs -name '*.lock' -o -name '*.tmp.*' -o -name 'tmp_object_git2_*' | wc -l)
echo "faults: kill -9 of veles add, $kills kills: lost $lost, stranded $stranded," \
	"stalls $stalls (slowest next add ${slowest} s), fsck errors $(fsck_errors)," \
	"$(grep -c '^a' "$tmp/reg") of the killed adds landed"

# ---- rm ----
P=rm
project rm
names=()
for i in $(seq 1 "$kills"); do names+=("r$i" "k$i"); done
pending "${names[@]}"
"$veles" add -q .veles/jobs/*.perf || echo "faults: rm: the first add failed" >&2
stalls=0 slowest=0
for i in $(seq 1 "$kills"); do
	kill_at "$veles" rm -q "r$i.perf"
	# The next write: an add of a profile already there, which moves
	# nothing, would not take the lock; a real rm does.
	s=$(seconds "$veles" rm -q "k$i.perf")
	(($(echo "$s > 2" | bc))) && stalls=$((stalls + 1))
	(($(echo "$s > $slowest" | bc))) && slowest=$s
	# Put it back for the count below.
	pending "k$i"
	"$veles" add -q "k$i.perf" >/dev/null 2>&1
done
slowest=$(printf '%.2f' "$slowest")
registered >"$tmp/reg"
lost=0
for i in $(seq 1 "$kills"); do grep -qx "k$i.perf" "$tmp/reg" || lost=$((lost + 1)); done
stranded=$(find .git .veles/jobs -name '*.lock' -o -name '*.tmp.*' -o -name 'tmp_object_git2_*' | wc -l)
readable=ok
"$veles" log >/dev/null 2>&1 || readable=FAILED
echo "faults: kill -9 of veles rm, $kills kills: lost $lost (of profiles not removed)," \
	"stranded $stranded, stalls $stalls (slowest next rm ${slowest} s)," \
	"fsck errors $(fsck_errors), log $readable"

# ---- run matrix ----
P=run
project run
{
	echo "cmds: [/bin/true]"
	echo "workloads:"
	for i in $(seq 1 100); do echo "  - w$i"; done
	echo "collectors:"
	echo "  - name: time"
	echo "    params: {repeat: 1}"
} >.veles/config.yml
for i in $(seq 1 "$kills"); do
	if [ $((i % 2)) -eq 0 ]; then
		"$veles" run matrix -q -m HEAD >/dev/null 2>&1 &
	else
		"$veles" run matrix -q >/dev/null 2>&1 &
	fi
	pid=$!
	sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
left=$(find .veles/jobs -name '*.perf.tmp.*' | wc -l)
whole=0
for f in .veles/jobs/*.perf.tmp.*; do
	[ -e "$f" ] && "$veles" export -o "$tmp/whole.json" "$f" >/dev/null 2>&1 && whole=$((whole + 1))
done
dirs=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'veles-*' | wc -l)
wts=$(git worktree list | grep -c veles-run-)
before=$(find .veles/jobs -name '*.perf' | wc -l)
s=$(seconds "$veles" run job --cmd /bin/true --workload last --collector time --collector-params "repeat: 1" -q)
after=$(find .veles/jobs -name '*.perf' | wc -l)
stranded=$(($(find .veles/jobs -name '*.tmp.*' | wc -l) +
	$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'veles-*' | wc -l) +
	$(git worktree list | grep -c veles-run-) + $(git branch --list 'veles-run-*' | wc -l) +
	$(git worktree prune -n -v 2>&1 | wc -l) + $(find .git -name '*.lock' | wc -l)))
echo "faults: kill -9 of veles run matrix, $kills kills: left $left temporaries ($whole whole)," \
	"$dirs temporary directories, $wts worktrees; the next run ($(printf '%.2f' "$s") s) recovered" \
	"$((after - before - 1)): lost $((whole - (after - before - 1))), stranded $stranded"

# ---- git gc beside add ----
for gc in "" "--prune=now"; do
	P=gc
	rm -rf "$tmp/gc"
	project gc
	for i in $(seq 1 "$adds"); do pending "g$i"; done
	rm -f "$tmp/stop"
	(while [ ! -e "$tmp/stop" ]; do git gc -q $gc >/dev/null 2>&1; done) &
	looper=$!
	failed=0
	t0=$(date +%s.%N)
	for i in $(seq 1 "$adds"); do
		"$veles" add -q "g$i.perf" 2>>"$tmp/gc.err" || failed=$((failed + 1))
	done
	t1=$(date +%s.%N)
	# The last gc ends before the count.
	touch "$tmp/stop"
	wait "$looper"
	registered >"$tmp/reg"
	lost=0
	for i in $(seq 1 "$adds"); do grep -qx "g$i.perf" "$tmp/reg" || lost=$((lost + 1)); done
	echo "faults: $adds adds beside a looping git gc $gc: failed $failed, lost $lost," \
		"fsck errors $(fsck_errors), $(echo "scale=3; ($t1 - $t0) / $adds" | bc) s an add"
done
cd "$tmp" || exit 1

# ---- config.yml at scale ----
for n in 125000 500000; do
	mkdir -p "$tmp/cfg$n" && cd "$tmp/cfg$n" || exit 1
	git init -q . && "$veles" init -q
	python3 - "$n" <<'PY'
import sys
n = int(sys.argv[1])
with open(".veles/config.yml", "a") as f:
    f.write("workloads:\n")
    f.writelines("  - w%d\n" % i for i in range(n))
PY
	python3 - "$veles" "$n" <<'PY'
import statistics, subprocess, sys, time
veles, n = sys.argv[1], int(sys.argv[2])
def t(cmd):
    s = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - s, out.strip()
key = "workloads.%d" % (n - 1)
peer = ["python3", "-c", "import yaml; d = yaml.load(open('.veles/config.yml'), Loader=yaml.CSafeLoader); "
        "print(d['workloads'][-1])"]
v = [t([veles, "config", "get", key]) for _ in range(3)]
p = [t(peer) for _ in range(3)]
assert v[0][1] == p[0][1] == "w%d" % (n - 1), (v[0][1], p[0][1])
vm, pm = statistics.median(x[0] for x in v), statistics.median(x[0] for x in p)
print(f"faults: config.yml of {n:,} list items: veles config get {vm:.2f} s, "
      f"PyYAML CSafeLoader {pm:.2f} s -> {vm / pm:.2f}x")
PY
done
cd "$tmp" || exit 1

# ---- a traced program that dies ----
P=trace
project trace
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -O2 $("$veles" cflags trace) -o dies "$here/../tests/data/trace/dies.c" -lpthread
for how in segv abort; do
	"$veles" collect trace --instrumented -q -- ./dies "$how" 100000 >/dev/null 2>&1
	"$veles" export -o "$tmp/trace.json" "$(ls -t .veles/jobs/*.perf | head -1)" 2>/dev/null
	python3 - "$tmp/trace.json" "$how" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
r = {p["resource_type_map"][k]["uid"]: len(v["amount"]) for k, v in p["resources"].items()}
print(f"faults: trace of a program killed by {p['header'].get('killed_by')}: kept "
      f"{r.get('work', 0):,} of 100,000 work calls and {r.get('leaf', 0):,} of 1,000,000 leaves")
PY
done
rm -f count.bin
"$veles" collect trace --instrumented -q -- ./dies kill 0 count.bin 2 >/dev/null 2>&1 &
collector=$!
sleep 1
prog=$(python3 -c 'import struct, sys; print(struct.unpack("Q", open(sys.argv[1], "rb").read(8))[0])' count.bin)
kill -9 "$prog"
wait "$collector"
"$veles" export -o "$tmp/trace.json" "$(ls -t .veles/jobs/*.perf | head -1)" 2>/dev/null
python3 - "$tmp/trace.json" count.bin <<'PY'
import json, struct, sys
p = json.load(open(sys.argv[1]))
counts = struct.unpack("4Q", open(sys.argv[2], "rb").read())[1:]
kept = sum(len(v["amount"]) for k, v in p["resources"].items()
           if p["resource_type_map"][k]["uid"] == "work")
print(f"faults: trace of a program killed by {p['header'].get('killed_by')} from outside, 3 threads: "
      f"kept {kept:,} work calls, it counted {sum(counts):,} returned (at most one more a thread)")
PY
