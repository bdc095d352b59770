// The history chart of `veles log --perf KEY -o FILE.html` in headless
// Chromium: no console or page error, nothing fetched, a chart per series;
// hovering the change point shows its commit, subject, values and shift in
// the tooltip; the wheel zooms.
// usage: node check-history.mjs FILE.html COMMIT-LABEL
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, watchFilePage } from './browser.mjs';

const [file, label] = process.argv.slice(2);
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
const errors = [];
watchFilePage(page, errors);
await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
const charts = await page.$$('.chart.history');
if (charts.length !== 2) errors.push(`${charts.length} charts, not 2`);
// The point of the change: its x is its index among the series' points.
const at = await page.evaluate((label) => {
  const H = VELES_HISTORY, u = window.velesCharts[0];
  const ids = new Map(H.versions.map((v) => [v.id, v.label]));
  const i = H.series[0].points.findIndex((p) => ids.get(p.version) === label);
  const r = u.over.getBoundingClientRect();
  return { i, x: r.left + u.valToPos(i, 'x'), y: r.top + u.valToPos(H.series[0].points[i].median, 'y') };
}, label);
if (at.i < 0) errors.push(`no point of ${label}`);
await page.mouse.move(at.x, at.y);
await page.waitForTimeout(50);
const tip = await page.$eval('.history-tip', (t) => ({ shown: t.style.display !== 'none', text: t.innerText }));
if (!tip.shown) errors.push('no tooltip on hover');
for (const want of [label, 'version 7: <b>tweak</b>', 'median 0.01', 'change point: shift +3'])
  if (!tip.text.includes(want)) errors.push(`tooltip lacks "${want}": ${tip.text}`);
const scale = () => page.evaluate(() => [window.velesCharts[0].scales.x.min, window.velesCharts[0].scales.x.max]);
const [a0, b0] = await scale();
await page.mouse.wheel(0, -200);
await page.waitForTimeout(50);
const [a1, b1] = await scale();
if (!(b1 - a1 < b0 - a0)) errors.push(`wheel did not zoom: ${a0}..${b0} -> ${a1}..${b1}`);
await browser.close();
if (errors.length) {
  console.log(`FAIL ${path.basename(file)}: ${errors.join('; ')}`);
  process.exit(1);
}
console.log(`ok ${path.basename(file)}: tooltip "${tip.text.split('\n')[0]}"`);
