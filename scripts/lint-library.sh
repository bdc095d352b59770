#!/bin/sh
# Library hygiene: code outside src/cli/ is library code (libveles, the
# collectors, the runner), which another front end (the Python binding, a
# server) calls inside its own process. It must not print to the
# terminal, end the process or parse the process's argv: it returns an
# ERR_* after err_set() and the front end decides. This fails on a call of
# printf, puts, putchar, exit, getopt* or an f*printf/fputs to stdout or
# stderr in such code.
#
# Nor may it change what the process shares between its threads: its
# current directory (chdir, fchdir) or its environment (setenv, putenv,
# unsetenv, clearenv). A command runs elsewhere, or with other variables,
# through spawn_opts.cwd and .env (util/spawn.h). The one exception is a
# forked child between fork and exec, which has a directory of its own: the
# line says so with the comment "lint-library: in the forked child".
#
# scripts/lint-library.known lists the files that still do, until they
# move to src/cli/ or stop; the list may only shrink: a file on it that no
# longer offends fails too, so that it is taken off.
# usage: scripts/lint-library.sh [SOURCE_ROOT]
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 1
known=scripts/lint-library.known
calls='(^|[^_[:alnum:].>])(printf|vprintf|puts|putchar|exit|getopt|getopt_long|getopt_long_only)[[:space:]]*\('
stdio='(^|[^_[:alnum:]])(fprintf|vfprintf|fputs|fputc|putc)[[:space:]]*\(.*\b(stdout|stderr)\b'
shared='(^|[^_[:alnum:].>])(chdir|fchdir|setenv|putenv|unsetenv|clearenv)[[:space:]]*\('
child='lint-library: in the forked child'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Comment lines (" * ...", "// ...", "/* ...") name calls without making them.
git ls-files 'src/*.c' 'src/*.h' | grep -v '^src/cli/' | while read -r f; do
	{
		grep -nE "$calls|$stdio" "$f"
		grep -nE "$shared" "$f" | grep -vF "$child"
	} | grep -vE '^[0-9]+:[[:space:]]*(\*|//|/\*)' | sed "s|^|$f:|"
done >"$tmp/hits"
cut -d: -f1 "$tmp/hits" | sort -u >"$tmp/offending"
grep -v '^#' "$known" | grep -v '^$' | sort -u >"$tmp/known"

status=0
for f in $(comm -23 "$tmp/offending" "$tmp/known"); do
	grep "^$f:" "$tmp/hits" >&2
	status=1
done
[ $status -eq 0 ] || echo "lint-library: library code prints, exits, parses argv or changes" \
	"the current directory or environment (above): return an ERR_* after err_set() and" \
	"let the front end print; give a command its directory and variables through" \
	"spawn_opts" >&2
for f in $(comm -13 "$tmp/offending" "$tmp/known"); do
	echo "lint-library: $f no longer offends: take it off $known" >&2
	status=1
done
[ $status -eq 0 ] && echo "lint-library: clean ($(wc -l <"$tmp/known") files still listed in $known)"
exit $status
