// The plots: a line per event over time (uPlot), with drag box zoom, wheel
// zoom, Shift+drag pan, a tooltip, PNG export and, for long series, data
// fetched for the visible range only (the server summarises, exact once
// zoomed in far enough); and a histogram of one event's values. A plot is
// made once: new data and new series go into the same widget.
import uPlot from 'uplot';
import { h, fmtNum } from './widgets.js';

export const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b',
  '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

/* Axis numbers short: 1.5k, 20M, 3.2G. */
export function si(v) {
  const a = Math.abs(v);
  for (const [d, s] of [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']])
    if (a >= d) return `${+(v / d).toPrecision(3)}${s}`;
  return String(+v.toPrecision(4));
}

/* The plot's box: the container's width; its height from the page's CSS
 * variable --plot-height (the full-screen page makes it taller). The
 * legend goes below, outside this box. */
function size(el) {
  const r = el.getBoundingClientRect();
  const css = parseFloat(getComputedStyle(el).getPropertyValue('--plot-height'));
  const height = css > 0 ? (css < 1 ? Math.floor(window.innerHeight * css) : css) : 320;
  return { width: Math.max(320, Math.floor(r.width) || 800), height: Math.max(200, height) };
}

/* Wheel zooms x around the cursor; Shift+drag pans x. */
function zoomPan(plot) {
  const u = plot.u, over = u.over;
  over.addEventListener('wheel', (e) => {
    e.preventDefault();
    const x = u.scales.x;
    if (x.min == null) return;
    const f = e.deltaY < 0 ? 0.8 : 1.25, at = u.posToVal(e.offsetX, 'x');
    plot.userZoom = true;
    u.setScale('x', { min: at - (at - x.min) * f, max: at + (x.max - at) * f });
  }, { passive: false });
  over.addEventListener('mousedown', (e) => {
    if (!e.shiftKey) return;
    e.stopPropagation();
    e.preventDefault();
    const x0 = e.clientX, min = u.scales.x.min, max = u.scales.x.max;
    const per = (max - min) / (u.bbox.width / devicePixelRatio);
    const move = (m) => {
      const d = (m.clientX - x0) * per;
      plot.userZoom = true;
      u.setScale('x', { min: min - d, max: max - d });
    };
    const up = () => {
      document.removeEventListener('mousemove', move);
      document.removeEventListener('mouseup', up);
    };
    document.addEventListener('mousemove', move);
    document.addEventListener('mouseup', up);
  }, true);
  // A box dragged is a zoom of the user's; a double-click undoes zooms.
  over.addEventListener('mousedown', () => { plot.dragging = true; });
  over.addEventListener('dblclick', () => plot.resetZoom());
}

export class TimePlot {
  constructor(container, opts = {}) {
    this.el = h('div', { class: 'plot' });
    this.tip = h('div', { class: 'tip', hidden: true });
    container.append(this.el, this.tip);
    this.names = [];
    this.units = [];
    this.t = [];
    this.cols = [];
    this.loader = null; // (from, to, points) => Promise<{t, v, exact}>
    this.full = null; // the unzoomed range [min, max] for a loaded run
    this.pending = false;
    this.onPoints = opts.onPoints || null;
    this.u = new uPlot(this.options([]), [[]], this.el);
    zoomPan(this);
    this.resizer = new ResizeObserver(() => this.resize());
    this.resizer.observe(this.el);
  }

  options(series) {
    return {
      ...size(this.el),
      cursor: { drag: { x: true, y: true, uni: 30 }, points: { size: 6 } },
      scales: { x: { time: false } },
      legend: { show: true },
      axes: [{ label: 'time (s)' }, { size: 60, values: (u, splits) => splits.map(si) }],
      series: [{ label: 'time (s)', value: (u, v) => (v == null ? '–' : v.toFixed(3)) }, ...series],
      hooks: {
        setCursor: [(u) => this.showTip(u)],
        setSelect: [() => { if (this.dragging) this.userZoom = true; this.dragging = false; }],
        setScale: [(u, key) => { if (key === 'x') this.zoomed(); }],
      },
    };
  }

  seriesOf(i) {
    const unit = this.units[i] ? ` (${this.units[i]})` : '';
    return { label: this.names[i] + unit, stroke: palette[i % palette.length], width: 1.5,
      show: !(this.hidden || []).includes(this.names[i]),
      spanGaps: false, value: (u, v) => fmtNum(v) };
  }

  /* New columns: the same widget, its series replaced. @hidden: names
   * shown only once their legend entry is clicked. */
  setColumns(names, units, hidden) {
    if (hidden) this.hidden = hidden;
    this.gen = (this.gen || 0) + 1;
    clearTimeout(this.zoomTimer);
    // The same series when names and units are (a stored run's units
    // come with its data): labels and tooltips say the unit.
    units = units || [];
    const same = names.length === this.names.length && names.every((n, i) => n === this.names[i] && (units[i] || '') === (this.units[i] || ''));
    this.names = names.slice();
    this.units = units.slice();
    this.t = [];
    this.cols = names.map(() => []);
    this.full = null;
    if (!same) {
      while (this.u.series.length > 1) this.u.delSeries(1);
      names.forEach((_, i) => this.u.addSeries(this.seriesOf(i)));
    }
    this.draw(true);
  }

  /* The columns' units, once known (a live run's come with its first
   * rows): the labels say them, the data stays. */
  setUnits(units) {
    if (this.names.every((_, i) => (units[i] || '') === (this.units[i] || ''))) return;
    this.units = this.names.map((_, i) => units[i] || '');
    this.names.forEach((_, i) => {
      this.u.delSeries(i + 1);
      this.u.addSeries(this.seriesOf(i), i + 1);
    });
    this.draw(!this.userZoom);
  }

  /* Appends rows: t[k] with v[c][k] for column c. */
  append(t, v) {
    for (let k = 0; k < t.length; k++) this.t.push(t[k]);
    v.forEach((col, c) => { for (const x of col) this.cols[c].push(x); });
    this.schedule();
  }

  setData(t, v, full) {
    this.t = t.slice();
    this.cols = v.map((c) => c.slice());
    if (full) this.full = full;
    this.draw(true);
  }

  /* Live rows are drawn ten times a second at most, however fast they
   * come: a redraw costs the page more than a row, and many pages may
   * follow one run on one machine. */
  schedule() {
    if (this.pending) return;
    this.pending = true;
    const wait = Math.max(0, 100 - (performance.now() - (this.lastDraw || 0)));
    setTimeout(() => requestAnimationFrame(() => {
      this.pending = false;
      this.lastDraw = performance.now();
      this.draw(!this.userZoom);
    }), wait);
  }

  draw(reset) {
    this.u.setData([this.t, ...this.cols], reset);
    if (reset) this.userZoom = false;
    if (this.onPoints) this.onPoints(this.t.length);
  }

  /* A zoom by the user (wheel, pan, a box): refetch the visible range
   * when the data we hold is a summary. New data's own scales are not
   * zooms (uPlot reports them too, a moment later). */
  zoomed() {
    if (!this.userZoom || !this.loader || !this.full) return;
    const x = this.u.scales.x, load = this.loader, gen = this.gen;
    clearTimeout(this.zoomTimer);
    this.zoomTimer = setTimeout(async () => {
      const points = Math.max(200, Math.floor(this.u.bbox.width / devicePixelRatio));
      const d = await load(x.min, x.max, points);
      if (!d || gen !== this.gen) return; // another run's data came meanwhile
      this.t = d.t;
      this.cols = d.v;
      this.u.setData([this.t, ...this.cols], false);
    }, 80);
  }

  resize() {
    const s = size(this.el);
    if (s.width !== this.u.width || s.height !== this.u.height) this.u.setSize(s);
  }

  showTip(u) {
    const i = u.cursor.idx;
    if (i == null || u.cursor.left < 0) { this.tip.hidden = true; return; }
    const lines = [`t = ${(+u.data[0][i]).toFixed(4)} s`];
    for (let s = 1; s < u.series.length; s++) lines.push(`${u.series[s].label}: ${fmtNum(u.data[s][i])}`);
    this.tip.textContent = lines.join('\n');
    this.tip.hidden = false;
    const r = this.el.getBoundingClientRect();
    this.tip.style.left = `${Math.min(r.width - 180, u.cursor.left + 70)}px`;
    this.tip.style.top = `${u.cursor.top + 30}px`;
  }

  resetZoom() {
    this.userZoom = false;
    this.dragging = false;
    if (this.full && this.loader) {
      const gen = this.gen;
      this.loader(this.full[0], this.full[1], 2000).then((d) => d && gen === this.gen && this.setData(d.t, d.v));
    } else {
      this.draw(true);
    }
  }

  /* The plot as a PNG file, on white, with its legend's labels. */
  savePNG(name) {
    const src = this.u.ctx.canvas, c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height + 24 * devicePixelRatio;
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, c.width, c.height);
    g.drawImage(src, 0, 0);
    g.font = `${12 * devicePixelRatio}px sans-serif`;
    let x = 10;
    this.names.forEach((n, i) => {
      g.fillStyle = palette[i % palette.length];
      g.fillText(n, x, src.height + 16 * devicePixelRatio);
      x += g.measureText(n).width + 20;
    });
    const a = h('a', { href: c.toDataURL('image/png'), download: name || 'veles-plot.png' });
    document.body.append(a);
    a.click();
    a.remove();
  }
}

/* Bars of a histogram: bin centres and counts. */
export class Histogram {
  constructor(container) {
    this.el = h('div', { class: 'plot hist' });
    container.append(this.el);
    this.u = new uPlot({
      width: size(this.el).width, height: 220,
      scales: { x: { time: false } },
      axes: [{ label: 'value', values: (u, splits) => splits.map(si) }, { label: 'intervals', size: 60 }],
      series: [{ label: 'value', value: (u, v) => fmtNum(v) },
        { label: 'count', fill: '#1f77b480', stroke: '#1f77b4', paths: uPlot.paths.bars({ size: [0.95, 100] }),
          points: { show: false }, value: (u, v) => (v == null ? '–' : String(v)) }],
    }, [[], []], this.el);
    new ResizeObserver(() => {
      const s = size(this.el);
      if (s.width !== this.u.width) this.u.setSize({ width: s.width, height: 220 });
    }).observe(this.el);
  }

  set(edges, counts) {
    const x = counts.map((_, i) => (edges[i] + edges[i + 1]) / 2);
    this.u.setData([x, counts]);
  }
}
