// The project's jobs (/p/jobs, /p/jobs/ID): the job matrix, a remeasure
// against the parent or a bisect run on a version through the server's run
// queue (POST /api/project/jobs); the jobs with their state and progress;
// one job's output as it comes (the run's live stream) and, once it ended,
// what it found. Also the actions a version's page offers (versionActions).
import { get, post } from './api.js';
import { h, clear, fmtTime } from './widgets.js';

const FINAL = ['done', 'failed', 'canceled'];
const KINDS = {
  matrix: 'Run the matrix',
  remeasure: 'Remeasure against the parent',
  bisect: 'Bisect',
};
const POLL_MS = 1000;

function versionLink(job, go) {
  return h('a', {
    href: `/p/v/${job.version}`,
    class: 'mono',
    onclick: (e) => { e.preventDefault(); go(`/p/v/${job.version}`); },
  }, job.short || (job.version || '').slice(0, 7));
}

const plural = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;

// Where it is: "2/3 jobs", "1 job remeasured", "3 steps".
export function progressText(job) {
  const p = job.progress || {};
  if (job.state === 'queued') return job.position ? `queued, ${job.position} before it` : 'queued';
  if (job.kind === 'matrix' && p.total) return `${p.done}/${p.total} jobs`;
  if (job.kind === 'remeasure' && p.done) return `${plural(p.done, 'job')} remeasured`;
  if (job.kind === 'bisect' && p.done) return plural(p.done, 'step');
  return job.state === 'running' ? 'starting' : '';
}

// What it found, from spec.result.
function resultText(job) {
  const r = job.spec && job.spec.result;
  if (job.state === 'failed') return job.error || 'failed';
  if (!r) return '';
  if (job.kind === 'matrix') {
    let s = `${r.ok} of ${r.jobs} jobs ok`;
    if (r.failed) s += `, ${r.failed} failed`;
    return `${s}; ${r.registered} profiles registered`;
  }
  if (job.kind === 'bisect' && r.first_slow && r.verdict === 'found') {
    return `first slow commit: ${r.first_slow.slice(0, 7)}`;
  }
  return r.verdict || '';
}

function progressEl(job) {
  const p = job.progress || {};
  const box = h('span', { class: 'job-progress' });
  if (job.state === 'running' && job.kind === 'matrix' && p.total) {
    box.append(h('progress', { max: p.total, value: p.done }), ' ');
  }
  box.append(progressText(job));
  return box;
}

function jobRow(job, selected, go) {
  return h('tr', {
    class: job.id === selected ? 'current' : null,
    'data-job': job.id,
  },
  h('td', {}, h('a', {
    href: `/p/jobs/${job.id}`,
    onclick: (e) => { e.preventDefault(); go(`/p/jobs/${job.id}`); },
  }, KINDS[job.kind] || job.kind)),
  h('td', {}, versionLink(job, go), ' ', h('span', { class: 'muted' }, job.summary || '')),
  h('td', { class: `state ${job.state}` }, job.state),
  h('td', {}, progressEl(job)),
  h('td', {}, resultText(job)),
  h('td', { class: 'muted' }, fmtTime(job.created)));
}

// The options each kind takes, as form fields: [name, label, attrs].
const FIELDS = {
  matrix: [],
  remeasure: [
    ['max_rounds', 'Most rounds', { type: 'number', min: 1, placeholder: '100' }],
    ['time', 'Seconds per job', { type: 'number', min: 0, step: 'any' }],
  ],
  bisect: [
    ['good', 'Good version', { required: true, placeholder: 'a commit known to be fast' }],
    ['command', 'Command to time', { required: true, placeholder: './prog 100' }],
    ['build', 'Build command', { placeholder: 'default: execute.pre_run' }],
  ],
};

function optionFields(kind, values) {
  return FIELDS[kind].map(([name, label, attrs]) => h('label', {},
    `${label} `, h('input', { name, value: values[name] || '', ...attrs })));
}

// Queues a job; its JSON, or throws with the server's message.
export function startJob(kind, version, options) {
  const body = { kind, version };
  for (const [k, v] of Object.entries(options || {})) if (v !== '' && v != null) body[k] = v;
  return post('/api/project/jobs', body);
}

function startForm(ctx, go) {
  const head = ctx.info.head;
  const kind = h('select', { name: 'kind' },
    Object.entries(KINDS).map(([k, t]) => h('option', { value: k }, t)));
  const version = h('input', { name: 'version', value: head ? head.short : 'HEAD', size: 12 });
  const extra = h('span', { class: 'job-options' });
  const msg = h('p', { class: 'msg' });
  const form = h('form', {
    class: 'job-start',
    onsubmit: async (e) => {
      e.preventDefault();
      const opts = {};
      for (const el of extra.querySelectorAll('input')) opts[el.name] = el.value.trim();
      msg.textContent = '';
      try {
        const job = await startJob(kind.value, version.value.trim(), opts);
        go(`/p/jobs/${job.id}`);
      } catch (err) {
        msg.textContent = err.message;
      }
    },
  }, kind, ' on version ', version, ' ', extra, ' ', h('button', { type: 'submit' }, 'Start'), msg);
  kind.addEventListener('change', () => clear(extra).append(...optionFields(kind.value, {})));
  return form;
}

// One job: its state and progress, its output as it comes, what it found.
class JobView {
  constructor(id, readOnly, go, onChange) {
    this.id = id;
    this.go = go;
    this.onChange = onChange;
    this.head = h('div', { class: 'job-head' });
    // Its output and its messages (progress, warnings) apart: each comes
    // in order, the two not with each other.
    this.out = { stdout: h('pre', { class: 'output job-output' }), stderr: h('pre', { class: 'output job-messages' }) };
    this.result = h('div', { class: 'job-result' });
    this.cancelBtn = h('button', { type: 'button', hidden: true, onclick: () => this.cancel() }, 'Cancel');
    this.readOnly = readOnly;
    this.el = h('section', { class: 'job' }, this.head, this.cancelBtn, this.result,
      h('h4', {}, 'Output'), this.out.stdout, h('h4', {}, 'Messages'), this.out.stderr);
  }

  async load() {
    try {
      this.job = await get(`/api/project/jobs/${this.id}`);
    } catch (e) {
      clear(this.head).append(h('p', { class: 'msg' }, e.message));
      return;
    }
    this.show();
    this.follow();
  }

  show() {
    const job = this.job;
    clear(this.head).append(
      h('h3', {}, KINDS[job.kind] || job.kind, ' on ', versionLink(job, this.go), ' ',
        h('span', { class: 'muted' }, job.summary || '')),
      h('p', {}, h('span', { class: `state ${job.state}`, 'data-state': job.state }, job.state),
        ' ', progressEl(job), job.runner ? h('span', { class: 'muted' }, ` · runner ${job.runner}`) : null),
      h('p', { class: 'mono muted' }, job.command));
    this.cancelBtn.hidden = this.readOnly || FINAL.includes(job.state);
    clear(this.result);
    const r = job.spec && job.spec.result;
    const text = resultText(job);
    if (text) this.result.append(h('p', { class: job.state === 'failed' ? 'msg' : 'job-verdict' }, text));
    if (r && r.profiles && r.profiles.length) {
      this.result.append(h('p', {}, `Profiles registered with ${job.short}:`),
        h('ul', { class: 'job-profiles' }, r.profiles.map((p) => h('li', { class: 'mono' }, p))));
    }
    if (r && r.first_slow && r.verdict === 'found') {
      this.result.append(h('p', {}, h('a', {
        href: `/p/v/${r.first_slow}`,
        onclick: (e) => { e.preventDefault(); this.go(`/p/v/${r.first_slow}`); },
      }, `Open ${r.first_slow.slice(0, 7)}`)));
    }
  }

  // The job again (its progress, its state, at the end its result), at
  // most every few hundred milliseconds while output comes.
  refresh() {
    if (this.pending) return;
    this.pending = setTimeout(async () => {
      this.pending = null;
      try {
        this.job = await get(`/api/project/jobs/${this.id}`);
        this.show();
        if (this.onChange) this.onChange(this.job);
      } catch (e) { /* the next event tries again */ }
    }, 200);
  }

  follow() {
    const es = new EventSource(`/api/runs/${this.id}/live`);
    this.es = es;
    es.addEventListener('output', (e) => {
      const d = JSON.parse(e.data);
      const pre = this.out[d.stream];
      if (!pre) return;
      pre.append(d.text);
      pre.scrollTop = pre.scrollHeight;
      this.refresh();
    });
    es.addEventListener('state', () => this.refresh());
    es.addEventListener('end', () => {
      es.close();
      this.es = null;
      this.refresh();
    });
  }

  async cancel() {
    try {
      await post(`/api/runs/${this.id}/cancel`);
    } catch (e) {
      this.result.append(h('p', { class: 'msg' }, e.message));
    }
    this.refresh();
  }

  close() {
    if (this.es) this.es.close();
    clearTimeout(this.pending);
  }
}

export async function jobsScreen(root, go, ctx) {
  const ro = ctx.info.read_only;
  let selected = ctx.path[0] || null, timer = null, view = null, closed = false;
  const table = h('table', { class: 'list jobs' });
  const msg = h('p', { class: 'msg' });
  const detail = h('div', { class: 'job-detail' });
  root.append(
    ro ? h('p', { class: 'muted' }, 'This server is read-only: it lists jobs but starts none.')
      : startForm(ctx, go),
    msg, table, detail);

  const render = (jobs) => {
    clear(table).append(h('tr', {}, ['Job', 'Version', 'State', 'Progress', 'Result', 'Queued']
      .map((t) => h('th', {}, t))));
    if (!jobs.length) table.append(h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No jobs yet.')));
    for (const j of jobs) table.append(jobRow(j, selected, go));
  };
  const refresh = async () => {
    timer = null;
    let jobs;
    try {
      jobs = (await get('/api/project/jobs')).jobs;
      msg.textContent = '';
    } catch (e) {
      msg.textContent = e.message;
      jobs = null;
    }
    if (closed) return;
    if (jobs) {
      render(jobs);
      if (!selected && jobs.length) selected = jobs[0].id;
      if (selected && !view) {
        // Its end shows in the list at once, not at the next look.
        view = new JobView(selected, ro, go, (job) => {
          if (!FINAL.includes(job.state) || closed) return;
          clearTimeout(timer);
          refresh();
        });
        detail.append(view.el);
        view.load();
      }
    }
    if (!jobs || jobs.some((j) => !FINAL.includes(j.state))) timer = setTimeout(refresh, POLL_MS);
  };
  await refresh();
  return () => {
    closed = true;
    clearTimeout(timer);
    if (view) view.close();
  };
}

// On a version's page: start a job there, and the jobs it had.
export function jobsVersionAction(el, version, ctx) {
  const id = typeof version === 'string' ? version : version.id;
  const parents = typeof version === 'object' && version.parents;
  const go = (ctx && ctx.go) || ((p) => { location.href = p; });
  const ro = ctx && ctx.info && ctx.info.read_only;
  const msg = h('p', { class: 'msg' });
  const list = h('ul', { class: 'version-jobs' });
  const box = h('div', { class: 'job-actions' });
  const start = async (kind, opts) => {
    msg.textContent = '';
    try {
      const job = await startJob(kind, id, opts);
      go(`/p/jobs/${job.id}`);
    } catch (e) {
      msg.textContent = e.message;
    }
  };
  if (!ro) {
    const bisect = h('form', { class: 'job-start', hidden: true, onsubmit: (e) => {
      e.preventDefault();
      const opts = {};
      for (const f of bisect.querySelectorAll('input')) opts[f.name] = f.value.trim();
      start('bisect', opts);
    } }, optionFields('bisect', { good: parents && parents[0] ? (parents[0].id || parents[0]).slice(0, 7) : '' }),
    ' ', h('button', { type: 'submit' }, 'Start the bisect'));
    box.append(
      h('button', { type: 'button', onclick: () => start('matrix', {}) }, 'Run the matrix here'), ' ',
      h('button', {
        type: 'button',
        disabled: Array.isArray(parents) && !parents.length,
        onclick: () => start('remeasure', {}),
      }, 'Remeasure against its parent'), ' ',
      h('button', { type: 'button', onclick: () => { bisect.hidden = !bisect.hidden; } }, 'Bisect from here'),
      bisect);
  }
  box.append(msg, list);
  el.append(box);
  get(`/api/project/jobs?version=${encodeURIComponent(id)}`).then((d) => {
    if (!d.jobs.length) return;
    list.before(h('p', {}, 'Jobs on this version:'));
    for (const j of d.jobs) {
      list.append(h('li', {}, h('a', {
        href: `/p/jobs/${j.id}`,
        onclick: (e) => { e.preventDefault(); go(`/p/jobs/${j.id}`); },
      }, KINDS[j.kind] || j.kind), ` · ${j.state}`, resultText(j) ? ` · ${resultText(j)}` : ''));
    }
  }).catch(() => {});
}
