#!/bin/sh
# Generates the C file that embeds the HTML views' chart library (uPlot,
# pinned in web/package-lock.json) and our glue (web/veles-view.*,
# web/veles-history.js, and web/veles-flame.js, which flame graphs carry
# inline), so
# `veles show ... -o FILE.html` writes one self-contained file.
# Installs web/node_modules with `npm ci` when it is missing (the build then
# needs the npm registry once).
# usage: web-assets.sh SRCDIR OUT.c
set -eu
src=$1
out=$2
if [ ! -f "$src/web/node_modules/uplot/dist/uPlot.iife.min.js" ]; then
	command -v npm >/dev/null || {
		echo "web-assets: npm is missing (scripts/deps.sh installs it)" >&2
		exit 1
	}
	npm ci --prefix "$src/web" --no-audit --no-fund --loglevel=error >&2
fi
python3 "$src/scripts/embed-assets.py" "$out" \
	"$src/web/node_modules/uplot/dist/uPlot.min.css" \
	"$src/web/node_modules/uplot/dist/uPlot.iife.min.js" \
	"$src/web/veles-view.css" \
	"$src/web/veles-chart.js" \
	"$src/web/veles-view.js" \
	"$src/web/veles-history.js" \
	"$src/web/veles-flame.js"
