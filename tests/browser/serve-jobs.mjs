// The jobs page of veles serve in a project (t-serve-jobs.sh starts the
// server): the job matrix started from the page, its progress seen while
// it runs, its output as it comes, its end (done) and the profiles it
// registered listed. Fails on any console or page error.
import { check, finish, openProfile, watchServedPage } from './browser.mjs';

const { SURL, STOKEN, HEAD_ID } = process.env;
const errors = [];

const browser = await openProfile();
const { page } = browser;
page.setDefaultTimeout(60000);
watchServedPage(page, errors);

try {
  await page.goto(`${SURL}?token=${STOKEN}`);
  await page.goto(`${SURL}p/jobs`);
  await page.waitForSelector('table.jobs');
  check(await page.$eval('.project-nav a.current', (a) => a.textContent) === 'Jobs', 'the Jobs part is in the bar');
  check((await page.textContent('table.jobs')).includes('No jobs yet'), 'no jobs at first');
  // The form: the matrix on the current version, as it comes filled in.
  check(await page.$eval('form.job-start input[name=version]', (i) => i.value) === HEAD_ID.slice(0, 7),
    'the version field holds the current version');
  await page.selectOption('form.job-start select[name=kind]', 'matrix');
  // Every progress text the job's view shows, from the start.
  await page.evaluate(() => {
    window.seenProgress = [];
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.job .job-progress')) {
        const t = el.textContent;
        if (t && window.seenProgress[window.seenProgress.length - 1] !== t) window.seenProgress.push(t);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.click('form.job-start button[type=submit]');
  await page.waitForURL((u) => /^\/p\/jobs\/[0-9a-f-]{36}$/.test(u.pathname));
  const id = page.url().split('/').pop();
  check(true, `the job ${id.slice(0, 8)} is queued and its page shown`);
  await page.waitForSelector('.job [data-state=done]', { timeout: 60000 });
  check(true, 'its state went to done');
  const seen = await page.evaluate(() => window.seenProgress);
  check(seen.some((t) => /^[12]\/3 jobs$/.test(t.trim())),
    `its progress was seen as it ran (${JSON.stringify(seen)})`);
  const out = await page.textContent('.job-output');
  check(/ok +1\/3 +\.\/prog a \(time\)/.test(out) && /ok +3\/3/.test(out), 'its output came live');
  const profiles = await page.$$eval('.job-profiles li', (ls) => ls.map((l) => l.textContent));
  check(profiles.length === 3 && profiles.every((p) => /^prog-time-[abc]-.*\.perf$/.test(p)),
    `the new profiles are listed (${profiles.join(', ')})`);
  check((await page.textContent('.job-verdict')).includes('3 of 3 jobs ok; 3 profiles registered'),
    'the result says so');
  // The list row of the job ends done too.
  await page.waitForFunction((i) => {
    const row = document.querySelector(`table.jobs tr[data-job="${i}"] td.state`);
    return row && row.textContent === 'done';
  }, id);
  check(true, 'the jobs list shows it done');
  check((await page.textContent('.job h3')).includes('the <b>recipe</b>'), 'the summary is text, not markup');
  const job = await page.evaluate((i) => fetch(`/api/project/jobs/${i}`).then((r) => r.json()), id);
  check(job.state === 'done' && job.version === HEAD_ID, 'the server agrees');
} catch (e) {
  errors.push(String(e.stack || e));
}
await browser.close();
finish(errors);
