// bench/serve.sh's browser side (headless Chromium, playwright-core).
//   live URL TOKEN SESSION RUN PAGES SECONDS: PAGES pages follow the run
//     live for SECONDS; prints the delays from each row's time to its
//     arrival in a page (ms) as JSON, the first 2 s of each page left out
//     (catching up is not latency).
//   draw URL TOKEN RUN: the run's plot page, time until its million-point
//     series is drawn from the server's summary; and the same points given
//     to uPlot whole, in the same page, for comparison.
import { createRequire } from 'node:module';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, '..', 'web', 'package.json'));
const { chromium } = require('playwright-core');
const [mode, url, token, ...rest] = process.argv.slice(2);
// One browser process (launch gives it a fresh profile of its own), a
// context per page: each context its own cookies and connections, as
// separate browsers have (one profile opens at most 6 connections to a
// host, and each live page holds one).
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
async function newPage() {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const p = await ctx.newPage();
  await p.goto(`${url}?token=${token}`);
  return p;
}
const first = await newPage();

if (mode === 'live') {
  const [session, run, pages, seconds] = rest;
  const ps = [first];
  for (let i = 1; i < Number(pages); i++) ps.push(await newPage());
  await Promise.all(ps.map((p) => p.goto(`${url}s/${session}/r/${run}`)));
  await Promise.all(ps.map((p) => p.waitForFunction(() => window.velesApp.view && window.velesApp.view.rowsSeen > 0, null, { timeout: 60000 })));
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, Number(seconds) * 1000));
  const all = [];
  for (const p of ps) {
    const d = await p.evaluate((t) => {
      const v = window.velesApp.view;
      return v.latency.filter((_, i) => i >= v.latency.length - 100000).slice(0);
    }, t0);
    // rows of the last SECONDS - 2 seconds only
    const keep = Math.floor((Number(seconds) - 2) * 100);
    all.push(...d.slice(-keep));
  }
  console.log(JSON.stringify(all));
} else if (mode === 'draw') {
  const [run] = rest;
  const p = first;
  const t = Date.now();
  await p.goto(`${url}plot/${run}`);
  await p.waitForFunction(() => window.velesApp.view && window.velesApp.view.points > 0, null, { timeout: 60000 });
  const summary = Date.now() - t;
  const info = await p.evaluate(async (id) => {
    const v = window.velesApp.view;
    const pts = v.points;
    // The summary fetched and drawn again, in the page.
    const ta = performance.now();
    const a = await fetch(`/api/runs/${id}/series?points=1400`).then((r) => r.json());
    v.plot.setData(a.t, a.v);
    await new Promise((r) => requestAnimationFrame(() => r()));
    const again = performance.now() - ta;
    // Zoomed into 0.1% of the run: exact rows.
    const s = await fetch(`/api/runs/${id}/series?from=100&to=101&points=1400`).then((r) => r.json());
    // The same million points given to uPlot whole.
    const n = s.total_rows, x = new Float64Array(n), y = new Float64Array(n);
    for (let i = 0; i < n; i++) { x[i] = i / 1000; y[i] = Math.sin(i / 5000) * 1000 + (i % 97); }
    const t0 = performance.now();
    v.plot.setColumns(['whole'], ['']);
    v.plot.setData(Array.from(x), [Array.from(y)]);
    await new Promise((r) => requestAnimationFrame(() => r()));
    return { pts, again, zoomExact: s.exact, zoomRows: s.rows, whole: performance.now() - t0, rows: n };
  }, run);
  console.log(JSON.stringify({ summary_ms: summary, ...info }));
}
await browser.close();
