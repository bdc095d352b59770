// The project's history (the overview part, /p/): a chart of any metric
// across versions with its change points (hover shows the commit, a click
// opens its version, Shift+click two points opens their diff), and the
// versions as a history list with check's verdict against the parent.
// Both read the store index: /api/project/metrics, /history, /versions.
import uPlot from 'uplot';
import { get } from './api.js';
import { h, clear, fmtNum } from './widgets.js';
import { si } from './plot.js';

const PAGE = 200; // versions per request of the list

// The CSS class of a verdict: its colour.
export function verdictClass(cls) {
  if (!cls) return 'verdict-none';
  if (/Degradation/.test(cls)) return /Maybe/.test(cls) ? 'verdict-maybe' : 'verdict-bad';
  if (/Optimization/.test(cls)) return 'verdict-good';
  return 'verdict-same';
}

function pct(v) {
  return v == null ? '' : `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}%`;
}

export function verdictText(v) {
  if (!v) return '';
  let t = v.class;
  if (v.change != null) t += ` ${pct(v.change)}`;
  if (v.interval && v.interval[0] != null && v.interval[1] != null)
    t += ` [${pct(v.interval[0])}, ${pct(v.interval[1])}]`;
  return t;
}

function seriesName(m) {
  return `${m.config} · ${m.location}${m.unit ? ` (${m.unit})` : ''}`;
}

// Draws the change points: a red ring and a dashed line at each.
function changeMarks(changes) {
  return (u) => {
    const { ctx } = u;
    ctx.save();
    ctx.strokeStyle = '#d62728';
    ctx.lineWidth = 2 * devicePixelRatio;
    for (const i of changes) {
      const x = u.valToPos(i, 'x', true);
      const y = u.valToPos(u.data[1][i], 'y', true);
      ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.globalAlpha = 0.35;
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.globalAlpha = 1;
      ctx.beginPath();
      ctx.arc(x, y, 6 * devicePixelRatio, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.restore();
  };
}

class HistoryChart {
  constructor(go) {
    this.go = go;
    this.el = h('div', { class: 'history-chart' });
    this.tip = h('div', { class: 'plot-tip history-tip', hidden: true });
    this.picked = [];
    this.pickInfo = h('span', { class: 'muted history-pick' });
    this.changes = h('div', { class: 'history-changes' });
    this.box = h('div', { class: 'history-box' }, this.el, this.tip);
    this.root = h('div', {}, this.box,
      h('p', { class: 'muted' }, 'Hover a point for its version, click to open it, ' +
        'Shift+click two points to see their diff; drag to zoom, double-click to reset. ',
      this.pickInfo), this.changes);
    this.u = null;
  }

  show(d) {
    this.data = d;
    const pts = d.history.points;
    const xs = pts.map((_, i) => i);
    const med = pts.map((p) => p.median);
    const q1 = pts.map((p) => p.q1);
    const q3 = pts.map((p) => p.q3);
    this.changeIdx = pts.map((p, i) => (p.change_point ? i : -1)).filter((i) => i >= 0);
    if (this.u) this.u.destroy();
    const width = Math.max(400, Math.floor(this.box.getBoundingClientRect().width) || 900);
    this.u = new uPlot({
      width, height: 320,
      scales: { x: { time: false } },
      axes: [
        { label: 'version (oldest → newest)', values: (u, t) => t.map((i) => (d.versions[i] ? d.versions[i].label.slice(0, 7) : '')) },
        { label: d.unit || d.location, values: (u, t) => t.map(si), size: 60 },
      ],
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { size: 8 }, focus: { prox: 30 } },
      series: [
        {},
        { label: 'median', stroke: '#1f77b4', width: 1.5, points: { show: pts.length <= 400, size: 4 } },
        { label: 'q1', stroke: 'rgba(31,119,180,0.25)', width: 1 },
        { label: 'q3', stroke: 'rgba(31,119,180,0.25)', width: 1 },
      ],
      bands: [{ series: [3, 2], fill: 'rgba(31,119,180,0.08)' }],
      hooks: {
        draw: [changeMarks(this.changeIdx)],
        setCursor: [(u) => this.hover(u)],
      },
    }, [xs, med, q1, q3], this.el);
    this.el.velesChart = this;
    this.u.over.addEventListener('click', (e) => this.click(e));
    this.u.over.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    this.picked = [];
    this.pickInfo.textContent = '';
    this.listChanges();
  }

  // Where point @i is on the page (for tests and the keyboard).
  pointPos(i) {
    const r = this.u.over.getBoundingClientRect();
    return { x: r.left + this.u.valToPos(i, 'x'), y: r.top + this.u.valToPos(this.u.data[1][i], 'y') };
  }

  hover(u) {
    const i = u.cursor.idx;
    if (i == null || u.cursor.left < 0) { this.tip.hidden = true; return; }
    const d = this.data;
    const p = d.history.points[i];
    const v = d.versions[i];
    const verdict = d.verdicts[v.id];
    clear(this.tip).append(...[
      h('div', {}, h('strong', { class: 'mono' }, v.label), ' ', v.summary),
      h('div', {}, `median ${fmtNum(p.median)}${d.unit ? ` ${d.unit}` : ''} (q1 ${fmtNum(p.q1)}, q3 ${fmtNum(p.q3)}, n ${p.n})`),
      p.change_point ? h('div', { class: 'verdict-bad' }, `change point: ${pct(p.shift)}`) : null,
      verdict ? h('div', { class: verdictClass(verdict.class) }, verdictText(verdict)) : null,
    ].filter(Boolean));
    this.tip.dataset.version = v.id;
    this.tip.hidden = false;
    const w = this.box.getBoundingClientRect().width;
    this.tip.style.left = `${Math.min(w - 260, u.cursor.left + 70)}px`;
    this.tip.style.top = `${u.cursor.top + 20}px`;
  }

  click(e) {
    const i = this.u.cursor.idx;
    if (i == null) return;
    const id = this.data.versions[i].id;
    if (!e.shiftKey) {
      this.go(`/p/v/${id}`);
      return;
    }
    this.picked = this.picked.filter((x) => x !== id).concat(id).slice(-2);
    if (this.picked.length === 2) {
      const [a, b] = this.picked;
      this.go(`/p/diff?a=${a}&b=${b}`);
      return;
    }
    this.pickInfo.textContent = `Picked ${this.data.versions[i].label}: Shift+click another point.`;
  }

  listChanges() {
    const d = this.data;
    clear(this.changes);
    if (!this.changeIdx.length) {
      this.changes.append(h('p', { class: 'muted' }, 'No change point in this series.'));
      return;
    }
    this.changes.append(h('h3', {}, 'Change points'), h('ul', {}, this.changeIdx.map((i) => {
      const v = d.versions[i];
      const p = d.history.points[i];
      return h('li', { class: p.shift > 0 ? 'verdict-bad' : 'verdict-good' },
        h('a', { href: `/p/v/${v.id}`, class: 'mono', 'data-version': v.id,
          onclick: (e) => { e.preventDefault(); this.go(`/p/v/${v.id}`); } }, v.label),
        ` ${pct(p.shift)} `, h('span', { class: 'muted' }, v.summary));
    })));
  }
}

function refBadges(refs) {
  return refs.map((r) => h('span', { class: `ref ref-${r.kind}` }, r.name));
}

function versionRow(v, go) {
  const open = (e) => { e.preventDefault(); go(`/p/v/${v.id}`); };
  return h('tr', { 'data-version': v.id },
    h('td', {}, h('a', { href: `/p/v/${v.id}`, class: 'mono', onclick: open }, v.label), ' ', refBadges(v.refs)),
    h('td', {}, v.summary),
    h('td', { class: 'muted' }, v.author),
    h('td', { class: 'muted' }, v.time ? new Date(v.time * 1000).toISOString().slice(0, 10) : ''),
    h('td', { class: 'num' }, v.profiles || ''),
    v.verdict_pending
      ? h('td', { class: 'muted' }, 'being checked…')
      : h('td', { class: verdictClass(v.verdict && v.verdict.class) }, verdictText(v.verdict)));
}

// The list, a page at a time: 10,000 versions are not one table at once.
async function versionsList(root, go) {
  const body = h('tbody');
  const more = h('button', { type: 'button', hidden: true }, 'Show more');
  const count = h('span', { class: 'muted' });
  let next = null;
  let shown = 0;
  async function page() {
    const q = next ? `?limit=${PAGE}&after=${next}` : `?limit=${PAGE}`;
    const d = await get(`/api/project/versions${q}`);
    for (const v of d.versions) body.append(versionRow(v, go));
    shown += d.versions.length;
    next = d.next;
    more.hidden = !next;
    count.textContent = ` ${shown} of ${d.total} versions`;
  }
  more.addEventListener('click', () => page());
  root.append(h('h2', {}, 'Versions', count),
    h('table', { class: 'history-versions' },
      h('thead', {}, h('tr', {}, ['Version', 'Summary', 'Author', 'Date', 'Profiles', 'Check against parent'].map((t) => h('th', {}, t)))),
      body), more);
  await page();
}

export async function historyScreen(root, go, ctx) {
  const head = ctx.info.head;
  const chartBox = h('section', { class: 'history' });
  const listBox = h('section', { class: 'history-list' });
  root.append(
    h('p', {}, 'Current version: ',
      head ? h('span', { class: 'mono' }, head.short) : 'none yet',
      head ? ` ${head.summary}` : ''),
    chartBox, listBox);
  let metrics = [];
  try {
    metrics = (await get('/api/project/metrics')).metrics;
  } catch (e) {
    chartBox.append(h('p', { class: 'msg' }, e.message));
  }
  if (metrics.length) {
    const want = new URLSearchParams(location.search).get('series');
    const select = h('select', { id: 'history-series' }, metrics.map((m) =>
      h('option', { value: m.id, title: m.config_full }, `${seriesName(m)} — ${m.points} versions`)));
    if (want && metrics.some((m) => String(m.id) === want)) select.value = want;
    const chart = new HistoryChart(go);
    const msg = h('p', { class: 'msg', hidden: true });
    const load = async () => {
      try {
        msg.hidden = true;
        chart.show(await get(`/api/project/history?series=${select.value}`));
      } catch (e) {
        msg.textContent = e.message;
        msg.hidden = false;
      }
    };
    select.addEventListener('change', load);
    chartBox.append(h('h2', {}, 'History'), h('label', {}, 'Metric: ', select), msg, chart.root);
    await load();
  } else if (!chartBox.firstChild) {
    chartBox.append(h('p', { class: 'muted' }, 'No profile in this project yet: ' +
      '`veles add` one (or `veles run matrix`), and its history shows here.'));
  }
  try {
    await versionsList(listBox, go);
  } catch (e) {
    listBox.append(h('p', { class: 'msg' }, e.message));
  }
  return null;
}
