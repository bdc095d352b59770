// The benchmark screen of one session: the seed's widgets (events list,
// tool chooser, workload), the run's plot, hot functions and flame graph,
// histogram and output, the session's run history and the machine's queue.
import { get, post, del } from './api.js';
import { h, clear, fmtTime, short } from './widgets.js';
import { RunView } from './runview.js';

function radio(name, value, checked, label, onchange) {
  return h('label', { class: 'inline' }, h('input', { type: 'radio', name, value, checked, onchange }), ' ', label);
}

/* The events list: checkboxes, descriptions on hover, a search over names
 * and descriptions, this session's most used first. */
class EventList {
  constructor(onchange) {
    this.selected = new Set();
    this.onchange = onchange;
    this.search = h('input', { id: 'event-search', type: 'search', placeholder: 'Search events and descriptions' });
    this.count = h('span', { class: 'muted small' });
    this.list = h('div', { class: 'events', id: 'events' });
    this.rows = [];
    this.search.addEventListener('input', () => this.filter());
    this.el = h('section', { class: 'box' }, h('h2', {}, 'Events'), this.search, this.count, this.list);
  }

  set(events, uses) {
    const order = events.map((e, i) => ({ e, i, u: uses[e.name] || 0 }));
    order.sort((a, b) => b.u - a.u || a.i - b.i);
    clear(this.list);
    this.rows = order.map(({ e, u }) => {
      const box = h('input', { type: 'checkbox', value: e.name, checked: this.selected.has(e.name),
        onchange: () => { if (box.checked) this.selected.add(e.name); else this.selected.delete(e.name); this.onchange(); } });
      const row = h('label', { class: 'event' + (e.supported ? '' : ' unsupported'), title: `${e.name} [${e.kind}]\n${e.description}${e.supported ? '' : '\n(not supported here)'}`, 'data-name': e.name },
        box, ' ', h('span', { class: 'ename' }, e.name), u ? h('span', { class: 'uses', title: `used in ${u} run(s) of this session` }, `×${u}`) : '',
        h('span', { class: 'edesc' }, e.description));
      row.hay = `${e.name}\n${e.description}`.toLowerCase();
      row.box = box;
      return row;
    });
    this.list.append(...this.rows);
    this.filter();
  }

  filter() {
    const q = this.search.value.trim().toLowerCase();
    let shown = 0;
    for (const r of this.rows) {
      const on = !q || r.hay.includes(q);
      r.style.display = on ? '' : 'none';
      shown += on;
    }
    this.count.textContent = ` ${shown} of ${this.rows.length}, ${this.selected.size} chosen`;
  }

  choose(names) {
    this.selected = new Set(names);
    for (const r of this.rows) r.box.checked = this.selected.has(r.box.value);
    this.filter();
  }

  names() {
    // In the list's order of choosing: as the user ticked them.
    return [...this.selected];
  }
}

export async function benchScreen(root, go, sid, runId) {
  let session;
  try {
    session = await get(`/api/sessions/${sid}`);
  } catch (e) {
    clear(root).append(h('header', {}, h('h1', {}, h('a', { href: '/', onclick: (ev) => { ev.preventDefault(); go('/'); } }, 'veles serve'))), h('p', { class: 'msg' }, e.message));
    return;
  }
  const msg = h('p', { class: 'msg', id: 'msg' });
  const events = new EventList(() => {});
  const el = {};
  el.stat = radio('tool', 'stat', true, 'stat', () => toolChanged());
  el.record = radio('tool', 'record', false, 'record', () => toolChanged());
  el.streaming = h('input', { id: 'streaming', type: 'checkbox', checked: true });
  el.interval = h('input', { id: 'interval', type: 'number', min: 0, max: 3600000, value: '100', class: 'short' });
  el.freq = h('input', { id: 'freq', type: 'number', min: 1, max: 1000000, value: '4000', class: 'short' });
  el.callgraph = h('input', { id: 'callgraph', type: 'checkbox' });
  el.recordOpts = h('div', { class: 'record-opts', hidden: true },
    h('label', {}, 'frequency (Hz) ', el.freq), h('label', { class: 'inline' }, el.callgraph, ' call graphs'));
  el.cmdMode = radio('target', 'command', true, 'command', () => targetChanged());
  el.attachMode = radio('target', 'attach', false, 'attach to a PID/TID', () => targetChanged());
  el.command = h('input', { id: 'command', type: 'text', placeholder: './workload --size 100', class: 'wide' });
  el.env = h('input', { id: 'env', type: 'text', placeholder: 'COUNT=7 THREAD_NUM=12', class: 'wide' });
  el.pid = h('input', { id: 'pid', type: 'number', min: 1, placeholder: 'PID', class: 'short' });
  el.tid = h('input', { id: 'tid', type: 'number', min: 1, placeholder: 'TID', class: 'short' });
  el.cmdBox = h('div', {}, h('label', {}, 'command ', el.command), h('label', {}, 'environment ', el.env));
  el.attachBox = h('div', { hidden: true }, h('label', {}, 'PID ', el.pid), ' or ', h('label', {}, 'TID ', el.tid));
  el.run = h('button', { id: 'run', class: 'primary', onclick: () => submit() }, 'Run');
  el.queue = h('div', { id: 'queue' });
  el.history = h('tbody', { id: 'history' });

  const tool = () => (el.record.querySelector('input').checked ? 'record' : 'stat');
  const attach = () => el.attachMode.querySelector('input').checked;
  function toolChanged() {
    el.recordOpts.hidden = tool() !== 'record';
  }
  function targetChanged() {
    el.cmdBox.hidden = attach();
    el.attachBox.hidden = !attach();
  }

  const view = new RunView({ onEnd: () => { loadHistory(); loadUses(); }, msg });

  /* The whole screen's state, as a run keeps it for reloading. */
  function screenState() {
    return {
      events: events.names(), tool: tool(), streaming: el.streaming.checked,
      interval_ms: el.interval.value, freq: el.freq.value, callgraph: el.callgraph.checked,
      target: attach() ? 'attach' : 'command', command: el.command.value, env: el.env.value,
      pid: el.pid.value, tid: el.tid.value, search: events.search.value,
      histogram: view.histState(),
    };
  }

  function applyState(run) {
    const s = run.screen || {};
    events.choose(run.events || s.events || []);
    if (typeof s.search === 'string') { events.search.value = s.search; events.filter(); }
    el[run.tool === 'record' ? 'record' : 'stat'].querySelector('input').checked = true;
    el.streaming.checked = !!run.streaming;
    el.interval.value = String(run.interval_ms);
    el.freq.value = String(run.freq || 4000);
    el.callgraph.checked = !!run.callgraph;
    const att = !!(run.pid || run.tid);
    el[att ? 'attachMode' : 'cmdMode'].querySelector('input').checked = true;
    el.command.value = run.command || '';
    el.env.value = run.env || '';
    el.pid.value = run.pid ? String(run.pid) : '';
    el.tid.value = run.tid ? String(run.tid) : '';
    toolChanged();
    targetChanged();
    view.histPrefer(s.histogram);
  }

  async function submit() {
    msg.textContent = '';
    const st = screenState();
    const body = {
      session: sid, tool: st.tool, events: st.events, streaming: st.streaming,
      interval_ms: st.interval_ms === '' ? 0 : Number(st.interval_ms),
      freq: st.tool === 'record' ? Number(st.freq || 0) : 0, callgraph: st.callgraph,
      command: attach() ? '' : st.command, env: attach() ? '' : st.env,
      pid: attach() && st.pid ? Number(st.pid) : 0, tid: attach() && st.tid ? Number(st.tid) : 0,
      screen: st,
    };
    try {
      const run = await post('/api/runs', body);
      history.replaceState(null, '', `/s/${sid}/r/${run.id}`);
      view.show(run);
      loadHistory();
      loadQueue();
    } catch (e) {
      msg.textContent = e.message;
    }
  }

  async function loadUses() {
    try {
      const d = await get(`/api/events?session=${sid}`);
      events.set(d.events, d.uses);
    } catch (e) {
      msg.textContent = e.message;
    }
  }

  async function reload(id) {
    try {
      const run = await get(`/api/runs/${id}`);
      applyState(run);
      history.replaceState(null, '', `/s/${sid}/r/${id}`);
      view.show(run);
    } catch (e) {
      msg.textContent = e.message;
    }
  }

  async function removeRun(r) {
    if (!confirm(`Delete run ${short(r.id)} and its data?`)) return;
    try {
      await del(`/api/runs/${r.id}`);
      if (view.runId === r.id) { view.clearRun(); history.replaceState(null, '', `/s/${sid}`); }
      loadHistory();
    } catch (e) {
      msg.textContent = e.message;
    }
  }

  function link(text, href, attrs = {}) {
    return h('a', { href, ...attrs }, text);
  }

  async function loadHistory() {
    let d;
    try {
      d = await get(`/api/sessions/${sid}`);
    } catch (e) {
      msg.textContent = e.message;
      return;
    }
    clear(el.history);
    for (const r of [...d.run_list].reverse()) {
      const final = ['done', 'failed', 'canceled'].includes(r.state);
      el.history.append(h('tr', { 'data-id': r.id, class: view.runId === r.id ? 'current' : '' },
        h('td', { class: 'mono' }, short(r.id)),
        h('td', {}, fmtTime(r.created)),
        h('td', {}, r.tool),
        h('td', { class: 'cut', title: r.events.join(', ') }, r.events.join(', ') || '(default)'),
        h('td', { class: 'cut mono', title: r.command || `PID ${r.pid || ''} TID ${r.tid || ''}` }, r.command || (r.pid ? `pid ${r.pid}` : `tid ${r.tid}`)),
        h('td', { class: `state ${r.state}` }, r.state + (r.exit_status != null ? ` (${r.exit_status})` : '')),
        h('td', { class: 'actions' },
          h('button', { class: 'reload', onclick: () => reload(r.id) }, 'Reload'),
          final ? link('raw', r.links.raw, { class: 'raw', download: '' }) : '',
          final ? link('CSV', r.links.csv, { class: 'csv', download: '' }) : '',
          final ? link('HDF5', r.links.hdf5, { class: 'hdf5', download: '' }) : '',
          link('plot', r.links.plot, { class: 'permalink', target: '_blank' }),
          h('button', { class: 'danger delete', onclick: () => removeRun(r) }, 'Delete'))));
    }
    if (!d.run_list.length) el.history.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No runs yet.')));
  }

  async function cancel(id) {
    try {
      await post(`/api/runs/${id}/cancel`);
      loadQueue();
    } catch (e) {
      msg.textContent = e.message;
    }
  }

  let lastQueue = null;
  async function loadQueue() {
    let q;
    try {
      q = await get('/api/queue');
    } catch (e) {
      return;
    }
    // Another page queued or finished a run: this session's list shows it.
    const ids = [q.running && q.running.id, ...q.queued.map((r) => r.id)].join();
    if (lastQueue !== null && ids !== lastQueue) loadHistory();
    lastQueue = ids;
    clear(el.queue);
    const line = (r, what) => h('li', { 'data-id': r.id },
      h('span', { class: 'mono' }, short(r.id)), ` ${r.tool} `, h('span', { class: 'cut mono' }, r.command || `pid ${r.pid || r.tid}`),
      ` ${what} `, h('button', { class: 'cancel', onclick: () => cancel(r.id) }, r.state === 'running' && (r.pid || r.tid) ? 'Stop' : 'Cancel'));
    const items = [];
    if (q.running) items.push(line(q.running, `running, ${q.running.rows} rows`));
    q.queued.forEach((r) => items.push(line(r, `queued, position ${r.position + 1}`)));
    el.queue.append(items.length ? h('ol', {}, items) : h('p', { class: 'muted' }, 'Nothing queued.'));
  }

  clear(root).append(
    h('header', {}, h('h1', {}, h('a', { href: '/', onclick: (e) => { e.preventDefault(); go('/'); } }, 'veles serve')),
      h('span', { class: 'title', id: 'session-name' }, session.title), h('span', { class: 'muted mono' }, session.id),
      h('a', { class: 'header-link', id: 'session-hdf5', href: `/api/sessions/${sid}/hdf5`, download: '', title: 'every run of this session in one HDF5 file' }, 'session as HDF5')),
    h('div', { class: 'bench' },
      h('aside', {},
        events.el,
        h('section', { class: 'box' }, h('h2', {}, 'Tool'), h('div', {}, el.stat, el.record),
          h('label', { class: 'inline' }, el.streaming, ' streaming'),
          h('label', {}, 'interval (ms, 0: totals only) ', el.interval), el.recordOpts),
        h('section', { class: 'box' }, h('h2', {}, 'Workload'), h('div', {}, el.cmdMode, el.attachMode), el.cmdBox, el.attachBox),
        h('div', { class: 'row' }, el.run), msg,
        h('section', { class: 'box' }, h('h2', {}, 'Queue'), el.queue)),
      h('main', {}, view.el,
        h('section', { class: 'box' }, h('h2', {}, 'Runs of this session'),
          h('table', { class: 'list' }, h('thead', {}, h('tr', {}, ['Run', 'Started', 'Tool', 'Events', 'Workload', 'State', ''].map((t) => h('th', {}, t)))), el.history)))));
  view.mount();
  await loadUses();
  await loadHistory();
  loadQueue();
  const timer = setInterval(() => { if (!document.hidden) loadQueue(); }, 1500);
  if (runId) await reload(runId);
  return () => { clearInterval(timer); view.unmount(); };
}
