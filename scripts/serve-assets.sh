#!/bin/sh
# Builds the browser UI of `veles serve` from web/serve/ with esbuild (npm,
# pinned in web/package-lock.json, with uPlot) into one app.js and app.css,
# and writes the C file that embeds them with index.html.
# Installs web/node_modules with `npm ci` when esbuild is missing (the build
# then needs the npm registry once).
# usage: serve-assets.sh SRCDIR OUT.c
set -eu
src=$1
out=$2
web=$src/web
if [ ! -x "$web/node_modules/.bin/esbuild" ]; then
	command -v npm >/dev/null || {
		echo "serve-assets: npm is missing (scripts/deps.sh installs it)" >&2
		exit 1
	}
	npm ci --prefix "$web" --no-audit --no-fund --loglevel=error >&2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/veles-serve-assets.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$web/node_modules/.bin/esbuild" "$web/serve/main.js" --bundle --minify \
	--format=iife --target=es2020 --legal-comments=none --log-level=warning \
	--outfile="$tmp/app.js"
cp "$web/serve/index.html" "$tmp/index.html"
python3 "$src/scripts/embed-assets.py" --prefix serve "$out" \
	"$tmp/index.html" "$tmp/app.js" "$tmp/app.css"
