// One run on screen: its state and progress, the plot (live by Server-
// Sent Events while it runs, then from the server's summaries), for record
// the hot functions and the flame graph, a histogram, and its output. The
// widgets are made once; showing another run only gives them new data.
import { get, post } from './api.js';
import { h, clear, fmtNum, short } from './widgets.js';
import { TimePlot, Histogram } from './plot.js';
import { FlameGraph } from './flame.js';

const FINAL = ['done', 'failed', 'canceled'];
// Above this many points a finished run is drawn from server summaries.
const SUMMARY_ABOVE = 20000;

export class RunView {
  constructor({ onEnd, msg, plotOnly }) {
    this.onEnd = onEnd || (() => {});
    this.msg = msg;
    this.plotOnly = !!plotOnly;
    this.run = null;
    this.es = null;
    this.latency = [];
    this.rowsSeen = 0;
    this.status = h('div', { class: 'status', id: 'run-status' }, 'No run yet: choose events and a workload, then Run.');
    this.cancelBtn = h('button', { id: 'run-cancel', hidden: true, onclick: () => this.cancel() }, 'Cancel');
    this.plotBox = h('div', { class: 'plot-box', id: 'plot' });
    this.toolbar = h('div', { class: 'toolbar' },
      h('button', { onclick: () => this.plot.resetZoom(), title: 'or double-click the plot' }, 'Reset zoom'),
      h('button', { id: 'save-png', onclick: () => this.plot.savePNG(`veles-${short(this.runId)}.png`) }, 'Save PNG'),
      this.fullLink = h('a', { id: 'plot-link', target: '_blank', hidden: true }, 'full screen'),
      h('span', { class: 'muted small' }, 'drag: zoom a box · wheel: zoom · Shift+drag: pan · double-click: reset'));
    this.totals = h('div', { class: 'totals muted', id: 'totals' });
    this.hotBody = h('tbody', { id: 'hot' });
    this.flameBox = h('div', { id: 'flame' });
    this.recordBox = h('section', { class: 'box', hidden: true, id: 'record-views' },
      h('h2', {}, 'Hot functions'),
      h('table', { class: 'list hot' }, h('thead', {}, h('tr', {}, ['Overhead', 'Samples', 'Command', 'Object', 'Symbol'].map((t) => h('th', {}, t)))), this.hotBody),
      h('h2', {}, 'Flame graph'), this.flameBox);
    this.histSel = h('select', { id: 'hist-event', onchange: () => this.loadHist() });
    this.histBins = h('input', { id: 'hist-bins', type: 'number', min: 1, max: 1000, value: '40', class: 'short', onchange: () => this.loadHist() });
    this.histBox = h('div', { id: 'histogram' });
    this.histSection = h('section', { class: 'box', hidden: true },
      h('h2', {}, 'Histogram'), h('label', {}, 'event ', this.histSel), ' ', h('label', {}, 'bins ', this.histBins), this.histBox);
    this.out = { stdout: h('pre', { class: 'output', id: 'stdout' }), stderr: h('pre', { class: 'output', id: 'stderr' }) };
    this.exit = h('span', { id: 'exit-status' });
    this.outSection = h('section', { class: 'box', hidden: true },
      h('h2', {}, 'Output ', this.exit), h('h3', {}, 'stdout'), this.out.stdout, h('h3', {}, 'stderr'), this.out.stderr);
    this.el = h('div', { class: 'runview' },
      h('section', { class: 'box' }, h('div', { class: 'row' }, this.status, this.cancelBtn), this.toolbar, this.plotBox, this.totals),
      this.recordBox, this.histSection, this.outSection);
  }

  /* A tab in the background gives its connection back (a browser opens
   * only a few to one server) and resumes where it left when shown. */
  visibility() {
    if (document.hidden && this.es) {
      this.close();
      this.paused = true;
    } else if (!document.hidden && this.paused) {
      this.paused = false;
      if (this.run && !FINAL.includes(this.run.state)) this.follow();
    }
  }

  /* Once the element is in the page (uPlot measures its box). */
  mount() {
    this.onVisibility = () => this.visibility();
    document.addEventListener('visibilitychange', this.onVisibility);
    this.plot = new TimePlot(this.plotBox, { onPoints: (n) => { this.points = n; } });
    if (!this.plotOnly) {
      this.hist = new Histogram(this.histBox);
      this.flame = new FlameGraph(this.flameBox);
    }
    window.velesApp.view = this;
  }

  get runId() {
    return this.run && this.run.id;
  }

  close() {
    if (this.es) this.es.close();
    this.es = null;
  }

  unmount() {
    this.close();
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  clearRun() {
    this.close();
    this.run = null;
    this.status.textContent = 'No run shown.';
    this.cancelBtn.hidden = true;
    this.plot.setColumns([], []);
  }

  columnsOf(run) {
    return run.tool === 'record' ? ['samples', 'period'] : run.events;
  }

  /* Shows @run: from the start while it runs, else its stored data. */
  show(run) {
    this.close();
    this.lastId = null;
    this.run = run;
    this.rowsSeen = 0;
    this.latency = [];
    this.fullLink.href = run.links.plot;
    this.fullLink.hidden = false;
    this.plot.loader = null;
    // A record run's period dwarfs its sample counts: hidden until asked.
    this.plot.setColumns(this.columnsOf(run), [], run.tool === 'record' ? ['period'] : []);
    if (this.plotOnly) {
      this.describe(run);
      if (!FINAL.includes(run.state)) this.follow(); else if (run.started) this.loadSeries();
      return;
    }
    clear(this.hotBody);
    this.totals.textContent = '';
    this.flame.set(null);
    this.recordBox.hidden = run.tool !== 'record';
    this.out.stdout.textContent = '';
    this.out.stderr.textContent = '';
    this.exit.textContent = '';
    this.outSection.hidden = !!(run.pid || run.tid);
    this.histSection.hidden = false;
    clear(this.histSel);
    for (const c of this.columnsOf(run)) this.histSel.append(h('option', { value: c, selected: c === this.histWant }, c));
    this.describe(run);
    if (!FINAL.includes(run.state)) this.follow();
    else if (run.started) this.loadStored();
  }

  describe(run, extra) {
    const what = run.command ? run.command : run.pid ? `PID ${run.pid}` : `TID ${run.tid}`;
    let s = `Run ${short(run.id)} · ${run.tool} · ${what} · ${run.state}`;
    if (run.state === 'queued') s += `, position ${run.position + 1} in the queue`;
    if (extra) s += ` · ${extra}`;
    if (run.error) s += ` · ${run.error}`;
    this.status.textContent = s;
    this.status.className = `status ${run.state}`;
    this.cancelBtn.hidden = FINAL.includes(run.state);
    this.cancelBtn.textContent = run.state === 'running' && (run.pid || run.tid) ? 'Stop' : 'Cancel';
    if (run.exit_status != null && this.exit) this.exit.textContent = `(exit status ${run.exit_status})`;
  }

  async cancel() {
    try {
      await post(`/api/runs/${this.run.id}/cancel`);
    } catch (e) {
      if (this.msg) this.msg.textContent = e.message;
    }
  }

  /* The live stream: rows, output, the hot table, state changes. A
   * dropped connection comes back by itself (EventSource) and resumes
   * from the last event it got (Last-Event-ID). */
  follow() {
    const run = this.run;
    const es = new EventSource(`/api/runs/${run.id}/live${this.lastId ? `?from=${this.lastId}` : ''}`);
    this.es = es;
    const seen = (e) => { if (e.lastEventId) this.lastId = e.lastEventId; };
    this.follows = (this.follows || 0) + 1;
    for (const name of ['state', 'rows', 'output', 'hot']) es.addEventListener(name, seen);
    es.addEventListener('state', (e) => {
      const s = JSON.parse(e.data);
      Object.assign(run, { state: s.state, position: s.position, error: s.error, exit_status: s.exit_status });
      this.describe(run, this.rowsSeen ? `${this.rowsSeen} rows` : '');
    });
    es.addEventListener('rows', (e) => {
      const now = Date.now(), d = JSON.parse(e.data);
      if (d.from !== this.rowsSeen) return; // already have them
      if (d.units) this.plot.setUnits(d.units);
      for (const t of d.t) this.latency.push(now - (d.start_ms + t * 1000));
      this.rowsSeen += d.t.length;
      if (run.streaming || this.plotOnly) this.plot.append(d.t, d.v);
      // The count once a second: a new status line costs the page a layout.
      if (now - (this.described || 0) > 1000) {
        this.described = now;
        this.describe(run, `${this.rowsSeen} rows`);
      }
    });
    es.addEventListener('output', (e) => {
      const d = JSON.parse(e.data);
      if (this.out[d.stream]) this.out[d.stream].append(document.createTextNode(d.text));
    });
    es.addEventListener('hot', (e) => this.showHot(JSON.parse(e.data)));
    es.addEventListener('end', () => {
      es.close();
      if (this.es === es) this.es = null;
      this.ended();
    });
  }

  async ended() {
    try {
      this.run = await get(`/api/runs/${this.run.id}`);
    } catch (e) {
      return;
    }
    this.describe(this.run, `${this.rowsSeen} rows`);
    if (!this.run.started) { // canceled while queued: no data to ask for
      this.onEnd(this.run);
      return;
    }
    if (!this.run.streaming || this.rowsSeen > SUMMARY_ABOVE || this.plotOnly) await this.loadSeries();
    else this.plot.full = null;
    if (!this.plotOnly) {
      if (this.run.tool === 'record') this.loadRecordViews();
      else this.loadTotals();
      this.loadHist();
    }
    this.onEnd(this.run);
  }

  async fetchSeries(from, to, points) {
    const q = from == null ? `points=${points}` : `from=${from}&to=${to}&points=${points}`;
    try {
      return await get(`/api/runs/${this.run.id}/series?${q}`);
    } catch (e) {
      return null;
    }
  }

  /* A stored series: summarised to the plot's width, refetched exact as
   * the user zooms in. */
  async loadSeries() {
    const id = this.run.id;
    const points = Math.max(400, Math.floor(this.plot.u.bbox.width / devicePixelRatio) || 1000);
    const d = await this.fetchSeries(null, null, points);
    if (!d || !this.run || this.run.id !== id) return;
    this.plot.loader = (a, b, p) => this.fetchSeries(a, b, p);
    this.plot.setColumns(d.columns, d.units);
    this.plot.setData(d.t, d.v, [d.from, d.to]);
    this.totalRows = d.total_rows;
  }

  /* A stat run's counts over the whole run. */
  async loadTotals() {
    try {
      const d = await get(`/api/runs/${this.run.id}/totals`);
      this.totals.textContent = 'whole run: ' + d.columns.map((c, i) => `${c} ${fmtNum(d.sums[i])}${d.units[i] ? ' ' + d.units[i] : ''}`).join(' · ');
    } catch (e) { /* never started */ }
  }

  async loadStored() {
    await this.loadSeries();
    if (this.run.tool === 'record') this.loadRecordViews();
    else this.loadTotals();
    this.loadHist();
    for (const stream of ['stdout', 'stderr']) {
      try {
        const d = await get(`/api/runs/${this.run.id}/output?stream=${stream}`);
        this.out[stream].textContent = d.text;
        if (d.next < d.size) this.out[stream].append(h('a', { href: `/api/runs/${this.run.id}/output?stream=${stream}&download=1` }, '\n… the whole output'));
      } catch (e) { /* none */ }
    }
  }

  showHot(d) {
    clear(this.hotBody);
    for (const r of d.rows) {
      this.hotBody.append(h('tr', {}, h('td', { class: 'num' }, `${r.overhead.toFixed(2)}%`), h('td', { class: 'num' }, r.samples),
        h('td', {}, r.command), h('td', {}, r.object), h('td', { class: 'sym' }, r.symbol)));
    }
  }

  async loadRecordViews() {
    try {
      this.showHot(await get(`/api/runs/${this.run.id}/report`));
      this.flame.set(await get(`/api/runs/${this.run.id}/flame`));
    } catch (e) {
      if (this.msg) this.msg.textContent = e.message;
    }
  }

  histState() {
    return { event: this.histSel.value, bins: this.histBins.value };
  }

  histPrefer(s) {
    this.histWant = s && s.event;
    if (s && s.bins) this.histBins.value = String(s.bins);
  }

  async loadHist() {
    if (!this.run || !this.histSel.value) return;
    try {
      const d = await get(`/api/runs/${this.run.id}/histogram?column=${encodeURIComponent(this.histSel.value)}&bins=${Number(this.histBins.value) || 40}`);
      this.hist.set(d.edges, d.counts);
    } catch (e) { /* not started */ }
  }
}
