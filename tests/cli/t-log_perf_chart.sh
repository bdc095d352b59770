#!/bin/bash
# log --perf -o FILE: the history chart as a static SVG and an interactive
# HTML page, over a crafted history (no timing) with a planted step; the
# change point is marked where the text output marks it.
. "$(dirname "$0")/lib.sh"
new_git_project p
py=/usr/bin/python3
for v in $(seq 0 11); do
	git commit -q --allow-empty -m "version $v: <b>tweak</b> & </script> more"
	$py "$VELES_SRCDIR/tests/cli/history_profile.py" "$T/p$v.perf" "$v" 7 --args 3000 --normalized
	ok veles add -q --force "$T/p$v.perf"
done
step=$(git rev-parse --short=7 HEAD~4)
ok veles log --perf "[real]"
has "$T/out" "^  $step .*◀ shift \+3[0-9]\.[0-9]%"
shift=$(grep "◀ shift" "$T/out" | sed -E 's/.*shift (\+[0-9.]+%).*/\1/')

ok veles log --perf "[real]" -o "$T/h.svg"
[ ! -s "$T/out" ] || fail "-o printed the text too"
$py - "$T/h.svg" "$step" "$shift" <<'PY' || fail "svg"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
panels = root.findall(".//s:g[@class='panel']", ns)
assert len(panels) == 1, len(panels)
points = root.findall(".//s:circle", ns)
pts = [c for c in points if c.get("class", "").startswith("point")]
assert len(pts) == 12, len(pts)
changed = [c for c in pts if "change" in c.get("class")]
assert len(changed) == 1, changed
title = changed[0].find("s:title", ns).text
# The tooltip names the commit and its subject, and the shift.
assert title.startswith(sys.argv[2] + " version 7: <b>tweak</b> & </script> more"), title
assert "change point: shift " + sys.argv[3] in title, title
assert len(root.findall(".//s:line[@class='change']", ns)) == 1
texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert sys.argv[3] in texts, texts
assert sys.argv[2] in texts  # the x labels are the commits
PY

ok veles log --perf ./prog -o "$T/h.html"
$py - "$T/h.html" "$(git rev-parse HEAD~4)" <<'PY' || fail "html"
import json, re, sys
page = open(sys.argv[1]).read()
# Self-contained, and no commit subject closes the script early.
assert "<script src" not in page and "<link" not in page
data = re.search(r"const VELES_HISTORY = (.*?);\n</script>", page, re.S).group(1)
assert "</script" not in data.lower()
h = json.loads(data)
assert len(h["versions"]) == 13  # and the first, without profiles
v7 = [v for v in h["versions"] if v["id"] == sys.argv[2]][0]
assert v7["summary"] == "version 7: <b>tweak</b> & </script> more" and len(v7["label"]) == 7
assert [s["location"] for s in h["series"]] == ["./prog [real]", "./prog [user]"]
for s in h["series"]:
    assert s["config"] == "./prog 3000 · time + normalizer", s["config"]
    cps = [p["version"] for p in s["points"] if p["change_point"]]
    assert cps == [sys.argv[2]], cps
assert "veles-history" in page or "VELES_HISTORY" in page
PY

fails 2 veles log --perf "[real]" -o "$T/h.png"
has "$T/err" "--output wants FILE.svg or FILE.html"
fails 2 veles log -o "$T/h.svg"
has "$T/err" "--output draws the chart of --perf KEY"
fails 1 veles log --perf nosuch -o "$T/n.svg"
[ ! -e "$T/n.svg" ] || fail "a chart of nothing was written"
