/* What the figures (veles-view.js) and the history charts
 * (veles-history.js) share, embedded before either: the number format,
 * the chart's width, and wheel zoom with Shift+drag pan along x. */
var VelesChart = (function () {
  'use strict';
  const fmt = (v) => v == null ? '-' : (Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3))
    ? v.toPrecision(4) : String(+v.toPrecision(6));

  function width() {
    return Math.max(420, Math.min(1100, document.body.clientWidth - 20));
  }

  /* Wheel zooms x around the cursor; Shift+drag pans x. */
  function zoomPan(u) {
    const over = u.over;
    over.addEventListener('wheel', (e) => {
      e.preventDefault();
      const x = u.scales.x, f = e.deltaY < 0 ? 0.8 : 1.25;
      const at = u.posToVal(e.offsetX, 'x');
      u.setScale('x', { min: at - (at - x.min) * f, max: at + (x.max - at) * f });
    }, { passive: false });
    over.addEventListener('mousedown', (e) => {
      if (!e.shiftKey) return;
      e.stopPropagation();
      e.preventDefault();
      const x0 = e.clientX, min = u.scales.x.min, max = u.scales.x.max;
      const per = (max - min) / u.bbox.width * devicePixelRatio;
      over.classList.add('panning');
      const move = (m) => {
        const d = (m.clientX - x0) * per;
        u.setScale('x', { min: min - d, max: max - d });
      };
      const up = () => {
        over.classList.remove('panning');
        document.removeEventListener('mousemove', move);
        document.removeEventListener('mouseup', up);
      };
      document.addEventListener('mousemove', move);
      document.addEventListener('mouseup', up);
    }, true);
  }

  return { fmt, width, zoomPan };
}());
