# veles monitor --import: the hello and misc modules in every format,
# recorded and played back, and modules whose init fails.
. "$VELES_SRCDIR/tests/cli/lib.sh"
cd "$T" || exit 1

# the build tree's veles finds the modules built beside it, with nothing set
unset VELES_MODULE_PATH
ok veles monitor -s c --import hello:misc --on -P -c 2 -i 0.05
has "$T/out" ' 100 200 300 [0-9.]+ [0-9]+ [0-9.]+ [0-9]+$'
ok veles monitor --help
has "$T/out" "^Modules are looked up in: $VELES_BUILDDIR/plugins:/.*/veles/monitor\$"
# $VELES_MODULE_PATH comes first: its hello.so, though not a module, wins
mkdir -p "$T/mods"
echo 'not a library' >"$T/mods/hello.so"
VELES_MODULE_PATH="$T/mods" fails 1 veles monitor -s c --import hello -c 1 -i 0.05
has "$T/err" "^veles: cannot load module $T/mods/hello.so: "
VELES_MODULE_PATH="$T/mods" ok veles monitor --help
has "$T/out" "^Modules are looked up in: $T/mods:$VELES_BUILDDIR/plugins:"
# a name found nowhere: the directories searched, in order
fails 1 veles monitor -s c --import nothere -c 1
has "$T/err" "^veles: cannot find module nothere: no nothere\.so in $VELES_BUILDDIR/plugins:/.*/veles/monitor\$"

export VELES_MODULE_PATH="$VELES_BUILDDIR/plugins"

# hello's counters grow by 100, 200, 300 a sample: exact per interval
ok veles monitor -s c --import hello --on -P -c 3 -i 0.05
has "$T/out" '^#Date Time .* \[HW\]Hello1 \[HW\]Hello2 \[HW\]Hello3$'
[ "$(grep -c ' 100 200 300$' "$T/out")" -eq 3 ] || fail "hello: 100 200 300 per interval"

# brief: its columns after the built-in ones; misc beside it
ok veles monitor -s c --import hello:misc -c 2 -i 0.05
has "$T/out" '<-+CPU-+><-+Hello-+><-+Misc-+>$'
has "$T/out" 'Hello1 +Hello2 +Hello3 UpHrs +LogIn +MHz +NFS$'
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "brief with modules: 4 lines"

# verbose and lexpr
ok veles monitor -s m --import hello,quiet:misc --verbose --on -c 1 -i 0.05
has "$T/out" '^# HELLO SUMMARY \(/int\)$'
has "$T/out" '^ +100 +200 +300$'
has "$T/out" '^# MISC SUMMARY$'
up=$(awk '/^# MISC/ {getline; getline; print $1}' "$T/out")
sys_up=$(cut -d. -f1 /proc/uptime)
[ $((sys_up - up)) -le 2 ] && [ $((up - sys_up)) -le 2 ] || fail "misc uptime $up vs $sys_up"
ok veles monitor -s m --import hello:misc --export lexpr --on -c 1 -i 0.05
has "$T/out" '^hello\.hello2 200$'
has "$T/out" '^misc\.nfsmounts [0-9]+$'
has "$T/out" '^mem\.tot [0-9]+$'

# a module's records are recorded with its discriminator and played back
ok veles monitor -s m --import hello:misc -c 4 -i 0.05 -f "$T/rec"
ok veles monitor -p "$T/rec" -s m --import hello --on -P
[ "$(grep -c ' 100 200 300$' "$T/out")" -eq 4 ] || fail "playback: hello's numbers"
ok veles monitor -p "$T/rec" -s m --import misc:hello --on -P
has "$T/out" '\[MISC\]Mounts \[HW\]Hello1'
# without --import the module's records are skipped
ok veles monitor -p "$T/rec" -s m -P
hasnt "$T/out" 'HW'
ok veles monitor -s m --import hello -c 1 -i 0.05 -d4 -f "$T/rec2"
has "$T/err" '^hw hello1 [0-9]+$'

# init fails: reported, unloaded, the rest goes on
ok veles monitor -s c --import hello,bogus -c 1 -i 0.05
has "$T/err" "module hello: unknown option 'bogus'"
has "$T/err" 'module hello did not start: unloaded'
hasnt "$T/out" 'Hello'
ok veles monitor -s c --import gpu -P -c 1 -i 0.05
if [ -e /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 ]; then
	has "$T/out" 'GPU'
else
	has "$T/err" 'module gpu: NVML not found'
	hasnt "$T/out" 'GPU'
fi

# gpu through a stand-in NVML with two GPUs: plot columns, exported values
# (lexpr, graphite and prometheus all take them from print_export), and a
# recording played back
nvml="LD_LIBRARY_PATH=$VELES_BUILDDIR/tests/cli"
ok env "$nvml" "$VELES" monitor -s c --import gpu -P -c 1 -i 0.05
has "$T/out" '\[GPU:1\]Watts$'
has "$T/out" ' 40\.0 20\.0 1024\.0 55\.0 75\.5 41\.0 20\.0 1025\.0 56\.0 76\.5$'
ok env "$nvml" "$VELES" monitor -s c --import gpu --export lexpr -c 1 -i 0.05
has "$T/out" '^gpu0\.util 40$'
has "$T/out" '^gpu0\.memmb 1024$'
has "$T/out" '^gpu1\.temp 56$'
has "$T/out" '^gpu1\.watts 76\.5'
ok env "$nvml" "$VELES" monitor -s c --import gpu -c 2 -i 0.05 -f "$T/gpurec"
ok env "$nvml" "$VELES" monitor -p "$T/gpurec" --import gpu --export lexpr
[ "$(grep -c '^gpu1\.util 41$' "$T/out")" -eq 2 ] || fail "gpu playback: two intervals"

# files that are not modules
fails 1 veles monitor --import nothere -c 1
echo 'not a library' >"$T/fake.so"
fails 1 veles monitor --import "$T/fake.so" -c 1
fails 1 veles monitor --import /bin/true -c 1
fails 2 veles monitor --export nope -c 1

# the worked example of docs/monitor-modules.md builds and runs as shown
if command -v "${CC:-cc}" >/dev/null; then
	awk '/^\/\* files.c/ {f = 1} f && /^```$/ {f = 0} f' \
		"$VELES_SRCDIR/docs/monitor-modules.md" >"$T/files.c"
	# the docs' aside: built against the source tree (t-monitor_install.sh
	# builds it against an installed Veles)
	"${CC:-cc}" -shared -fPIC -Wall -Wextra -Werror -I "$VELES_SRCDIR/src/monitor" \
		-o "$T/files.so" "$T/files.c" || fail "the worked example does not build"
	ok veles monitor -s c --import "$T/files.so" -P -c 1 -i 0.05
	has "$T/out" '\[FILES\]Used$'
	has "$T/out" ' [0-9]+$'
fi

# every callback and helper of the API, through a module that logs its calls
if command -v "${CC:-cc}" >/dev/null; then
	"${CC:-cc}" -shared -fPIC -Wall -Wextra -Werror -I "$VELES_SRCDIR/src" -o "$T/calls.so" \
		"$VELES_SRCDIR/tests/data/monitor/calls.c" || fail "calls.c does not build"
	calls() { # the log's calls, one word each, repeats merged
		awk '{print $1}' "$1" | uniq | tr '\n' ' '
	}
	# live and recording (-d4 prints as well): the order of the calls
	ok veles monitor -s c --import "$T/calls.so,$T/log" --on -P -c 2 -i 0.05 -d4 -f "$T/crec"
	want="init update_header get_data init_interval analyze interval_end"
	want="$want get_data init_interval analyze print_plot interval_end"
	want="$want get_data init_interval analyze print_plot interval_end finish "
	[ "$(calls "$T/log")" = "$want" ] || fail "live calls: $(calls "$T/log")"
	has "$T/log" '^init version 1$'
	has "$T/log" '^analyze tc count 2000$'
	has "$T/log" '^analyze tc load [0-9.]+ [0-9.]+ [0-9.]+ [0-9]+/[0-9]+ [0-9]+$'
	has "$T/log" '^analyze tc exec 7$'
	has "$T/out" ' \[TC\]Count$'
	[ "$(grep -c ' 1000$' "$T/out")" -eq 2 ] || fail "calls: fix() and --on give 1000"
	has "$T/err" '^tc count 3000$'
	# played back: get_header sees what update_header wrote; no get_data
	ok veles monitor -p "$T/crec" -s c --import "$T/calls.so,$T/log2" --on --verbose
	want="init get_header init_interval analyze interval_end init_interval analyze"
	want="$want print_verbose interval_end init_interval analyze print_verbose interval_end finish "
	[ "$(calls "$T/log2")" = "$want" ] || fail "playback calls: $(calls "$T/log2")"
	has "$T/log2" '^get_header found$'
	has "$T/out" '^# TC SUMMARY \(/int\)$'
	[ "$(grep -cE '^ +1000$' "$T/out")" -eq 2 ] || fail "calls: verbose values"
	ok veles monitor -p "$T/crec" -s c --import "$T/calls.so,$T/log2" --verbose
	has "$T/out" '^# TC SUMMARY \(/sec\)$'
	ok veles monitor -p "$T/crec" -s c --import "$T/calls.so,$T/log2" --on
	has "$T/out" '<-TC-->$'
	has "$T/out" ' TCount$'
	has "$T/log2" '^print_brief$'
	ok veles monitor -p "$T/crec" -s c --import "$T/calls.so,$T/log2" --on --export lexpr
	[ "$(grep -c '^tc\.count 1000$' "$T/out")" -eq 2 ] || fail "calls: export_value"
	has "$T/out" '^tc\.interval_ms [0-9.]+$'
	# init fails through error(): unloaded, the run goes on
	ok veles monitor -s c --import "$T/calls.so,fail" -P -c 1 -i 0.05
	has "$T/err" '^veles monitor: module tc: init asked to fail$'
	has "$T/err" 'module tc did not start: unloaded'
	hasnt "$T/out" 'TC'
	# error() later: unloaded after that callback, without finish
	ok veles monitor -s c --import "$T/calls.so,$T/log3,late" -P -c 2 -i 0.05
	has "$T/err" '^veles monitor: module tc: analyze asked to fail$'
	has "$T/err" '^veles monitor: module tc unloaded$'
	hasnt "$T/out" 'TC'
	hasnt "$T/log3" 'finish'
	# record() keeps only lines with the module's discriminator: the others
	# are dropped, with one line on stderr however many there are
	ok veles monitor -s c --import "$T/calls.so,$T/log4,badrec" -P -c 3 -i 0.05 -d4 -f "$T/brec"
	[ "$(grep -c 'does not start with its discriminator' "$T/err")" -eq 1 ] ||
		fail "record(): want one message: $(cat "$T/err")"
	has "$T/err" "^veles monitor: module tc: record \"xx stray\" does not start with its discriminator 'tc': dropped$"
	hasnt "$T/err" '^xx stray$'
	hasnt "$T/err" '^tcx stray too$'
	has "$T/err" '^tc count 2000$'
	ok veles monitor -p "$T/brec" -s c --import "$T/calls.so,$T/log5" -P
	hasnt "$T/log5" 'analyze (xx|tcx)'
	# verbose headings: every record, or as --hr says; the module's too
	ok veles monitor -p "$T/crec" -s c --import "$T/calls.so,$T/log2" --verbose
	[ "$(grep -c '^# TC SUMMARY' "$T/out")" -eq 2 ] || fail "verbose: TC heading per record"
	ok veles monitor -p "$T/crec" -s c --import "$T/calls.so,$T/log2" --verbose --hr 0
	[ "$(grep -c '^# TC SUMMARY' "$T/out")" -eq 1 ] || fail "--hr 0: TC heading once"
	[ "$(grep -c '^# CPU SUMMARY' "$T/out")" -eq 1 ] || fail "--hr 0: CPU heading once"
	[ "$(grep -cE '^ +[0-9]+$' "$T/out")" -eq 2 ] || fail "--hr 0: TC values each record"
	ok veles monitor -s c --hr 2 -c 5 -i 0.02
	[ "$(grep -c '^#Time' "$T/out")" -eq 3 ] || fail "--hr 2: brief header every 2 lines"
	# two modules with one discriminator: refused, one line
	fails 1 veles monitor -s c --import "$T/calls.so,$T/log6:$T/calls.so,$T/log7" -c 1 -i 0.05
	has "$T/err" "^veles: module tc: discriminator 'tc' is already module tc's: not loaded$"
	[ "$(grep -c . "$T/err")" -eq 1 ] || fail "duplicate: one line: $(cat "$T/err")"
fi
fails 1 veles monitor -s c --import hello:hello -c 1 -i 0.05
has "$T/err" "discriminator 'hw' is already module hello's"
[ "$(grep -c . "$T/err")" -eq 1 ] || fail "hello twice: one line: $(cat "$T/err")"
