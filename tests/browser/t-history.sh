#!/bin/bash
# The history chart (`veles log --perf KEY -o FILE.html`) in headless
# Chromium (see check-history.mjs). Skipped (77) without chromium, node or
# web/node_modules.
. "$(dirname "$0")/needs.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/veles-browser.XXXXXX")
trap 'rm -rf "$T"' EXIT
export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com
cd "$T" && git init -q -b main . || exit 1
set -e
for v in $(seq 0 11); do
	git commit -q --allow-empty -m "version $v: <b>tweak</b>"
	python3 "$VELES_SRCDIR/tests/cli/history_profile.py" "$T/p.perf" "$v" 7
	"$VELES" add -q --force "$T/p.perf"
done
"$VELES" log --perf ./prog -o "$T/history.html"
exec node "$VELES_SRCDIR/tests/browser/check-history.mjs" "$T/history.html" "$(git rev-parse --short=7 HEAD~4)"
