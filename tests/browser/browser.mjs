// What the browser tests share: playwright-core from web/node_modules
// driving the machine's own Chromium ($CHROMIUM, never a downloaded
// browser), headless; the errors a page must not make; check() and the
// verdict printed at the end.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(path.join(process.env.VELES_SRCDIR, 'web', 'package.json'));
const { chromium } = require('playwright-core');
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

// A browser without a profile, for pages of files and one-off pages.
export function launch(args = []) {
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', ...args] });
}

// A browser of its own against veles serve: a fresh profile in a temporary
// folder (cookies kept between pages, as the token's), which close() takes
// away. Returns { ctx, page, dir, close }.
export async function openProfile({ args = [], ...options } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veles-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath,
    headless: true,
    viewport: { width: 1300, height: 1000 },
    ...options,
    args: ['--headless', '--no-sandbox', '--disable-gpu', ...args, '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  const close = async () => {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { ctx, page, dir, close };
}

// A page of files (show -o, log -o): any console error, page error, dialog
// (an alert would be injected script) or request that leaves the files
// goes into errors.
export function watchFilePage(page, errors) {
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => { errors.push('a dialog opened: ' + d.message()); d.dismiss(); });
  page.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) errors.push('fetched ' + r.url());
  });
}

// A page of veles serve: console errors (but those allow(text) lets pass)
// and page errors go into errors; a dialog too, unless dialogs is 'confirm'
// (a confirm is accepted, as a user deleting) or 'none' (left to
// playwright, which dismisses it).
export function watchServedPage(page, errors, { allow = () => false, dialogs = 'fail' } = {}) {
  page.on('console', (m) => {
    if (m.type() === 'error' && !allow(m.text())) errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e}`));
  if (dialogs === 'none') return;
  page.on('dialog', (d) => {
    if (dialogs === 'confirm' && d.type() === 'confirm') d.accept();
    else { errors.push(`unexpected ${d.type()} dialog: ${d.message()}`); d.dismiss(); }
  });
}

// A step that must hold: said when it does, thrown when not.
export function check(cond, what) {
  if (!cond) throw new Error(what);
  console.log(`ok ${what}`);
}

// The end of a test that gathered errors: each said, and the exit status.
export function finish(errors) {
  if (errors.length) {
    console.log(errors.join('\n'));
    process.exit(1);
  }
  console.log('ok');
}
