# veles monitor: each output format, options, record and playback.
. "$VELES_SRCDIR/tests/cli/lib.sh"
cd "$T" || exit 1

# brief: two header lines, then one line per interval
ok veles monitor -c 2 -i 0.1
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "brief: want 2 headers + 2 lines"
has "$T/out" '^# +<-+CPU-+><-+DSK-+><-+NET-+>$'
has "$T/out" '^#Time +sys +cpu +inter +ctxsw +KBRead +Reads +KBWrit +Writes +KBIn +PktIn +KBOut +PktOut$'
has "$T/out" '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}( +[0-9]+[KMG]?){12}$'

# every summary letter side by side
ok veles monitor -s cdmnjsfz -c 2 -i 0.1
has "$T/out" '<-+MEM-+>'
has "$T/out" '<-+PRC-+>'

# verbose: a section per subsystem, details per instance
ok veles monitor --verbose -s cm -c 2 -i 0.1
[ "$(grep -c '^### RECORD' "$T/out")" -eq 2 ] || fail "verbose: two records"
has "$T/out" '^# CPU SUMMARY \(/sec\)$'
has "$T/out" '^# MEMORY SUMMARY \(KB\)$'
ok veles monitor -s CDN -c 1 -i 0.1
has "$T/out" '^# SINGLE CPU STATISTICS'
has "$T/out" '^ cpu0 '
has "$T/out" '^ lo '
hasnt "$T/out" '^ loop'

# plot: a header and one line per interval; --sep; --on
ok veles monitor -P -s cm -c 2 -i 0.1
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "plot: header + 2 lines"
has "$T/out" '^#Date Time \[CPU\]User% .* \[MEM\]Tot '
has "$T/out" '^[0-9]{8} [0-9:.]+( -?[0-9.]+){27}$'
ok veles monitor -P --sep , -s m -c 2 -i 0.1
has "$T/out" '^#Date,Time,\[MEM\]Tot,'
has "$T/out" '^[0-9]{8},[0-9:.]+(,[0-9]+){13}$'
ok veles monitor --on --verbose -s d -c 1 -i 0.1
has "$T/out" 'DISK SUMMARY \(/int\)'
ok veles monitor -P -s N -c 1 -i 0.1
has "$T/out" '\[NET:lo\]KBIn'

# saved /proc files: the same file twice gives zero rates and the gauges
ok veles monitor --proc "$VELES_SRCDIR/tests/data/proc" -P -s mz -c 1 -i 0.05
has "$T/out" ' 24684092 '
has "$T/out" ' 1\.35 2\.34 2\.24 100$'

# each cpu's clock from /sys (DIR/sys with --proc DIR), in -s C
ok veles monitor --proc "$VELES_SRCDIR/tests/data/proc" -s C -c 1 -i 0.05
has "$T/out" '^#Name +User% .* Totl% +MHz$'
has "$T/out" '^ cpu0 .* 2400$'
has "$T/out" '^ cpu1 .* 3100$'

# processes (-s Z) from saved /proc/PID/stat files: one row each, the
# command with its space, negative priority, sizes in KB
ok veles monitor --proc "$VELES_SRCDIR/tests/data/proc" -s Z -c 1 -i 0.05
has "$T/out" '^# PROCESS DETAIL \(/sec\)$'
has "$T/out" '^#    PID User +PR +PPID THRD S +VSZ +RSS CP +SysT +UsrT +Pct +AccuTime +MajF +MinF Command$'
has "$T/out" '^ +4242 [^ ]+ +20 +77 +2 R +10240 .* 0:03\.00 +0 +0 burn me$'
has "$T/out" '^ +77 [^ ]+ +-2 +1 +1 S '
ok veles monitor --proc "$VELES_SRCDIR/tests/data/proc" -P -s Z -c 1 -i 0.05 --procfilt p77
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "--procfilt p77: header + one process"
has "$T/out" '^#Date Time PID User PR PPID THRD S VSZ RSS CP SysT UsrT Pct AccuTime MajF MinF Command$'
has "$T/out" '^[0-9]{8} [0-9:.]+ 77 [^ ]+ -2 1 1 S 8192 '

# a live process burning cpu shows with its name, a share of a cpu (any:
# a machine with twenty busy threads on two cores gives it a tenth), and
# first under --top; a filter keeps it alone
cp "$(command -v sh)" "$T/vburner"
"$T/vburner" -c 'while :; do :; done' &
bpid=$!
ok veles monitor -s Z -P -c 2 -i 0.3 --procfilt cvburner
kill "$bpid"
awk '$NF == "vburner" && $14 > 0 {n++} END {exit n >= 1 ? 0 : 1}' "$T/out" ||
	fail "the burning process has no cpu%: $(cat "$T/out")"
[ "$(grep -vc '^#' "$T/out")" -eq 2 ] || fail "--procfilt: only the burner, twice"
# --top ranks the processes the filter keeps: of a burner and a sleeper,
# the burner is first however busy the rest of the machine is.
cp "$(command -v sh)" "$T/vsleeper"
"$T/vburner" -c 'while :; do :; done' &
bpid=$!
"$T/vsleeper" -c 'while :; do sleep 1; done' &
spid=$!
ok veles monitor -s cZ -P -c 1 -i 0.3 --procfilt cvburner,cvsleeper --top time,1 -f "$T/recz"
cp "$T/out" "$T/livez"
kill "$bpid" "$spid"
[ "$(grep -c '^#Date' "$T/out")" -eq 2 ] || fail "-scZ -P: a header for each kind of line"
[ "$(grep -cv '^#' "$T/out")" -eq 2 ] || fail "--top time,1: one cpu line, one process"
grep -v '^#' "$T/out" | grep -q ' vburner$' || fail "--top: the burner is not first"
ok veles monitor -p "$T/recz" -P --top time,1
cmp -s "$T/out" "$T/livez" || fail "-s Z: playback differs"
ok veles monitor -p "$T/recz" -s Z --procfilt cvburner
[ "$(grep -c ' vburner$' "$T/out")" -eq 1 ] || fail "playback --procfilt"
fails 2 veles monitor -s c --top time
fails 2 veles monitor -s Z --procfilt q1
fails 2 veles monitor -s Z --top bogus

# a recording made when Z meant the process counts (-s cZ then) plays
# them back as z
ok veles monitor -p "$VELES_SRCDIR/tests/data/monitor/before-z.rec"
has "$T/out" '^# +<-+CPU-+><-+PRC-+>$'
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "before-z.rec: 2 headers + 2 lines"

# record, then play back into each format
ok veles monitor -s cdmn -i 0.05 -c 5 -f "$T/rec"
[ ! -s "$T/out" ] || fail "recording prints nothing"
head -c 10 "$T/rec" | grep -q VELESMON1 || fail "magic"
ok veles monitor -p "$T/rec" -P -s cdmn
[ "$(wc -l <"$T/out")" -eq 6 ] || fail "playback: header + 5 lines"
total=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)
awk -v t="$total" 'NR > 1 && $25 != t {exit 1}' "$T/out" ||
	fail "playback: [MEM]Tot is not MemTotal"
cp "$T/out" "$T/plot1"
ok veles monitor -p "$T/rec" -P -s cdmn
cmp -s "$T/out" "$T/plot1" || fail "two playbacks differ"
# without -s, the recorded subsystems; times as fine as the recorded interval
ok veles monitor -p "$T/rec"
has "$T/out" '^# +<-+CPU-+><-+DSK-+><-+MEM-+><-+NET-+>$'
has "$T/out" '^[0-9:]{8}\.[0-9]{3} '
ok veles monitor -p "$T/rec" -s cdmn -c 2
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "playback -c 2: headers + 2 lines"
ok veles monitor -p "$T/rec" --verbose -s m
[ "$(grep -c '^### RECORD' "$T/out")" -eq 5 ] || fail "playback verbose"

# -f with -P or --export records and prints at once; what was printed is
# what playback prints
ok veles monitor -s cm -i 0.05 -c 3 -P -f "$T/recp"
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "-f -P: header + 3 lines"
cp "$T/out" "$T/live"
ok veles monitor -p "$T/recp" -P
cmp -s "$T/out" "$T/live" || fail "-f -P: playback differs"
ok veles monitor -s cm -i 0.05 -c 2 --export lexpr -f "$T/rece"
[ "$(grep -cE '^sample\.time [0-9.]+$' "$T/out")" -eq 2 ] || fail "-f --export: two samples"
ok veles monitor -p "$T/rece" -P
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "-f --export: recorded 2 intervals"

# what was shown live (-d4 shows while it records) is what playback shows,
# in every format and for every subsystem
for fmt in "" --verbose -P; do
	ok veles monitor -s cdmnjsfzZCDNJ $fmt -i 0.05 -c 4 -d4 -f "$T/rec3"
	cp "$T/out" "$T/live"
	ok veles monitor -p "$T/rec3" -s cdmnjsfzZCDNJ $fmt
	cmp -s "$T/out" "$T/live" || { diff "$T/live" "$T/out" >&2; fail "playback $fmt differs"; }
done

# live output reaches a pipe as each interval ends, not when the run does:
# two lines are there while the 20-second run still goes on (looked for
# until then, however slowly a busy machine starts it)
: >"$T/fifo_out" # before the background job's own redirection makes it
veles monitor -s c -P -i 0.2 -c 100 >"$T/fifo_out" 2>/dev/null &
mpid=$!
n=0
while [ $n -lt 150 ] && [ "$(wc -l <"$T/fifo_out")" -lt 2 ]; do
	sleep 0.1
	n=$((n + 1))
done
lines=$(wc -l <"$T/fifo_out")
kill -0 "$mpid" 2>/dev/null || fail "plot lines are held back: the run ended first"
kill "$mpid"
wait "$mpid"
[ "$lines" -ge 2 ] || fail "plot lines are held back: $lines"

# a truncated recording plays up to the damage, with a message
ok veles monitor -s m -i 0.01 -c 30 -f "$T/long"
size=$(stat -c %s "$T/long")
head -c $((size * 2 / 3)) "$T/long" >"$T/cut"
ok veles monitor -p "$T/cut" -P -s m
has "$T/err" 'damaged: played back its first [0-9]+ samples'
lines=$(wc -l <"$T/out")
[ "$lines" -ge 2 ] && [ "$lines" -lt 31 ] || fail "truncated: $lines lines"

# bytes overwritten in the middle: the samples before play, then one message
ok veles monitor -s m -i 0.005 -c 100 -f "$T/mid"
ok veles monitor -p "$T/mid" -P -s m
all=$(wc -l <"$T/out")
size=$(stat -c %s "$T/mid")
printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
	dd of="$T/mid" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
ok veles monitor -p "$T/mid" -P -s m
[ "$(grep -c . "$T/err")" -eq 1 ] || fail "damaged: want one message: $(cat "$T/err")"
has "$T/err" 'mid is damaged: played back its first [0-9]+ samples'
lines=$(wc -l <"$T/out")
[ "$lines" -ge 20 ] && [ "$lines" -lt "$all" ] || fail "damaged in the middle: $lines of $all lines"

# live: each interval reaches a file as it ends (tail -f), not at exit
: >"$T/live" # emptied now: the background job's redirection may come later
"$VELES" monitor -P -s c -i 0.2 -c 100 >"$T/live" 2>/dev/null &
pid=$!
n=0
while [ $n -lt 100 ] && [ "$(wc -l <"$T/live")" -lt 3 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill $pid
wait $pid 2>/dev/null
[ "$(wc -l <"$T/live")" -ge 3 ] || fail "live: lines reach the file as intervals end"
has "$T/live" '^[0-9]{8} [0-9:.]+( -?[0-9.]+){14}$'

# --self and -d4
ok veles monitor -s c -c 3 -i 0.02 --self
has "$T/err" '^veles monitor: [0-9.]+ ms of cpu per sample over 3 samples$'
ok veles monitor -s m -c 1 -i 0.02 -d4 -f "$T/rec2"
has "$T/err" '^>>> [0-9.]+ <<<'

# bad input: one line, non-zero
fails 2 veles monitor -s q -c 1
fails 2 veles monitor -i abc
fails 2 veles monitor -c -1
fails 2 veles monitor --sep ab
fails 2 veles monitor -f a -p b
fails 1 veles monitor -p "$T/nothere"
echo junk >"$T/junk"
fails 1 veles monitor -p "$T/junk"
ok veles monitor --help
has "$T/out" '^usage: veles monitor'
