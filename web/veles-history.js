/* Draws VELES_HISTORY (`veles log --perf KEY -o FILE.html`, and the browser
 * pages of `veles serve`) with uPlot: per series, the versions across, the
 * median on a line with the quartiles as a band, and each change point as
 * a dashed line with its shift. Hovering a point shows its commit, date,
 * subject and values; drag and wheel zoom, Shift+drag pans. */
(function () {
  'use strict';
  const H = VELES_HISTORY;
  const byId = new Map(H.versions.map((v) => [v.id, v]));
  const colour = H.palette[0];
  const { fmt, width, zoomPan } = VelesChart;
  const pct = (v) => (v >= 0 ? '+' : '') + (100 * v).toFixed(1) + '%';
  const date = (t) => new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ');

  /* The dashed line before each change point, its shift at the top. */
  function changeMarks(s) {
    return (u) => {
      const ctx = u.ctx, top = u.bbox.top, bot = top + u.bbox.height;
      ctx.save();
      ctx.strokeStyle = H.change_colour;
      ctx.fillStyle = H.change_colour;
      ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
      ctx.font = `bold ${11 * devicePixelRatio}px sans-serif`;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'alphabetic';
      s.points.forEach((p, i) => {
        if (!p.change_point || i === 0) return;
        const x = u.valToPos(i - 0.5, 'x', true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, bot);
        ctx.stroke();
        if (p.shift != null) ctx.fillText(pct(p.shift), x + 3 * devicePixelRatio, top + 12 * devicePixelRatio);
        /* The point that starts the new segment, in the same colour. */
        ctx.setLineDash([]);
        ctx.beginPath();
        ctx.arc(u.valToPos(i, 'x', true), u.valToPos(p.median, 'y', true), 5 * devicePixelRatio, 0, 2 * Math.PI);
        ctx.fill();
      });
      ctx.restore();
    };
  }

  /* What the tooltip says of point @i of series @s. */
  function describe(s, i) {
    const p = s.points[i], v = byId.get(p.version) || { label: p.version, time: 0, summary: '' };
    const unit = s.unit ? ' ' + s.unit : '';
    const lines = [
      [v.label + '  ' + date(v.time), 'commit'],
      [v.summary, 'summary'],
      ['median ' + fmt(p.median) + unit + '   q1..q3 ' + fmt(p.q1) + '..' + fmt(p.q3) + '   n ' + p.n, ''],
    ];
    if (p.change_point && p.shift != null) lines.push(['change point: shift ' + pct(p.shift), 'shift']);
    return lines;
  }

  function tooltip(s, el) {
    const tip = document.createElement('div');
    tip.className = 'history-tip';
    tip.style.display = 'none';
    el.appendChild(tip);
    return (u) => {
      const i = u.cursor.idx;
      if (i == null || u.cursor.left < 0) {
        tip.style.display = 'none';
        return;
      }
      tip.replaceChildren(...describe(s, i).map(([text, cls]) => {
        const d = document.createElement('div');
        d.textContent = text;
        if (cls) d.className = cls;
        return d;
      }));
      const x = u.valToPos(i, 'x'), y = u.valToPos(s.points[i].median, 'y');
      const o = u.over.getBoundingClientRect(), c = el.getBoundingClientRect();
      tip.style.display = 'block';
      tip.style.left = Math.max(0, Math.min(o.left - c.left + x + 12, el.clientWidth - 390)) + 'px';
      tip.style.top = (o.top - c.top + y + 12) + 'px';
    };
  }

  function chart(s, el) {
    const pts = s.points, n = pts.length;
    const x = pts.map((_, i) => i);
    const label = (i) => { const v = byId.get(pts[i].version); return v ? v.label : ''; };
    const ys = pts.flatMap((p) => [p.q1, p.q3, p.median]).filter((v) => v != null);
    const lo = Math.min(...ys), hi = Math.max(...ys), pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
    return {
      data: [x, pts.map((p) => p.median), pts.map((p) => p.q1), pts.map((p) => p.q3)],
      scales: {
        x: { time: false, range: (u, min, max) => (min === 0 && max === n - 1)
          ? [-0.5, n - 0.5] : [min, max] },
        y: { range: () => [lo - pad, hi + pad] },
      },
      bands: [{ series: [3, 2], fill: colour + '2e' }],
      series: [
        { label: 'version', value: (u, v) => v == null ? '-' : label(Math.round(v)) },
        { label: 'median' + (s.unit ? ' (' + s.unit + ')' : ''), stroke: colour, width: 2,
          points: { show: true, size: 7, fill: (u, si) => colour },
          value: (u, v) => fmt(v) },
        { label: 'q1', stroke: colour + '66', width: 1, points: { show: false }, value: (u, v) => fmt(v) },
        { label: 'q3', stroke: colour + '66', width: 1, points: { show: false }, value: (u, v) => fmt(v) },
      ],
      axes: [
        { label: 'version (oldest first)', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
          values: (u, splits) => splits.map((v) => Number.isInteger(v) && v >= 0 && v < n ? label(v) : '') },
        { label: 'median' + (s.unit ? ' (' + s.unit + ')' : ''), size: 70,
          values: (u, splits) => splits.map(fmt) },
      ],
    };
  }

  const root = document.getElementById('charts');
  const charts = window.velesCharts = []; /* for the browser tests */
  window.velesHistory = { describe: (k, i) => describe(H.series[k], i).map(([t]) => t) };
  H.series.forEach((s) => {
    const h = document.createElement('h2');
    h.textContent = s.config + ': ' + s.location;
    h.title = s.config_full;
    root.appendChild(h);
    const el = document.createElement('div');
    el.className = 'chart history';
    root.appendChild(el);
    const o = chart(s, el);
    const u = new uPlot({
      width: width(), height: 380, scales: o.scales, series: o.series, axes: o.axes,
      bands: o.bands,
      cursor: { drag: { x: true, y: false }, points: { show: true } },
      legend: { live: true },
      hooks: { draw: [changeMarks(s)], setCursor: [tooltip(s, el)] },
    }, o.data, el);
    zoomPan(u);
    charts.push(u);
    window.addEventListener('resize', () => u.setSize({ width: width(), height: 380 }));
  });
})();
