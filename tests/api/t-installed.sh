#!/bin/bash
# libveles as a user gets it: `meson install` into a scratch root, a C
# program built with `pkg-config --cflags --libs veles` against it, run on
# a project with two versions, the second one slower; it collects too.
. "$VELES_SRCDIR/tests/cli/lib.sh"
for tool in pkg-config cc readelf; do
	command -v $tool >/dev/null || { echo "t-installed: needs $tool" >&2; exit 77; }
done
root=$T/root
meson install -C "$VELES_BUILDDIR" --no-rebuild --destdir "$root" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "meson install"; }
pc=$(find "$root" -name veles.pc | head -1)
[ -n "$pc" ] || fail "no veles.pc installed"
lib=$(find "$root" -name 'libveles.so.1' | head -1)
[ -n "$lib" ] || fail "no libveles.so.1 installed"
find "$root" -name veles.h | grep -q include/veles.h || fail "no include/veles.h installed"
readelf -d "$lib" | grep -q 'SONAME.*\[libveles\.so\.1\]' || fail "SONAME is not libveles.so.1"
# Only the public API is exported.
nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^veles_\|^VELES_' >"$T/extra"
[ ! -s "$T/extra" ] || { cat "$T/extra" >&2; fail "libveles exports more than veles_*"; }

export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$root
flags="$(pkg-config --cflags veles) $(pkg-config --libs veles)"
case $flags in *"$root"*) ;; *) fail "pkg-config does not point into the install: $flags" ;; esac
san=
[ "${VELES_SANITIZE:-none}" = none ] || san="-fsanitize=$VELES_SANITIZE"
cc -std=c11 -Wall -Wextra -Werror $san -o "$T/installed" "$VELES_SRCDIR/tests/api/installed.c" \
	$flags || fail "cc against the installed veles.pc"

# Two versions of ./prog, each with a time profile of 20 runs; the second
# 30% slower.
new_git_project p
gen() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, random, sys
out, factor, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed)
res = []
for k in range(20):
    for sub, base in (("real", 1.0), ("user", 0.9), ("sys", 0.05)):
        res.append({"uid": "./prog", "type": "time", "subtype": sub, "order": k + 1,
                    "amount": round(base * factor * (1 + r.gauss(0, 0.01)), 6)})
json.dump({"header": {"type": "time", "cmd": "./prog", "params": "", "workload": "",
                      "units": {"time": "s"}},
           "collector_info": {"name": "time", "params": {"repeat": 20}},
           "postprocessors": [], "global": {"timestamp": 1.0, "resources": res}},
          open(out, "w"))
PY
}
gen .veles/jobs/prog-time-1.perf 1.0 1 && ok veles add -q prog-time-1.perf
commit_change "slower"
gen .veles/jobs/prog-time-2.perf 1.3 2 && ok veles add -q prog-time-2.perf

LD_LIBRARY_PATH=$(dirname "$lib") "$T/installed" "$T/p" >"$T/out" 2>"$T/err" ||
	{ cat "$T/out" "$T/err" >&2; fail "the installed program failed"; }
has "$T/out" "^veles [0-9.]+ abi 1$"
has "$T/out" "^versions 2, HEAD has 1 profiles$"
has "$T/out" "^loaded prog-time-2.perf \(\./prog\), 60 resources$"
has "$T/out" "^column uid:3 indexed$"
has "$T/out" "^column amount:2$"
# 20 runs of 1.3 s, 1.17 s and 0.065 s, within the noise.
has "$T/out" "^amount sum 5[01]\.[0-9]+$"
has "$T/out" "^group real 20 1\.(29|30|31)[0-9]+$"
has "$T/out" "^group sys 20 0\.06[0-9]+$"
has "$T/out" "^bad condition: where 'amount' is not KEY OP VALUE"
# The check judges the metric both sides have that is most stable: real.
has "$T/out" "^profiles \./prog \[real\] (Severe)?Degradation \+0\.(29|30|31)[0-9] \+0\.[23]"
has "$T/out" "^versions \./prog \[real\] (Severe)?Degradation \+0\.(29|30|31)[0-9]"
has "$T/out" "^bad method: unknown method 'nonsense'"
has "$T/out" "^no such profile: no profile 7@i in version [0-9a-f]{7}"
has "$T/out" "^collected installed.perf by memory$"
has "$T/out" "^bad collector: unknown collector 'nosuch'$"
has "$T/out" "^warnings 0$"

# The Python package as installed, when this build makes it (the
# sanitized one runs it in tests/python instead).
ext=$(find "$root" -name '_veles*.so' | head -1)
if [ -n "$ext" ] && [ "${VELES_SANITIZE:-none}" = none ]; then
	LD_LIBRARY_PATH=$(dirname "$lib") PYTHONPATH=$(dirname "$(dirname "$ext")") \
		/usr/bin/python3 -c 'import sys, veles
assert veles.__file__.startswith(sys.argv[1]), veles.__file__
p = veles.load("0@i")
print(p.name, p.header["cmd"], len(p.to_dataframe()))' "$root" >"$T/out" 2>&1 ||
		{ cat "$T/out" >&2; fail "import veles from the install"; }
	has "$T/out" "^prog-time-2.perf \./prog 60$"
	# Installed under /usr/local (make install's prefix), the package lands
	# where Debian's python3 looks without a PYTHONPATH.
	site=$(dirname "$(dirname "${ext#"$root"}")")
	case $site in
	/usr/local/*)
		/usr/bin/python3 -c 'import site, sys; sys.exit(sys.argv[1] not in site.getsitepackages())' \
			"$site" || fail "the package went to $site, which python3 does not search"
		;;
	esac
fi
exit 0
