#!/bin/bash
# Where veles record writes: veles.data in the current directory, as perf
# writes perf.data (not the project's root), the recording it replaces
# kept as veles.data.old; a recording that fails leaves both as they were.
. "$(dirname "$0")/lib.sh"
new_git_project p
mkdir sub && cd sub || fail cd
veles record -F 100 -- true >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -ne 0 ] && grep -q "cannot open\|perf_event_paranoid\|not permitted" "$T/err"; then
	echo "veles record cannot sample here: $(cat "$T/err")" >&2
	exit 77
fi
[ "$rc" -eq 0 ] || fail "record: $(cat "$T/err")"
has "$T/err" "written to veles.data$"
[ -s veles.data ] || fail "no veles.data in the current directory"
[ -e ../veles.data ] && fail "veles.data in the project's root"
first=$(md5sum <veles.data)
ok veles record -F 100 -- true
[ "$(md5sum <veles.data.old)" = "$first" ] || fail "the first recording was not kept as .old"
second=$(md5sum <veles.data)
fails 2 veles record -e no-such-event -- true
[ "$(md5sum <veles.data)" = "$second" ] || fail "a failed record changed veles.data"
[ "$(md5sum <veles.data.old)" = "$first" ] || fail "a failed record changed veles.data.old"
# -o names the file, and the same rule keeps what it replaces.
ok veles record -F 100 -o r.data -- true
ok veles record -F 100 -o r.data -- true
[ -s r.data.old ] || fail "no r.data.old"
echo ok
