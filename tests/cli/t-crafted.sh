#!/bin/bash
# Crafted files: what the fuzz targets found (tests/fuzz/regressions/)
# given to the commands that read them. Each gives one clear line on
# stderr and a non-zero exit, or plays what it holds: never a crash,
# an out-of-memory exit or a sanitizer report (the ASan+UBSan run of this
# test halts on one).
. "$(dirname "$0")/lib.sh"
new_git_project p
reg=$VELES_SRCDIR/tests/fuzz/regressions

# A module record's length read past its sample record (64 MiB).
rec=$reg/monitor/module-length-past-record.rec
fails 1 veles monitor -p "$rec"
has "$T/err" 'is damaged: it holds no whole sample'
fails 1 veles show "$rec"

# A sample whose call chain claims 2^60 entries.
data=$reg/perf-data/callchain-length-2e60.data
fails 1 veles report -i "$data"
has "$T/err" 'damaged sample at offset 65'
fails 1 veles report --folded -i "$data"
fails 1 veles show "$data"

# A config.yml nested 300000 deep: read by every command, refused by the
# editor before its recursion runs out of stack.
cp .veles/config.yml "$T/config.yml"
python3 -c "print('a: ' + '[' * 300000 + ']' * 300000)" >.veles/config.yml
ok veles status
fails 1 veles config set collect.warn_dirty true
has "$T/err" 'config.yml: nested more than 1000 levels deep'
cp "$T/config.yml" .veles/config.yml

# Every past crash: no signal, no sanitizer report, and an error says why.
for f in "$reg"/monitor/* "$reg"/perf-data/* "$reg"/tpstream/*; do
	[ -f "$f" ] || continue
	case $f in
	*/monitor/*) cmds=("monitor -p" "show") ;;
	*/perf-data/*) cmds=("report -i" "show") ;;
	*) cmds=("script -g python -i") ;;
	esac
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		"$VELES" $c "$f" >"$T/out" 2>"$T/err"
		st=$?
		[ "$st" -lt 128 ] || fail "veles $c $(basename "$f"): killed by signal $((st - 128))"
		[ "$st" -eq 0 ] || grep -q '^veles' "$T/err" || fail "veles $c $(basename "$f"): no error line"
	done
done

# Nothing to sort: a recording without samples reports none (UBSan:
# qsort of NULL).
python3 - "$T/empty.data" <<'PY' || fail "craft"
import struct, sys
name = b"cpu-clock"
st = 1 | 2 | 4 | 32 | 256
open(sys.argv[1], "wb").write(b"VELESPD1" + struct.pack("<IIQQIIQQ", 1, 56 + len(name), st,
                              999, 1, len(name), 1, 0) + name)
PY
ok veles report -i "$T/empty.data"
has "$T/out" '# Samples: 0 of event'
ok veles report --folded -i "$T/empty.data"
# ...and a tracepoint recording without samples, its format recorded.
python3 - "$T/tp.data" <<'PY' || fail "craft"
import struct, sys
name = b"sched:sched_switch"
fmt = b"sched\0name: sched_switch\nID: 316\nformat:\n\tfield:unsigned short common_type;" \
    b"\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"x\"\n\0"
fmt += b"\0" * (-len(fmt) % 8)
open(sys.argv[1], "wb").write(b"VELESPD1" + struct.pack("<IIQQIIQQ", 1, 56 + len(name),
                              1 | 2 | 4 | 128 | 256 | 1024, 1, 0, len(name), 2, 316) + name +
                              struct.pack("<IHH", 0x5646, 0, 8 + len(fmt)) + fmt)
PY
ok veles script -i "$T/tp.data" -g python
has "$T/out" 'generated Python script'
