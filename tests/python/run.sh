#!/bin/sh
# The binding's tests: pytest over build/python (the package as built).
# Skipped (77) only when a Debian package it needs is not there.
py=/usr/bin/python3
if [ ! -x $py ]; then
	echo "tests/python: needs python3 (scripts/deps.sh)" >&2
	exit 77
fi
if [ "${VELES_PYTHON_BUILT:-1}" != 1 ]; then
	echo "tests/python: the binding was not built: needs python3-dev (scripts/deps.sh)" >&2
	exit 77
fi
for m in pytest:python3-pytest numpy:python3-numpy pandas:python3-pandas; do
	if ! $py -c "import ${m%%:*}" 2>/dev/null; then
		echo "tests/python: needs ${m#*:} (scripts/deps.sh)" >&2
		exit 77
	fi
done
export PYTHONPATH="$VELES_BUILDDIR/python${PYTHONPATH:+:$PYTHONPATH}"
# A sanitized build's extension runs in an interpreter that is not: the
# sanitizers' runtimes go first, and Python's own allocations at exit are
# not leaks of ours.
if [ "${VELES_SANITIZE:-none}" != none ]; then
	pre=
	case $VELES_SANITIZE in *address*) pre=$(cc -print-file-name=libasan.so) ;; esac
	case $VELES_SANITIZE in *undefined*) pre="$pre $(cc -print-file-name=libubsan.so)" ;; esac
	export LD_PRELOAD="$pre" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
cd "$VELES_SRCDIR/tests/python" || exit 1
exec $py -m pytest -q -p no:cacheprovider "$@" .
