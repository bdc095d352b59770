#!/bin/bash
# Every HTML view, rendered in headless Chromium with no console error (see
# check-html.mjs). Skipped (77) without chromium, node or web/node_modules.
. "$(dirname "$0")/needs.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/veles-browser.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" && git init -q . && "$VELES" init -q >/dev/null 2>&1 || "$VELES" init >/dev/null || exit 1
P=$VELES_SRCDIR/tests/data/profiles/trace-models.perf
set -e
"$VELES" show "$P" bars -o bars.html
"$VELES" show "$P" bars --per structure-unit-size --by uid --stacked -a median -o bars-stacked.html
"$VELES" show "$P" bars --per structure-unit-size --by uid -o bars-grouped.html
"$VELES" show "$P" flow -o flow.html
"$VELES" show "$P" flow --stacked --no-accumulate -o flow-stacked.html
"$VELES" show "$P" scatter -o scatter.html
"$VELES" show "$VELES_SRCDIR/tests/data/profiles/trace.perf" scatter -o scatter-nomodels.html
"$VELES" show "$P" tableof models -o tableof-models.html
"$VELES" show "$P" tableof resources --title "Resources" -o tableof-resources.html
M=$VELES_SRCDIR/tests/data/profiles/memory.perf
"$VELES" postprocess -o memory2.perf "$M" normalizer >/dev/null 2>&1
"$VELES" diff "$M" memory2.perf report -o diff-report.html
exec node "$VELES_SRCDIR/tests/browser/check-html.mjs" "$T"/*.html
