// Opens each HTML view in headless Chromium and fails on any console error
// or page error, or when a chart is missing or has no size. Also hovers and
// zooms the first chart, so the glue's event handlers run too.
// usage: node check-html.mjs FILE.html...
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, watchFilePage } from './browser.mjs';

const browser = await launch();
let failed = 0;

function report(file, errors, what) {
  if (errors.length) {
    failed++;
    console.log(`FAIL ${path.basename(file)}: ${errors.join('; ')}`);
  } else {
    console.log(`ok ${path.basename(file)}: ${what}`);
  }
}

// tableof pages: rows shown, a click on a numeric header sorts by it (twice
// reverses), and typing in the filter hides the rows that do not match.
async function checkTable(page, errors) {
  const column = (c) => page.$$eval('table.veles-table tbody tr', (rows, c) =>
    rows.filter((r) => r.style.display !== 'none').map((r) => r.cells[c].textContent), c);
  const heads = await page.$$eval('table.veles-table th', (h) => h.map((e) => e.textContent));
  if (!(await column(0)).length) errors.push('no rows');
  const c = await page.$$eval('table.veles-table tbody tr:first-child td',
    (tds) => tds.findIndex((d) => d.dataset.num !== undefined));
  if (c < 0) { errors.push('no numeric column'); return; }
  const th = (await page.$$('table.veles-table th'))[c];
  await th.click();
  const up = (await column(c)).map(Number);
  if (up.some((v, i) => i && v < up[i - 1])) errors.push(`${heads[c]} not sorted up: ${up}`);
  await th.click();
  const down = (await column(c)).map(Number);
  if (down.some((v, i) => i && v > down[i - 1])) errors.push(`${heads[c]} not sorted down: ${down}`);
  const first = (await column(0))[0];
  await page.fill('#filter', first);
  const left = await column(0);
  if (!left.length || left.some((t) => !t.includes(first))) errors.push('filter did not filter');
  await page.fill('#filter', 'no row holds this text');
  if ((await column(0)).length) errors.push('filter kept rows that do not match');
}
// diff reports: every sortable table sorts on a numeric column (up, then
// down), its filter hides what does not match, and the flame graph is drawn.
async function checkReport(page, errors) {
  const ids = await page.$$eval('table.sortable', (ts) => ts.map((t) => t.id));
  if (ids.length !== 3) errors.push(`${ids.length} sortable tables`);
  for (const id of ids) {
    const column = (c) => page.$$eval(`#${id} tbody tr`, (rows, c) =>
      rows.filter((r) => r.style.display !== 'none').map((r) => r.cells[c].dataset.num), c);
    // A click sorts one way (descending, or ascending when it was so
    // already), the next the other way.
    const th = (await page.$$(`#${id} th`))[1];
    const sorted = (v, d) => v.every((x, i) => !i || (x - v[i - 1]) * d >= 0);
    await th.click();
    const once = (await column(1)).map(Number).filter((v) => !Number.isNaN(v));
    if (!once.length) errors.push(`${id}: no rows`);
    const d = sorted(once, -1) ? -1 : 1;
    if (!sorted(once, d)) errors.push(`${id} not sorted: ${once}`);
    await th.click();
    const twice = (await column(1)).map(Number).filter((v) => !Number.isNaN(v));
    if (!sorted(twice, -d) || (once.length > 1 && once[0] !== once[once.length - 1] &&
        twice[0] === once[0])) errors.push(`${id} not sorted the other way: ${twice}`);
    const names = await page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => r.cells[0].textContent));
    await page.fill(`input[data-table="${id}"]`, names[0]);
    const left = await page.$$eval(`#${id} tbody tr`, (rows) =>
      rows.filter((r) => r.style.display !== 'none').map((r) => r.cells[0].textContent));
    if (!left.length || left.some((t) => !t.toLowerCase().includes(names[0].toLowerCase())))
      errors.push(`${id}: filter did not filter`);
  }
  const svg = await page.$('.flame svg');
  const box = svg && await svg.boundingBox();
  if (!box || !(box.width > 0 && box.height > 0)) errors.push('no flame graph');
}
for (const file of process.argv.slice(2)) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const errors = [];
  watchFilePage(page, errors);
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  if (await page.$('table.sortable')) {
    await checkReport(page, errors);
    await page.close();
    report(file, errors, 'report');
    continue;
  }
  if (await page.$('table.veles-table')) {
    await checkTable(page, errors);
    await page.close();
    report(file, errors, 'table');
    continue;
  }
  const sizes = await page.$$eval('.chart canvas', (cs) =>
    cs.map((c) => [c.getBoundingClientRect().width, c.getBoundingClientRect().height]));
  if (!sizes.length) errors.push('no chart');
  for (const [w, h] of sizes) if (!(w > 0 && h > 0)) errors.push(`chart of size ${w}x${h}`);
  const over = await page.$('.u-over');
  if (over) {
    const box = await over.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const legend = await page.$$eval('.u-legend .u-value', (v) => v.map((e) => e.textContent));
    if (!legend.some((t) => t && t !== '-' && t !== '--')) errors.push('no value on hover');
    const scale = () => page.evaluate(() => {
      const x = window.velesCharts[0].scales.x;
      return [x.min, x.max];
    });
    const [min0, max0] = await scale();
    await page.mouse.wheel(0, -200); // zoom in around the cursor
    await page.waitForTimeout(50);
    const [min1, max1] = await scale();
    if (!(max1 - min1 < max0 - min0)) errors.push(`wheel did not zoom: ${min0}..${max0} -> ${min1}..${max1}`);
    await page.keyboard.down('Shift'); // Shift+drag pans: same span, moved
    await page.mouse.move(box.x + box.width / 2, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 4, box.y + 20, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const [min2, max2] = await scale();
    if (!(min2 > min1 && Math.abs((max2 - min2) - (max1 - min1)) < 1e-6 * (max1 - min1 + 1)))
      errors.push(`shift+drag did not pan: ${min1}..${max1} -> ${min2}..${max2}`);
    await page.mouse.move(box.x + box.width / 3, box.y + 20); // drag selects a zoom
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + 20, { steps: 4 });
    await page.mouse.up();
    const [min3, max3] = await scale();
    if (!(max3 - min3 < max2 - min2)) errors.push('drag did not zoom');
  }
  await page.close();
  report(file, errors, `${sizes.length} chart(s)`);
}
await browser.close();
process.exit(failed ? 1 : 0);
