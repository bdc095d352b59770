// The project's pages of veles serve in headless Chromium (t-serve-pages.sh
// starts the server on a project of two versions): open the commit's page
// and read check's coloured verdict, open a profile and see its views drawn
// in their frames, open the diff of the two versions and see the table and
// the differential flame graph. Fails on any console or page error.
import { check, finish, launch, watchServedPage } from './browser.mjs';

const { SURL, STOKEN, HEAD, PARENT, READ_ONLY } = process.env;
const errors = [];
let allow404 = false;

const browser = await launch(['--disable-gpu']);
const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
page.setDefaultTimeout(30000);
watchServedPage(page, errors, { allow: (t) => allow404 && /status of 404/.test(t), dialogs: 'none' });

try {
  // The commit's page (the token goes to a cookie on the first address).
  await page.goto(`${SURL}p/v/${HEAD}?token=${STOKEN}`);
  await page.waitForSelector('section.version');
  const title = await page.textContent('section.version h2');
  check(title.includes(HEAD.slice(0, 7)) && title.includes('a slower version'), 'the version page names the commit');
  check(await page.isVisible(`section.version a[href="/p/v/${PARENT}"]`), 'its parent is a link');
  check(await page.$$eval('table.profiles tbody tr', (r) => r.length) === 2, 'both profiles listed');
  const deg = await page.$$eval('table.changes .verdict', (v) => v.map((e) => [e.textContent, e.className]));
  check(deg.some(([t, c]) => /Degradation$/.test(t) && /\bdegradation\b/.test(c)), `a coloured degradation (${JSON.stringify(deg)})`);
  const change = await page.$$eval('table.changes tbody tr', (rows) => rows.map((r) => r.children[2].textContent));
  check(change.some((t) => /^\+3\d\.\d%$/.test(t)), `its change +3x% (${change})`);
  const rowText = await page.locator('table.changes tbody tr', { hasText: 'Degradation' }).textContent();
  check(/\[\+\d+\.\d%, \+\d+\.\d%\]/.test(rowText), `with its interval (${rowText})`);
  check(await page.$$eval('.actions', (a) => a.length) === 0 || READ_ONLY === '0', 'read-only: no actions');

  // A profile: open the memory one from the list, see its views.
  const memRow = page.locator('table.profiles tbody tr', { hasText: 'memory' });
  await memRow.locator('a').first().click();
  await page.waitForSelector('section.profile .view-tabs');
  const tabs = await page.$$eval('.view-tabs button', (b) => b.map((x) => x.dataset.view));
  check(['bars', 'flamegraph', 'memory', 'heapmap'].every((v) => tabs.includes(v)), `memory profile views: ${tabs}`);
  await page.click('.view-tabs button[data-view="flamegraph"]');
  await page.waitForSelector('iframe.view-frame');
  const flame = page.frameLocator('iframe.view-frame');
  await flame.locator('svg.veles-flame').waitFor();
  const frames = await flame.locator('svg.veles-flame g.frame, svg.veles-flame rect').count();
  check(frames > 3, `the flame graph drawn in its frame (${frames} boxes)`);
  await page.click('.view-tabs button[data-view="memory"]');
  await page.waitForSelector('.memory-view');
  check((await page.textContent('.memory-view')).includes('Top sites by allocations'), 'the memory report');
  await page.click('.view-tabs button[data-view="heapmap"]');
  await page.waitForSelector('.heapmap canvas');
  check(true, 'the heap map');
  await page.click('.view-tabs button[data-view="bars"]');
  await page.frameLocator('iframe.view-frame').locator('.uplot canvas').first().waitFor();
  check(true, 'the bars drawn by the chart library in their frame');

  // The time profile's page, from the version's page.
  // Back: the page's own history (each view was an address of its own).
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('.view-tabs button.current')?.dataset.view === 'heapmap');
  check(true, 'back returns to the previous view');
  await page.goto(`${SURL}p/v/${HEAD}`);
  await page.waitForSelector('section.version');
  await page.locator('table.profiles tbody tr', { hasText: 'time' }).locator('a').first().click();
  await page.waitForSelector('.view-tabs button[data-view="bars"]');
  check(!(await page.$('.view-tabs button[data-view="flamegraph"]')), 'no flame graph without call stacks');

  // The diff of the two versions.
  await page.goto(`${SURL}p/v/${HEAD}`);
  await page.click('text=Diff with the parent');
  await page.waitForSelector('table.diff-table');
  const pairs = await page.$$eval('section.pair', (s) => s.map((x) => x.dataset.config));
  check(pairs.length === 2, `two configurations paired (${pairs})`);
  const timeRows = await page.locator('section.pair', { hasText: './prog' }).locator('table.diff-table tbody tr').allTextContents();
  check(timeRows.some((t) => t.includes('./prog [real]') && /\+3\d\.\d%/.test(t)), `the diff table (${timeRows[0]})`);
  const dflame = page.frameLocator('iframe.flame-diff');
  await dflame.locator('svg.veles-flame').waitFor();
  check(await dflame.locator('svg.veles-flame').count() === 1, 'the differential flame graph');
  const ttl = await dflame.locator('svg.veles-flame text').first().textContent();
  check(ttl.includes('->'), `titled baseline -> target (${ttl})`);

  // Errors are said on the page (the browser logs the 404 it asked for).
  allow404 = true;
  await page.goto(`${SURL}p/profile/0123456789abcdef`);
  await page.waitForSelector('.msg');
  check((await page.textContent('.msg')).includes('no profile'), 'an unknown profile is said so');
} catch (e) {
  errors.push(String(e));
}
await browser.close();
finish(errors);
