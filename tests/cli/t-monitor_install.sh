# An installed Veles is enough to build an import module: meson install
# into a staging directory (--destdir), then the worked example of
# docs/monitor-modules.md built with the command its first line gives
# (pkg-config veles-monitor) and loaded by the installed veles.
. "$VELES_SRCDIR/tests/cli/lib.sh"
for tool in "${CC:-cc}" pkg-config "${MESON:-meson}"; do
	command -v "$tool" >/dev/null || { echo "skip: no $tool"; exit 77; }
done
cd "$T" || exit 1
unset VELES_MODULE_PATH PKG_CONFIG_LIBDIR
dest="$T/dest"

# the build tree as it is (the test runner has built it), staged
ok "${MESON:-meson}" install -C "$VELES_BUILDDIR" --no-rebuild --quiet --destdir "$dest"
exe=$(find "$dest" -path '*/bin/veles' -type f)
pc=$(find "$dest" -name veles-monitor.pc)
[ -x "$exe" ] || fail "no installed bin/veles"
[ -n "$pc" ] || fail "no installed veles-monitor.pc"
[ "$(find "$dest" -path '*/include/veles/vmon-module.h' | wc -l)" -eq 1 ] ||
	fail "vmon-module.h is not installed as include/veles/vmon-module.h"
export PKG_CONFIG_PATH="${pc%/*}" PKG_CONFIG_SYSROOT_DIR="$dest"
ok pkg-config --cflags veles-monitor
has "$T/out" "^-I$dest/.*/include/veles *\$"
moddir=$(pkg-config --variable=moduledir veles-monitor)
case $moddir in # a pkg-config without the sysroot there: never outside $dest
"$dest"/*/veles/monitor) ;;
*) fail "moduledir $moddir is not in $dest" ;;
esac
for m in hello misc gpu; do
	[ -f "$moddir/$m.so" ] || fail "$m.so is not in the moduledir $moddir"
done

# the docs' example, built as its first line says, with warnings as errors
awk '/^\/\* files.c/ {f = 1} f && /^```$/ {f = 0} f' \
	"$VELES_SRCDIR/docs/monitor-modules.md" >"$T/files.c"
build=$(sed -n '1s|^/\* files\.c: \(.*\) \*/$|\1|p' "$T/files.c")
case $build in
*'pkg-config --cflags veles-monitor'*) ;;
*) fail "the example's first line does not build with pkg-config: $build" ;;
esac
grep -q '^#include <vmon-module.h>$' "$T/files.c" || fail "the example's include"
CFLAGS="-Wall -Wextra -Werror"
ok sh -c "${build/#cc /\${CC:-cc\} $CFLAGS }"
[ -f "$T/files.so" ] || fail "the example did not build files.so"

# loaded through VELES_MODULE_PATH, by the installed veles
VELES_MODULE_PATH="$T" ok "$exe" monitor -s c --import files -P -c 1 -i 0.05
has "$T/out" '\[FILES\]Used$'
has "$T/out" ' [0-9]+$'
# installed into the moduledir, it is found by name, with nothing set: the
# staged veles looks beside itself, as it does for the shipped modules
cp "$T/files.so" "$moddir/"
ok "$exe" monitor -s c --import files:hello --on -P -c 1 -i 0.05
has "$T/out" '\[FILES\]Used \[HW\]Hello1 \[HW\]Hello2 \[HW\]Hello3$'
has "$T/out" ' [0-9]+ 100 200 300$'
ok "$exe" monitor --help
has "$T/out" "^Modules are looked up in: $moddir:"
