// The history page in headless Chromium (t-serve_history.sh prepares the
// project): `server` against veles serve, `static` against its export.
import { check, openProfile, watchServedPage } from './browser.mjs';

const { SURL, STOKEN, SLOW, BEFORE } = process.env;
const mode = process.argv[2];
const errors = [];

const browser = await openProfile();
try {
  const { page } = browser;
  page.setDefaultTimeout(30000);
  // A file server has no favicon: failed loads are judged by their address.
  watchServedPage(page, errors, { allow: (t) => t.startsWith('Failed to load resource') });
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
  });

  if (mode === 'server') {
    await page.goto(`${SURL}?token=${STOKEN}`);
    await page.goto(`${SURL}p/`);
  } else {
    await page.goto(`${SURL}index.html`);
  }
  await page.waitForFunction(() => {
    const c = document.querySelector('.history-chart');
    return c && c.velesChart && document.querySelectorAll('.history-versions tbody tr').length > 0;
  });
  // The user-time series of the profiles' configuration.
  const user = await page.$eval('#history-series', (s) =>
    [...s.options].find((o) => o.textContent.includes('[user]')).value);
  await page.selectOption('#history-series', user);
  await page.waitForFunction((u) => {
    const c = document.querySelector('.history-chart');
    return c.velesChart.data && String(c.velesChart.data.id) === u;
  }, user);
  // The slowdown: the change point with the biggest step up.
  const found = await page.evaluate(() => {
    const ch = document.querySelector('.history-chart').velesChart;
    const pts = ch.data.history.points;
    let best = -1;
    for (const i of ch.changeIdx) if (best < 0 || pts[i].shift > pts[best].shift) best = i;
    return best < 0 ? null : { i: best, id: ch.data.versions[best].id, shift: pts[best].shift };
  });
  check(found && found.id === SLOW && found.shift > 0.2, `the slowdown is a change point on the chart (${found && found.shift})`);
  check(await page.$eval('.history-changes', (e, s) => e.textContent.includes(s), SLOW.slice(0, 7)), 'the change points listed below name it');
  // Hover shows its commit.
  const pos = await page.evaluate((i) => document.querySelector('.history-chart').velesChart.pointPos(i), found.i);
  await page.mouse.move(pos.x, pos.y);
  await page.waitForFunction((id) => {
    const t = document.querySelector('.history-tip');
    return t && !t.hidden && t.dataset.version === id;
  }, SLOW);
  const tip = await page.$eval('.history-tip', (t) => t.textContent);
  check(tip.includes(SLOW.slice(0, 7)) && tip.includes('version 8: <b>tweak</b>'), `hover shows its commit as text: ${tip}`);
  check(/change point: \+\d/.test(tip), 'and the step');
  // The versions list: the slowdown's verdict, coloured.
  const row = await page.$eval(`tr[data-version="${SLOW}"]`, (r) => ({ text: r.textContent, bad: !!r.querySelector('.verdict-bad') }));
  check(/Degradation \+\d/.test(row.text) && row.bad, `its verdict in the list: ${row.text}`);
  // Shift+click two points: their diff.
  const before = await page.evaluate((i) => document.querySelector('.history-chart').velesChart.pointPos(i - 1), found.i);
  await page.mouse.move(before.x, before.y);
  await page.keyboard.down('Shift');
  await page.mouse.click(before.x, before.y);
  await page.mouse.move(pos.x, pos.y);
  await page.mouse.click(pos.x, pos.y);
  await page.keyboard.up('Shift');
  const diffUrl = mode === 'server' ? `/p/diff?a=${BEFORE}&b=${SLOW}` : `#/p/diff?a=${BEFORE}&b=${SLOW}`;
  await page.waitForFunction((u) => (location.pathname + location.search + location.hash).endsWith(u), diffUrl);
  check(true, 'Shift+click two points opens their diff');
  await page.goBack();
  await page.waitForFunction(() => {
    const c = document.querySelector('.history-chart');
    return c && c.velesChart && c.velesChart.data;
  });
  // A click opens its version page.
  await page.selectOption('#history-series', user);
  await page.waitForFunction((u) => String(document.querySelector('.history-chart').velesChart.data.id) === u, user);
  const again = await page.evaluate((i) => document.querySelector('.history-chart').velesChart.pointPos(i), found.i);
  await page.mouse.move(again.x, again.y);
  await page.mouse.click(again.x, again.y);
  const verUrl = mode === 'server' ? `/p/v/${SLOW}` : `#/p/v/${SLOW}`;
  await page.waitForFunction((u) => (location.pathname + location.hash).endsWith(u), verUrl);
  check(true, 'a click opens its version page');
  // Its page, its diff with the parent and a profile's views: live, and
  // in the export too (the files the page reads are there).
  await page.waitForSelector(`section.version[data-version="${SLOW}"]`);
  await page.click('text=Diff with the parent');
  await page.waitForSelector('.diff-body section.pair');
  check(await page.$eval('.diff-body', (e) => /→/.test(e.textContent)), 'the diff with the parent shows its pairs');
  await page.goBack();
  await page.waitForSelector(`section.version[data-version="${SLOW}"] tr[data-profile] a`);
  await page.click(`section.version[data-version="${SLOW}"] tr[data-profile] a`);
  await page.waitForSelector('section.profile iframe.view-frame');
  const frame = await (await page.$('section.profile iframe.view-frame')).contentFrame();
  await frame.waitForSelector('svg, table, canvas', { timeout: 15000 });
  check(true, 'a profile page draws its first view in its frame');
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} finally {
  await browser.close();
}
