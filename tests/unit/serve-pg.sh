#!/bin/sh
# test_serve's database tests again on a real PostgreSQL: a server from
# Debian's postgresql package started in a temporary folder (socket there,
# no TCP), its URL given in VELES_TEST_PG. Skipped (77) only where the
# package is missing.
set -u
exe=${1:?usage: serve-pg.sh TEST_EXECUTABLE}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-pg.XXXXXX")
pg="$tmp/pg"
trap 'sh "$VELES_SRCDIR/scripts/pg-temp.sh" stop "$pg"; rm -rf "$tmp"' EXIT
url=$(sh "$VELES_SRCDIR/scripts/pg-temp.sh" start "$pg")
rc=$?
[ $rc -eq 0 ] || exit $rc
VELES_TEST_PG=$url "$exe"
