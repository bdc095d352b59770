// veles serve in headless Chromium (t-serve.sh starts the servers): each
// step drives the page as a user would and checks what the page shows and
// what the server keeps. Fails on any console error, page error or
// unexpected dialog (an alert would be injected script).
import fs from 'node:fs';
import path from 'node:path';
import { check, openProfile, watchServedPage } from './browser.mjs';

const { SURL, STOKEN, SURL2, STOKEN2, HOT, MARKUP, DATA, DL } = process.env;
const errors = [];
const TIMEOUT = 60000;

/* A browser of its own (a fresh profile) that downloads; a confirm is
 * accepted, as a user deleting would. */
async function browser(allow) {
  const b = await openProfile({ acceptDownloads: true, args: ['--disable-quic'] });
  const { page } = b;
  page.setDefaultTimeout(TIMEOUT);
  watchServedPage(page, errors, { allow: (t) => !!(allow && allow.test(t)), dialogs: 'confirm' });
  page.requests = [];
  page.on('request', (r) => page.requests.push(`${r.method()} ${r.url()}`));
  page.on('requestfinished', (r) => page.requests.push(`done ${r.url()}`));
  return b;
}

async function visible(page) {
  return page.$$eval('#events label.event', (ls) => ls.filter((l) => l.style.display !== 'none').map((l) => l.dataset.name));
}

/* The run a click on Run queued: the page's address names it (once it
 * names another than before). */
async function runIdOf(page, before) {
  await page.waitForURL((u) => /\/s\/[0-9a-f-]{36}\/r\/[0-9a-f-]{36}$/.test(u.pathname) && u.href !== before);
  return page.url().split('/').pop();
}

async function clickRun(page) {
  const before = page.url();
  await page.click('#run');
  return runIdOf(page, before);
}

async function apiRun(page, id) {
  return page.evaluate((i) => fetch(`/api/runs/${i}`).then((r) => r.json()), id);
}

async function waitDone(page) {
  await page.waitForFunction(() => /· (done|failed|canceled)/.test(document.getElementById('run-status').textContent));
}

/* Until the run is over, asked of the server (the page may show another).
 * Polled from here: waitForFunction takes a promise the predicate returns
 * as a true value at once, and would not wait at all. */
async function waitOver(page, id) {
  for (let i = 0; i < 600; i++) {
    if (['done', 'failed', 'canceled'].includes((await apiRun(page, id)).state)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`run ${id} was not over after 120 s`);
}

/* The plot's x range: [min, max]. */
async function xRange(page) {
  return page.evaluate(() => [velesApp.view.plot.u.scales.x.min, velesApp.view.plot.u.scales.x.max]);
}

async function save(page, selector, name) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  await dl.saveAs(path.join(DL, name));
}

const A = await browser();
const page = A.page;
try {
  // Sessions: create one; its title is text, however it reads.
  const title = 'loops <script>alert(1)</script>';
  await page.goto(`${SURL}?token=${STOKEN}`);
  await page.fill('#session-title', title);
  await page.click('#session-create');
  await page.waitForURL(/\/s\/[0-9a-f-]{36}$/);
  const sid = page.url().split('/').pop();
  await page.waitForSelector('#events label.event');
  check(await page.textContent('#session-name') === title, 'a session is created, its title shown as text');

  // The events list: found by words of the description.
  await page.fill('#event-search', 'time the task ran');
  check((await visible(page)).includes('task-clock'), 'task-clock found by its description');
  await page.check('#events label[data-name="task-clock"] input');
  await page.fill('#event-search', 'served without I/O');
  check(JSON.stringify(await visible(page)) === '["minor-faults"]', 'minor-faults found by its description alone');
  await page.check('#events label[data-name="minor-faults"] input');

  // A streaming stat: points arrive while the program still runs.
  await page.fill('#interval', '50');
  await page.fill('#command', "for i in $(seq 40); do head -c 200000 /dev/urandom | od >/dev/null; sleep 0.05; done; echo \"<script>alert(1)</script> $COUNT\"");
  await page.fill('#env', 'COUNT=7');
  const statId = await clickRun(page);
  await page.waitForFunction(() => velesApp.view.points >= 3);
  check((await apiRun(page, statId)).state === 'running', 'points plotted before the program ended');
  check(await page.evaluate(() => velesApp.view.plot.u.series.map((x) => x.label).join()) === 'time (s),task-clock (msec),minor-faults',
    'the live plot labels its lines with their units');
  // The tab goes to the background (its stream closed), comes back a
  // moment later: the stream resumes where it left.
  const hide = (h) => page.evaluate((v) => {
    Object.defineProperty(document, 'hidden', { value: v, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, h);
  const had = await page.evaluate(() => velesApp.view.rowsSeen);
  await hide(true);
  await page.waitForTimeout(300);
  await hide(false);
  await waitDone(page);
  const seen = await page.evaluate(() => [velesApp.view.rowsSeen, velesApp.view.follows - 1]);
  const rows = (await apiRun(page, statId)).rows;
  check(seen[1] >= 1 && seen[0] === rows && rows > had, `every row arrived once after ${seen[1]} reconnect(s) (${had} before, ${seen[0]} of ${rows})`);
  check((await page.textContent('#stdout')) === '<script>alert(1)</script> 7\n', "the program's output shown as text, once");
  check(await page.$$eval('script', (s) => s.length) === 1, 'no script element added');
  const statRows = (await apiRun(page, statId)).rows;

  // A record run (of the default event): the hot function in the table
  // and the flame graph.
  await page.fill('#event-search', '');
  await page.uncheck('#events label[data-name="task-clock"] input');
  await page.uncheck('#events label[data-name="minor-faults"] input');
  await page.check('input[name=tool][value=record]');
  await page.check('#callgraph');
  await page.fill('#freq', '2000');
  await page.fill('#command', `${HOT} 300000000`);
  await page.fill('#env', '');
  const recId = await clickRun(page);
  await page.waitForFunction(() => document.querySelector('#hot tr td.sym') && document.querySelector('#hot tr td.sym').textContent === 'hot_spin');
  check(true, 'record shows hot_spin as the hot function');
  await waitDone(page);
  await page.waitForFunction(() => [...document.querySelectorAll('#flame .fbox')].some((b) => b.textContent === 'hot_spin'));
  check(true, 'the flame graph has hot_spin');

  // A profile whose uid (its hot function's name) is markup: text in the
  // table and the flame graph, no script run (an alert fails the test).
  const SCRIPT = '<script>alert(1)</script>';
  await page.fill('#command', `${MARKUP} 200000000`);
  const uidId = await clickRun(page);
  await waitDone(page);
  await page.waitForFunction((s) => [...document.querySelectorAll('#flame .fbox')].some((b) => b.textContent === s), SCRIPT);
  check(await page.textContent('#hot tr td.sym') === SCRIPT, 'a hot function named <script>alert(1)</script> shown as text');
  check(await page.$$eval('script', (s) => s.length) === 1, 'no script element added by the uid');
  check((await apiRun(page, uidId)).state === 'done', 'the uid run is done');

  // Reloading an old run gives back the whole screen, in the same widgets.
  await page.goto(`${SURL}s/${sid}`);
  await page.waitForSelector(`#history tr[data-id="${statId}"] button.reload`);
  await page.click(`#history tr[data-id="${statId}"] button.reload`);
  await page.waitForFunction((n) => velesApp.view.run && velesApp.view.points > 0, statRows);
  const st = await page.evaluate(() => ({
    tool: document.querySelector('input[name=tool]:checked').value,
    command: document.getElementById('command').value, env: document.getElementById('env').value,
    interval: document.getElementById('interval').value, search: document.getElementById('event-search').value,
    checked: [...document.querySelectorAll('#events input:checked')].map((i) => i.value).sort(),
    url: location.pathname,
  }));
  check(st.tool === 'stat' && st.command.includes('/dev/urandom') && st.env === 'COUNT=7' && st.interval === '50' &&
    st.search === 'served without I/O' && JSON.stringify(st.checked) === '["minor-faults","task-clock"]' &&
    st.url === `/s/${sid}/r/${statId}`, `a stat run reloaded with its screen: ${JSON.stringify(st)}`);
  // Its output is the last thing to arrive: the page's layout is settled
  // once it is there (a click aims at where a button is).
  await page.waitForFunction(() => document.getElementById('stdout').textContent.includes('alert(1)'));
  check((await page.textContent(`#history tr[data-id="${statId}"] td.mono.cut`)).includes('echo "<script>alert(1)</script> $COUNT"'),
    "the run's command shown as text in the history");

  // The plot: hovering shows each event's value; the wheel zooms; a box
  // dragged zooms; Shift+drag pans; a double-click resets; Save PNG.
  const over = await page.$('#plot .u-over');
  const ob = await over.boundingBox();
  const mid = { x: ob.x + ob.width / 2, y: ob.y + ob.height / 2 };
  await page.mouse.move(mid.x, mid.y);
  await page.waitForFunction(() => { const t = document.querySelector('#plot .tip'); return !t.hidden && /^t = .*\ntask-clock \(msec\): .*\nminor-faults: /.test(t.textContent); });
  check(true, 'hovering the plot shows the time and each value');
  const full = await xRange(page);
  await page.mouse.wheel(0, -300);
  await page.waitForFunction(([a, b]) => { const x = velesApp.view.plot.u.scales.x; return x.max - x.min < (b - a) * 0.9 && x.min > a; }, full);
  check(true, 'the wheel zooms in around the cursor');
  await page.dblclick('#plot .u-over');
  await page.waitForFunction(([a, b]) => { const x = velesApp.view.plot.u.scales.x; return x.min === a && x.max === b; }, full);
  check(true, 'a double-click resets the zoom');
  await page.mouse.move(ob.x + ob.width * 0.2, mid.y);
  await page.mouse.down();
  await page.mouse.move(ob.x + ob.width * 0.5, mid.y + 5, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction(([a, b]) => { const x = velesApp.view.plot.u.scales.x; return x.max - x.min < (b - a) * 0.5; }, full);
  const boxed = await xRange(page);
  check(boxed[0] > full[0] + (full[1] - full[0]) * 0.1, `a dragged box zooms to it (${full} to ${boxed})`);
  await page.keyboard.down('Shift');
  await page.mouse.move(mid.x, mid.y);
  await page.mouse.down();
  await page.mouse.move(mid.x + ob.width * 0.2, mid.y, { steps: 8 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const panned = await xRange(page);
  const w0 = boxed[1] - boxed[0], w1 = panned[1] - panned[0];
  check(panned[0] < boxed[0] && Math.abs(w1 - w0) < w0 * 1e-6, `Shift+drag pans (${boxed} to ${panned})`);
  await page.dblclick('#plot .u-over');
  await page.waitForFunction(([a, b]) => { const x = velesApp.view.plot.u.scales.x; return x.min === a && x.max === b; }, full);
  await save(page, '#save-png', 'plot.png');
  check(fs.readFileSync(path.join(DL, 'plot.png')).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'Save PNG gives a PNG file');
  // The histogram: every interval of the chosen event in a bin.
  await page.waitForFunction((n) => velesApp.view.hist.u.data[1].reduce((a, b) => a + b, 0) === n, statRows);
  check(await page.inputValue('#hist-event') === 'task-clock', 'the histogram counts every interval of its event');
  await page.selectOption('#hist-event', 'minor-faults');
  await page.fill('#hist-bins', '7');
  await page.dispatchEvent('#hist-bins', 'change');
  await page.waitForFunction((n) => velesApp.view.hist.u.data[1].length === 7 && velesApp.view.hist.u.data[1].reduce((a, b) => a + b, 0) === n, statRows);
  check(true, "another event's histogram in 7 bins");
  await page.evaluate(() => { window.firstPlot = velesApp.view.plot.u; });
  await page.click(`#history tr[data-id="${recId}"] button.reload`);
  await page.waitForFunction(() => document.querySelector('#hot td.sym') && document.querySelector('#hot td.sym').textContent === 'hot_spin');
  const rt = await page.evaluate(() => ({
    tool: document.querySelector('input[name=tool]:checked').value, callgraph: document.getElementById('callgraph').checked,
    freq: document.getElementById('freq').value, same: velesApp.view.plot.u === window.firstPlot,
  }));
  check(rt.tool === 'record' && rt.callgraph && rt.freq === '2000', 'a record run reloaded with its screen');
  check(rt.same, 'reloading gave the same plot widget new data');

  // Downloads; the permanent link to the plot alone.
  await save(page, `#history tr[data-id="${statId}"] a.csv`, 'stat.csv');
  await save(page, `#history tr[data-id="${statId}"] a.hdf5`, 'stat.h5');
  await save(page, `#history tr[data-id="${recId}"] a.raw`, 'record.data');
  await save(page, `#history tr[data-id="${recId}"] a.hdf5`, 'record.h5');
  await save(page, '#session-hdf5', 'session.h5');
  check(fs.statSync(path.join(DL, 'record.h5')).size > 0, 'raw, CSV and HDF5 downloaded');
  const plotHref = await page.getAttribute(`#history tr[data-id="${statId}"] a.permalink`, 'href');
  const p2 = await A.ctx.newPage();
  p2.on('pageerror', (e) => errors.push(`page error: ${e}`));
  await p2.goto(SURL.replace(/\/$/, '') + plotHref);
  await p2.waitForFunction(() => velesApp.view && velesApp.view.points > 2);
  check(true, 'the permanent link shows the plot');
  await p2.close();

  // Deleting a run, then the session: their files go.
  await page.click(`#history tr[data-id="${recId}"] button.delete`);
  await page.waitForSelector(`#history tr[data-id="${recId}"]`, { state: 'detached' });
  check(!fs.existsSync(path.join(DATA, 'runs', recId)) && fs.existsSync(path.join(DATA, 'runs', statId)), "a deleted run's files are gone");
  await page.goto(SURL);
  await page.waitForSelector(`#sessions tr[data-id="${sid}"]`);
  check(await page.textContent(`#sessions tr[data-id="${sid}"] a`) === title, 'the session list shows the title as text');
  // Searching sessions: by a word of the title, by a piece of the id.
  await page.fill('#session-title', 'another');
  await page.click('#session-create');
  await page.waitForURL(/\/s\/[0-9a-f-]{36}$/);
  const other = page.url().split('/').pop();
  await page.goto(SURL);
  await page.waitForSelector(`#sessions tr[data-id="${other}"]`);
  await page.fill('#session-search', '<SCRIPT>');
  await page.waitForSelector(`#sessions tr[data-id="${other}"]`, { state: 'detached' });
  check(await page.$(`#sessions tr[data-id="${sid}"]`) !== null, 'sessions found by their title');
  await page.fill('#session-search', other.slice(9, 18));
  await page.waitForSelector(`#sessions tr[data-id="${sid}"]`, { state: 'detached' });
  check(await page.$(`#sessions tr[data-id="${other}"]`) !== null, 'sessions found by their id');
  await page.fill('#session-search', '');
  await page.waitForSelector(`#sessions tr[data-id="${sid}"]`);
  await page.click(`#sessions tr[data-id="${sid}"] button`);
  await page.waitForSelector(`#sessions tr[data-id="${sid}"]`, { state: 'detached' });
  check(!fs.existsSync(path.join(DATA, 'runs', statId)), "a deleted session's runs' files are gone");

  // Two browsers queue a run each: the second waits, then both finish in order.
  await page.fill('#session-title', 'queue');
  await page.click('#session-create');
  await page.waitForURL(/\/s\/[0-9a-f-]{36}$/);
  const qsid = page.url().split('/').pop();
  const B = await browser();
  await B.page.goto(`${SURL}?token=${STOKEN}`);
  await B.page.goto(`${SURL}s/${qsid}`);
  for (const p of [page, B.page]) {
    await p.waitForSelector('#events label.event');
    await p.check('#events label[data-name="task-clock"] input');
  }
  await page.fill('#command', 'sleep 4');
  await B.page.fill('#command', 'sleep 0.2');
  const first = await clickRun(page);
  await page.waitForFunction(() => /· running/.test(document.getElementById('run-status').textContent));
  const second = await clickRun(B.page);
  await B.page.waitForFunction(() => /queued, position 1/.test(document.getElementById('run-status').textContent));
  await B.page.waitForFunction((id) => [...document.querySelectorAll('#queue li')].some((l) => l.dataset.id === id && /queued, position 1/.test(l.textContent)), second);
  check(true, "the second browser's run waits in the queue");
  // A third, canceled from the first browser's queue view.
  const third = await clickRun(B.page);
  await page.waitForSelector(`#queue li[data-id="${third}"]`);
  check(/queued, position 2/.test(await page.textContent(`#queue li[data-id="${third}"]`)), 'the queue view shows the place of each run');
  await page.click(`#queue li[data-id="${third}"] button.cancel`);
  await page.waitForSelector(`#queue li[data-id="${third}"]`, { state: 'detached' });
  await B.page.waitForFunction(() => /· canceled/.test(document.getElementById('run-status').textContent));
  check((await apiRun(page, third)).state === 'canceled', 'a run canceled from the queue view');
  await waitDone(page);
  await waitOver(B.page, second);
  const [r1, r2] = [await apiRun(page, first), await apiRun(B.page, second)];
  check(r1.state === 'done' && r2.state === 'done' && r2.started >= r1.ended,
    `both runs finished, one after the other (${JSON.stringify([r1, r2])})`);
  await B.close();

  // A server on every address asks a browser without the token for it.
  const C = await browser(/status of 401/);
  await C.page.goto(SURL2);
  await C.page.waitForSelector('#token-form');
  check(true, 'without the token the page asks for it');
  await C.page.fill('#token', STOKEN2);
  await C.page.click('#token-form button');
  await C.page.waitForSelector('#session-title');
  await C.page.waitForFunction(() => !document.getElementById('token-form'));
  check(true, 'with the token the page works');
  await C.close();
} catch (e) {
  errors.push(String(e.stack || e));
  if (process.env.VELES_TEST_SHOTS) {
    await page.screenshot({ path: path.join(process.env.VELES_TEST_SHOTS, 'failed.png'), fullPage: true });
    console.log(await page.evaluate(() => document.getElementById('msg') && document.getElementById('msg').textContent));
    console.log(page.requests.filter((r) => !r.includes('/api/queue')).slice(-40).join('\n'));
  }
}
await A.close();
for (const e of errors) console.log(`FAIL ${e}`);
process.exit(errors.length ? 1 : 0);
