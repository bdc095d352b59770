/* Draws VELES_FIGURE (written by `veles show ... -o FILE.html`) with uPlot:
 * bars, flow and scatter, with drag and wheel zoom, Shift+drag pan and the
 * values under the cursor in the legend. */
(function () {
  'use strict';
  const fig = VELES_FIGURE;
  const color = (i) => fig.palette[i % fig.palette.length];
  const { fmt, width, zoomPan } = VelesChart;

  /* Bars of every series at x index i: side by side, or stacked. */
  function barPaths(pl, stacked) {
    return (u, si, i0, i1) => {
      const p = new Path2D(), n = pl.series.length, s = si - 1;
      const band = Math.abs(u.valToPos(1, 'x', true) - u.valToPos(0, 'x', true));
      const bw = band * 0.8 / (stacked ? 1 : n);
      for (let i = i0; i <= i1; i++) {
        const v = pl.series[s].y[i];
        if (v == null || v <= 0) continue;
        let base = 0;
        if (stacked)
          for (let k = 0; k < s; k++) base += Math.max(pl.series[k].y[i] || 0, 0);
        const left = u.valToPos(i, 'x', true) - band * 0.4 + (stacked ? 0 : bw * s);
        const top = u.valToPos(base + v, 'y', true), bot = u.valToPos(base, 'y', true);
        p.rect(left, top, bw, bot - top);
      }
      return { stroke: p, fill: p };
    };
  }

  function stackedMax(pl) {
    let m = 0;
    pl.x.forEach((_, i) => {
      let s = 0, top = 0;
      pl.series.forEach((se) => { s += se.y[i] || 0; top = Math.max(top, se.y[i] || 0); });
      m = Math.max(m, fig.stacked ? s : top);
    });
    return m || 1;
  }

  function barsOpts(pl) {
    const n = pl.x.length, ymax = stackedMax(pl) * 1.05;
    return {
      data: [pl.x, ...pl.series.map((s) => s.y)],
      scales: {
        x: { time: false, range: (u, min, max) => (min === 0 && max === n - 1)
          ? [-0.5, n - 0.5] : [min, max] },
        y: { range: () => [0, ymax] },
      },
      series: [
        { label: pl.xlabel, value: (u, v) => v == null ? '-' : pl.xcat[Math.round(v)] },
        ...pl.series.map((s, i) => ({
          label: s.label, stroke: color(i), fill: color(i), width: 0,
          paths: barPaths(pl, fig.stacked), points: { show: false },
          value: (u, v) => fmt(v),
        })),
      ],
      axes: [
        { label: pl.xlabel, incrs: [1, 2, 5, 10, 20, 50, 100],
          values: (u, splits) => splits.map((v) => Number.isInteger(v) && pl.xcat[v] != null
            ? (pl.xcat[v].length > 18 ? pl.xcat[v].slice(0, 17) + '\u2026' : pl.xcat[v]) : '') },
        { label: pl.ylabel, size: 70, values: (u, splits) => splits.map(fmt) },
      ],
    };
  }

  function flowOpts(pl) {
    const stacked = fig.stacked, run = pl.x.map(() => 0);
    const ys = pl.series.map((s) => s.y.map((v, i) => stacked ? (run[i] += v || 0) : v));
    /* stacked areas: the topmost first, each lower one painted over it */
    const order = stacked ? ys.map((_, i) => ys.length - 1 - i) : ys.map((_, i) => i);
    return {
      data: [pl.x, ...order.map((i) => ys[i])],
      scales: { x: { time: false } },
      series: [
        { label: pl.xlabel, value: (u, v) => fmt(v) },
        ...order.map((i) => ({
          label: pl.series[i].label, stroke: color(i), width: 2, spanGaps: true,
          fill: stacked ? color(i) : undefined, points: { size: 5 },
          value: (u, v, si, idx) => idx == null ? '-' : fmt(pl.series[i].y[idx]),
        })),
      ],
      axes: [
        { label: pl.xlabel, values: (u, splits) => splits.map(fmt) },
        { label: pl.ylabel, size: 70, values: (u, splits) => splits.map(fmt) },
      ],
    };
  }

  /* Scatter: x is every point's and curve's x; the points series draws all
   * measurements itself (several may share an x) and lists them on hover. */
  function scatterOpts(pl) {
    const xs = Array.from(new Set([...pl.points.x, ...pl.curves.flatMap((c) => c.x)]))
      .sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const byX = xs.map(() => []);
    pl.points.x.forEach((x, i) => byX[at.get(x)].push(pl.points.y[i]));
    const pts = byX.map((v) => v.length ? v[0] : null);
    const curves = pl.curves.map((c) => {
      const y = xs.map(() => null);
      c.x.forEach((x, i) => { y[at.get(x)] = c.y[i]; });
      return y;
    });
    const dots = (u) => {
      const p = new Path2D();
      pl.points.x.forEach((x, i) => {
        const cx = u.valToPos(x, 'x', true), cy = u.valToPos(pl.points.y[i], 'y', true);
        p.moveTo(cx + 3.5 * devicePixelRatio, cy);
        p.arc(cx, cy, 3.5 * devicePixelRatio, 0, 2 * Math.PI);
      });
      return { fill: p, stroke: p };
    };
    /* a curve as its own polyline: a regressogram's steps share their x */
    const curve = (c) => (u) => {
      const p = new Path2D();
      c.x.forEach((x, i) => {
        const px = u.valToPos(x, 'x', true), py = u.valToPos(c.y[i], 'y', true);
        if (i) p.lineTo(px, py); else p.moveTo(px, py);
      });
      return { stroke: p };
    };
    const ys = [...pl.points.y, ...pl.curves.flatMap((c) => c.y)].filter((v) => v != null);
    const ymin = Math.min(0, ...ys), ymax = Math.max(...ys);
    return {
      data: [xs, pts, ...curves],
      scales: { x: { time: false }, y: { range: () => [ymin, ymax > ymin ? ymax * 1.05 : ymin + 1] } },
      series: [
        { label: pl.xlabel, value: (u, v) => fmt(v) },
        { label: 'measurements', stroke: color(0), fill: color(0) + 'aa', width: 0,
          paths: dots, points: { show: false },
          value: (u, v, si, idx) => idx == null || !byX[idx].length ? '-'
            : byX[idx].slice(0, 6).map(fmt).join(', ') + (byX[idx].length > 6 ? ', \u2026' : '') },
        ...pl.curves.map((c, i) => ({
          label: c.label, stroke: color(i + 1), width: 2.5, spanGaps: true,
          paths: curve(c), points: { show: false }, value: (u, v) => fmt(v),
        })),
      ],
      axes: [
        { label: pl.xlabel, values: (u, splits) => splits.map(fmt) },
        { label: pl.ylabel, size: 70, values: (u, splits) => splits.map(fmt) },
      ],
    };
  }

  const build = { bars: barsOpts, flow: flowOpts, scatter: scatterOpts }[fig.kind];
  const root = document.getElementById('charts');
  const charts = window.velesCharts = []; /* for the browser tests */
  fig.plots.forEach((pl) => {
    if (pl.title) {
      const h = document.createElement('h2');
      h.textContent = pl.title;
      root.appendChild(h);
    }
    const el = document.createElement('div');
    el.className = 'chart';
    root.appendChild(el);
    const o = build(pl);
    const u = new uPlot({
      width: width(), height: 380, scales: o.scales, series: o.series, axes: o.axes,
      cursor: { drag: { x: true, y: false }, points: { show: fig.kind !== 'bars' } },
      legend: { live: true },
    }, o.data, el);
    zoomPan(u);
    charts.push(u);
    window.addEventListener('resize', () => u.setSize({ width: width(), height: 380 }));
  });
})();
