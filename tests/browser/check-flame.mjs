// The flame graphs t-flamegraph.sh wrote, in headless Chromium: a click on
// a frame zooms into it (and back and reset undo it), the search box
// highlights matches and prints their share, the tooltip gives the value in
// the profile's unit with its shares, a differential graph is red where a
// frame grew and blue where it shrank, and a frame named
// "<script>alert(1)</script>" is shown as text and never runs. Any console
// error, page error, dialog or request that leaves the file fails it.
// usage: node check-flame.mjs DIR
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, watchFilePage } from './browser.mjs';

const dir = process.argv[2];
const browser = await launch();
let failed = 0;

const frameInfo = (page) => page.$$eval('svg.veles-flame g.f', (gs) => gs.map((g, i) => ({
  i,
  name: g.velesFrame.name,
  shown: g.getAttribute('display') !== 'none',
  width: +g.querySelector('rect').getAttribute('width'),
  fill: g.querySelector('rect').getAttribute('fill'),
  hit: g.classList.contains('fg-hit'),
  label: g.querySelector('text') ? g.querySelector('text').textContent : '',
})));

// The i-th frame's rectangle on the screen, for the mouse.
async function rectOf(page, i) {
  const rect = (await page.$$('svg.veles-flame g.f > rect'))[i];
  await page.$eval('svg.veles-flame', (s) => s.scrollIntoView()); // a report's is far down
  return rect.boundingBox();
}

async function hover(page, i) {
  const b = await rectOf(page, i);
  await page.mouse.move(b.x + Math.min(b.width / 2, 20), b.y + b.height / 2);
  return page.$$eval('svg.veles-flame .fg-tip', (t) => !t.length ||
    t[0].getAttribute('display') === 'none' ? null : Array.from(t[0].querySelectorAll('tspan'), (s) => s.textContent));
}

async function check(file, expect) {
  const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
  const errors = [];
  page.setDefaultTimeout(10000);
  try {
    await steps(page, file, expect, errors);
  } catch (e) {
    errors.push(String(e).split('\n')[0]);
  }
  await page.close();
  if (errors.length) {
    failed++;
    console.log(`FAIL ${file}: ${errors.join('; ')}`);
  } else {
    console.log(`ok ${file}: zoom, search, tooltip${expect.diff ? ', colours' : ''}${expect.evil ? ', escaping' : ''}`);
  }
}

async function steps(page, file, expect, errors) {
  watchFilePage(page, errors);
  await page.goto(pathToFileURL(path.join(dir, file)).href, { waitUntil: 'load' });
  const ready = await page.evaluate(() => (window.velesFlames || []).length);
  if (ready !== 1) errors.push(`${ready} interactive flame graphs`);
  let fr = await frameInfo(page);
  const inner = await page.$eval('svg.veles-flame', (s) => +s.getAttribute('data-inner'));
  const find = (name) => fr.findIndex((f) => f.name === name);

  // Hover: the name, the value in the unit, the shares.
  const tip = await hover(page, find(expect.hover));
  if (!tip) errors.push('no tooltip on hover');
  else {
    if (tip[0] !== expect.hover) errors.push(`tooltip names ${tip[0]}`);
    for (const want of expect.tip)
      if (!tip.some((l) => l.includes(want))) errors.push(`tooltip lacks "${want}": ${tip.join(' | ')}`);
  }

  // Zoom: the frame spans the width, its subtree grows, the rest hides.
  const z = find(expect.zoom), before = fr[z].width;
  if (!(before < inner * 0.9)) errors.push(`${expect.zoom} already ${before} wide`);
  const zb = await rectOf(page, z);
  await page.mouse.click(zb.x + Math.min(zb.width / 2, 10), zb.y + zb.height / 2);
  fr = await frameInfo(page);
  if (Math.abs(fr[z].width - inner) > 0.5) errors.push(`zoomed ${expect.zoom} is ${fr[z].width} wide, not ${inner}`);
  const other = find(expect.hidden);
  if (fr[other].shown) errors.push(`${expect.hidden} still shown when zoomed into ${expect.zoom}`);
  const back = await page.$('svg.veles-flame text.fg-btn');
  if (!(await back.isVisible())) errors.push('no back button when zoomed');
  else await back.click();
  fr = await frameInfo(page);
  if (Math.abs(fr[z].width - before) > 0.01 || !fr[other].shown) errors.push('back did not zoom out');
  await page.mouse.click(zb.x + Math.min(zb.width / 2, 10), zb.y + zb.height / 2);
  // Zoomed, the search also gives the share of the zoomed frame; a match
  // among its callers holds all of it.
  const input = await page.$('svg.veles-flame input.fg-search');
  const matched = () => page.$eval('svg.veles-flame text.fg-matched', (t) => t.textContent);
  await input.fill(expect.search);
  let m = await matched();
  if (!m.includes(expect.zoomShare)) errors.push(`zoomed search printed "${m}", not "${expect.zoomShare}"`);
  await input.fill('/^main$/');
  m = await matched();
  if (!m.includes(`100.0% of ${expect.zoom}`)) errors.push(`zoomed search for a caller printed "${m}"`);
  await input.fill('');
  await page.keyboard.press('Escape');
  fr = await frameInfo(page);
  if (Math.abs(fr[z].width - before) > 0.01) errors.push('Escape did not reset the zoom');

  // Search: a substring, then a regular expression, then nothing.
  await input.fill(expect.search);
  m = await matched();
  for (const want of expect.matched)
    if (!m.includes(want)) errors.push(`search "${expect.search}" printed "${m}", not "${want}"`);
  fr = await frameInfo(page);
  const hits = fr.filter((f) => f.hit).map((f) => f.name);
  if (!hits.length || hits.some((n) => !n.toLowerCase().includes(expect.search.toLowerCase())))
    errors.push(`search highlighted ${hits}`);
  await input.fill('/^ma[i]n$/');
  m = await matched();
  if (!m.includes('matched 1 frame:') || !m.includes('100.0% of all')) errors.push(`regex search printed "${m}"`);
  await input.fill('/(/');
  if (!(await matched()).includes('not a regular expression')) errors.push('a bad regex was not reported');
  await input.fill('');
  fr = await frameInfo(page);
  if (fr.some((f) => f.hit) || await matched()) errors.push('an empty search left highlights');

  if (expect.diff) {
    for (const [name, colour] of expect.diff) {
      const f = fr[find(name)];
      const red = /^#ff/.test(f.fill), blue = /ff$/.test(f.fill) && !red;
      if ((colour === 'red' && !red) || (colour === 'blue' && !blue))
        errors.push(`${name} is ${f.fill}, not ${colour}`);
    }
  }
  if (expect.evil) {
    // Searching finds the frame by its name as text; its label shows it.
    await input.fill('alert(1)');
    fr = await frameInfo(page);
    const evil = fr.find((f) => f.name === '<script>alert(1)</script>');
    if (!evil || !evil.hit) errors.push('the frame named as a script is missing or not found');
    else if (!evil.label.startsWith('<script>')) errors.push(`its label is "${evil.label}"`);
    const t = await hover(page, evil.i);
    if (!t || t[0] !== '<script>alert(1)</script>') errors.push(`its tooltip is ${t}`);
    const injected = await page.evaluate(() =>
      Array.from(document.querySelectorAll('script')).some((s) => s.textContent.includes('alert(1)')));
    if (injected) errors.push('the frame name became a script element');
  }
  if (expect.insert) {
    // A page that inserts an SVG through innerHTML (whose script never
    // runs) makes it interactive with velesFlameInit.
    const svgText = fs.readFileSync(path.join(dir, expect.insert), 'utf8');
    const got = await page.evaluate((text) => {
      const div = document.createElement('div');
      div.innerHTML = text;
      document.body.appendChild(div);
      const copy = div.querySelector('svg.veles-flame');
      const before = !!copy.querySelector('input.fg-search');
      const api = window.velesFlameInit(copy);
      api.zoom(5);
      const rect = copy.querySelectorAll('g.f')[5].querySelector('rect');
      return [before, !!copy.querySelector('input.fg-search'), window.velesFlames.length,
        +rect.getAttribute('width'), window.velesFlameInit(copy) === api];
    }, svgText);
    if (got[0] || !got[1] || got[2] !== 2 || Math.abs(got[3] - inner) > 0.5 || !got[4])
      errors.push(`velesFlameInit on an inserted SVG: ${got}`);
  }
}

const mem = {
  hover: 'cache_put', tip: ['total: 1.2 MiB', 'of all', '% of render'],
  zoom: 'render', hidden: 'parse',
  search: 'cache', matched: ['matched 1 frame: 1.2 MiB', '% of all'], evil: true,
  zoomShare: '89.3% of render',
};
await check('mem.html', { ...mem, insert: 'mem.svg' });
await check('mem.svg', mem);
await check('time.html', {
  hover: 'parse', tip: ['total: 80.35 ms', '67.0% of all', '67.0% of main'],
  zoom: 'render', hidden: 'parse',
  search: 'PARSE', matched: ['matched 1 frame: 80.35 ms, 67.0% of all'],
  zoomShare: 'matched 1 frame: 80.35 ms, 67.0% of all, 0% of render',
});
const diff = {
  hover: 'render', tip: ['baseline: 2.861 MiB', 'target: 1.343 MiB', 'change: -1.518 MiB (-53.1%)'],
  zoom: 'render', hidden: 'parse', search: 'cache', matched: ['matched 1 frame: 1.2 MiB'],
  zoomShare: '89.3% of render',
  diff: [['render', 'blue'], ['parse', 'red'], ['cache_put', 'red'], ['main', 'blue']], evil: true,
};
await check('diff.svg', diff);
await check('diff.html', diff);
await check('report.html', diff);
await browser.close();
process.exit(failed ? 1 : 0);
