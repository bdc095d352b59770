#!/bin/bash
# veles show tableof|bars|flow|scatter: terminal output against expected
# files (tests/cli/views/, trailing blanks dropped), SVG parsed as XML, HTML
# self-contained, and the errors of bad view options.
# VELES_UPDATE_EXPECTED=1 rewrites the expected files.
. "$(dirname "$0")/lib.sh"
new_git_project p
P=$VELES_SRCDIR/tests/data/profiles/trace-models.perf
EXP=$VELES_SRCDIR/tests/cli/views
export COLUMNS=72
unset NO_COLOR

# same NAME VELES-ARGS...: the terminal output equals views/NAME.txt
same() {
	local name=$1
	shift
	ok veles "$@"
	sed 's/[[:space:]]*$//' "$T/out" >"$T/norm"
	if [ -n "${VELES_UPDATE_EXPECTED:-}" ]; then
		cp "$T/norm" "$EXP/$name.txt"
	fi
	diff -u "$EXP/$name.txt" "$T/norm" >&2 || fail "$name: output differs"
	hasnt "$T/out" $'\x1b' # no colour when stdout is not a terminal
}

same tableof show "$P" tableof
same tableof-sorted show tableof "$P" resources -h uid,structure-unit-size,amount \
	--sort-by amount --descending --filter-by structure-unit-size 100
same tableof-md show "$P" tableof --format markdown -h uid -h amount \
	--filter-by structure-unit-size 0
same tableof-csv show "$P" tableof --format csv -h uid,amount --filter-by structure-unit-size 0
same tableof-models show "$P" tableof models
same bars show "$P" bars
same bars-stacked show "$P" bars --per structure-unit-size --by uid --stacked -a max
same bars-grouped show "$P" bars --per uid --by structure-unit-size -a count \
	--filter-by structure-unit-size 50
same flow show "$P" flow
same flow-mean show flow "$P" --no-accumulate -a mean --stacked
same scatter show "$P" scatter

ok veles show "$P" tableof models --format json
/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert [x["model"] for x in m] == ["linear", "constant", "quadratic", "regressogram"], m
assert m[2]["r_square"] == 0.995 and m[2]["coeffs"] == "b0=10 b1=0 b2=0.1", m[2]
' "$T/out" || fail "tableof models json"
ok veles show "$P" tableof --format json --sort-by amount
/usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
a = [x["amount"] for x in r]
assert len(r) == 66 and a == sorted(a), a
' "$T/out" || fail "tableof json"

# SVG: well-formed XML with the plot in it; HTML: one file, nothing fetched
xml_ok() {
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1"
	else
		/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"
	fi
}
for v in bars flow scatter; do
	ok veles show "$P" "$v" -o "$T/$v.svg"
	[ ! -s "$T/out" ] || fail "$v -o wrote to stdout"
	xml_ok "$T/$v.svg" || fail "$v.svg is not XML"
	has "$T/$v.svg" "<svg xmlns="
	ok veles show "$P" "$v" --stacked -o "$T/$v.html"
	has "$T/$v.html" "VELES_FIGURE"
	has "$T/$v.html" "uPlot"
	hasnt "$T/$v.html" '<(script|link)[^>]* (src|href)='
done
has "$T/scatter.svg" "regressogram"
has "$T/scatter.svg" "<polyline"
[ "$(grep -c '<circle' "$T/scatter.svg")" -ge 66 ] || fail "scatter.svg points"
# tableof as SVG (text on a grid) and as an HTML page (sortable, filterable).
ok veles show "$P" tableof models --title 'Models & <fits>' -o "$T/models.svg"
xml_ok "$T/models.svg" || fail "tableof models.svg is not XML"
has "$T/models.svg" "<text [^>]*>regressogram</text>"
has "$T/models.svg" "Models &amp; &lt;fits&gt;"
ok veles show "$P" tableof models -o "$T/models.html"
has "$T/models.html" '<table class="veles-table">'
has "$T/models.html" '<td class="n" data-num="0.998">0.998</td>'
hasnt "$T/models.html" '<(script|link)[^>]* (src|href)='
ok veles show "$P" bars --title 'A & <B>' -o "$T/t.svg"
xml_ok "$T/t.svg" || fail "escaping"

# Many models per uid (interval: 4 parts x 6 models): each panel is tall
# enough for its legend, which stays inside it, and wide enough for the
# labels, which give each model's x range.
/usr/bin/python3 - "$T/iv.perf" <<'PY'
import json, sys
res = [{"uid": u, "type": "time", "subtype": "time delta", "structure-unit-size": x,
        "amount": (2 * x + 5 if u == "f" else 0.05 * x * x + 3) + (x * 7919 % 10)}
       for u in ("f", "g") for x in range(1, 101)]
json.dump({"origin": "0" * 40, "header": {"type": "time", "cmd": "t", "params": "",
           "workload": "", "units": {"time": "us"}},
           "collector_info": {"name": "trace", "params": {}}, "postprocessors": [],
           "global": {"timestamp": 1.0, "resources": res}}, open(sys.argv[1], "w"))
PY
ok veles postprocess -o "$T/iv-out.perf" "$T/iv.perf" regression-analysis -m interval -s 4
ok veles show "$T/iv-out.perf" scatter -o "$T/iv.svg"
/usr/bin/python3 - "$T/iv.svg" <<'PY' || fail "scatter legend of 24 models"
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
svg = E.parse(sys.argv[1]).getroot()
width = float(svg.get("width"))
plots = svg.findall(ns + "g")
assert len(plots) == 2, len(plots)
tops = []
for g in plots:
    title = [t for t in g.iter(ns + "text") if t.get("class") == "plot-title"][0]
    tops.append(float(title.get("y")) - 30)
tops.append(float(svg.get("height")))
for k, g in enumerate(plots):
    legend = [t for t in g.iter(ns + "text") if t.text and "(R\u00b2" in t.text]
    assert len(legend) == 24, len(legend)
    assert "linear [1\u201325.75] (R\u00b2" in [t.text[:len("linear [1\u201325.75] (R\u00b2")]
                                             for t in legend], [t.text for t in legend]
    for t in legend:
        y = float(t.get("y"))
        assert tops[k] < y < tops[k + 1], (k, y, tops)
        # 6.8 px a character leaves the label inside the figure.
        assert float(t.get("x")) + 6.8 * len(t.text) <= width + 1, (t.text, width)
PY

# colour only on a terminal, and not with NO_COLOR (script(1) gives a tty)
if command -v script >/dev/null; then
	script -qc "'$VELES' show '$P' bars" /dev/null >"$T/tty" </dev/null
	has "$T/tty" $'\x1b\\[34m'
	NO_COLOR=1 script -qc "'$VELES' show '$P' bars" /dev/null >"$T/tty" </dev/null
	hasnt "$T/tty" $'\x1b'
fi
for v in bars flow scatter; do
	COLUMNS=40 veles show "$P" $v >"$T/narrow" || fail "COLUMNS=40 $v"
	/usr/bin/python3 -c 'import sys; assert max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")) <= 40' \
		"$T/narrow" || fail "$v wider than COLUMNS"
done

ok veles show "$P" tableof --format csv -h uid,amount -o "$T/t.csv"
[ "$(wc -l <"$T/t.csv")" -eq 67 ] || fail "tableof -o"

# the old views still work with options after the view's name
ok veles show "$P" table -n 2
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "table -n"
ok veles show summary "$P" --format json

fails 2 veles show "$P" bars -a average
fails 2 veles show "$P" bars --stacked --grouped
has "$T/err" "--stacked and --grouped exclude each other"
fails 2 veles show "$P" scatter -n 5
has "$T/err" "--limit is for tables"
# tableof -n: the first N rows, after sorting.
ok veles show "$P" tableof models -n 2 --format csv
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "tableof -n 2: $(cat "$T/out")"
ok veles show "$P" tableof -n 1 --sort-by amount --desc --format csv -h amount
printf 'amount\n1012\n' | diff - "$T/out" >&2 || fail "tableof -n 1 sorted"
fails 2 veles show "$P" bars -o "$T/x.png"
fails 2 veles show "$P" bars --format csv
fails 2 veles show "$P" tableof --format yaml
fails 2 veles show "$P" tableof --filter-by uid
fails 2 veles show "$P" bars extra
fails 1 veles show "$P" bars --per nokey
fails 1 veles show "$P" flow --per uid
fails 1 veles show "$P" tableof --sort-by nokey -h uid
fails 1 veles show "$P" tableof models -h nocolumn
true
