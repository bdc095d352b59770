#!/bin/sh
# make lint: formatting (clang-format, the project's .clang-format), static
# analysis (cppcheck) and library hygiene (lint-library.sh). Exits non-zero
# on any finding.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
status=0
files=$(git ls-files '*.c' '*.h')
# shellcheck disable=SC2086
clang-format --dry-run --Werror $files || status=1
# shellcheck disable=SC2086
cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,performance,portability \
	--inline-suppr -I src -I include -D_GNU_SOURCE --suppress=missingIncludeSystem \
	src python tests/unit tests/api tests/fuzz bench examples runtime || status=1
# Library code neither prints, exits nor parses argv.
sh "$top/scripts/lint-library.sh" "$top" || status=1
[ $status -eq 0 ] && echo "lint: clean"
exit $status
