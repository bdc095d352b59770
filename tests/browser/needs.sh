# Sourced first by every browser test: it runs only where the machine's
# Chromium ($CHROMIUM), node and web/node_modules (playwright-core) are;
# elsewhere it is skipped (77) saying what is missing. browser.mjs finds
# both through the two names exported here.
: "${VELES:?}" "${VELES_SRCDIR:?}"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ] || ! command -v node >/dev/null ||
	[ ! -d "$VELES_SRCDIR/web/node_modules/playwright-core" ]; then
	echo "skipped: needs $CHROMIUM, node and web/node_modules (npm ci --prefix web)" >&2
	exit 77
fi
export VELES_SRCDIR CHROMIUM
