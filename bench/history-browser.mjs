// bench/history.sh's browser side (headless Chromium, playwright-core):
// opens the history page RUNS times, each in a fresh context, and prints
// the median ms from navigation to the chart drawn and the versions list
// filled.   usage: node history-browser.mjs URL RUNS
import { createRequire } from 'node:module';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, '..', 'web', 'package.json'));
const { chromium } = require('playwright-core');
const [url, runs] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const times = [];
for (let i = 0; i < Number(runs || 5); i++) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => {
    const c = document.querySelector('.history-chart');
    return c && c.velesChart && document.querySelectorAll('.history-versions tbody tr').length > 0;
  }, null, { timeout: 60000, polling: 'raf' });
  times.push(Date.now() - t0);
  await ctx.close();
}
await browser.close();
times.sort((a, b) => a - b);
console.log(times[Math.floor((times.length - 1) / 2)]);
