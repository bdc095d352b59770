/* Makes a flame graph Veles drew (src/view/flame_svg.c) interactive, from
 * inside its SVG, opened alone or inline in a page: a click zooms into a
 * frame (its callers stay drawn across, dimmed; a click on one zooms out to
 * it), "back" and "reset zoom" undo; the search box highlights the frames
 * whose name holds its text (or matches /regex/) and prints their share;
 * the tooltip gives a frame's value in the profile's unit and its share of
 * the total and of its parent, or of two profiles both values and the
 * change. Every name is set as text, never as markup. */
(function () {
  'use strict';
  const NS = 'http://www.w3.org/2000/svg', XHTML = 'http://www.w3.org/1999/xhtml';

  /* ---- values as human_value() in src/util/human.c writes them ---- */
  const TIME = { ns: 1e-9, us: 1e-6, '\u00b5s': 1e-6, ms: 1e-3, s: 1, sec: 1 };
  const BYTES = { B: 1, bytes: 1, byte: 1, KiB: 1024, MiB: 1048576, GiB: 1073741824 };
  function sig4(v) {
    const a = Math.abs(v);
    if (a >= 1e15 || (a > 0 && a < 1e-3)) return String(Number(v.toPrecision(4)));
    const e = v === 0 ? 0 : Math.floor(Math.log10(a));
    let s = v.toFixed(e >= 3 ? 0 : 3 - e);
    if (s.indexOf('.') >= 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
    return s === '-0' ? '0' : s;
  }
  function plain(v) {
    const a = Math.abs(v);
    if (a >= 1e15 || (a > 0 && a < 1e-3)) return String(Number(v.toPrecision(4)));
    if (v === Math.floor(v))
      return (v < 0 ? '-' : '') + a.toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return sig4(v);
  }
  function fmtValue(v, u) {
    if (!isFinite(v)) return isNaN(v) ? '-' : v > 0 ? 'inf' : '-inf';
    if (Object.prototype.hasOwnProperty.call(TIME, u)) {
      const s = Math.abs(v) * TIME[u];
      const k = s === 0 ? 3 : s < 1e-6 ? 0 : s < 1e-3 ? 1 : s < 1 ? 2 : 3;
      return sig4(v * TIME[u] / Math.pow(1000, k - 3)) + ' ' + ['ns', '\u00b5s', 'ms', 's'][k];
    }
    if (Object.prototype.hasOwnProperty.call(BYTES, u)) {
      let s = Math.abs(v) * BYTES[u], k = 0;
      while (k < 4 && s >= 1024) { s /= 1024; k++; }
      return (k ? sig4(v * BYTES[u] / Math.pow(1024, k)) : plain(v * BYTES[u])) + ' ' +
        ['B', 'KiB', 'MiB', 'GiB', 'TiB'][k];
    }
    return plain(v) + (u ? ' ' + u : '');
  }
  function fmtPercent(p, sign) {
    const a = Math.abs(p), plus = sign && p > 0 ? '+' : '';
    if (!isFinite(p)) return '-';
    if (a === 0) return '0%';
    if (a < 0.01) return (p < 0 ? '-' : plus) + '<0.01%';
    return plus + p.toFixed(a < 1 ? 2 : 1) + '%';
  }

  /* Makes one flame graph's SVG interactive, once. */
  function init(svg) {
    if (!svg || svg.velesFlame) return svg ? svg.velesFlame : null;
    const attr = (el, a) => el.getAttribute(a);
    const unit = attr(svg, 'data-unit') || '', diff = attr(svg, 'data-diff') === '1';
    const pad = +attr(svg, 'data-pad'), inner = +attr(svg, 'data-inner');
    const vb = svg.viewBox.baseVal, W = vb.width, H = vb.height;
    const fmt = (v) => fmtValue(v, unit);
    const cut = (s, n) => s.length > n ? s.slice(0, n) + '\u2026' : s;
    function make(tag, attrs, parent, ns) {
      const el = document.createElementNS(ns || NS, tag);
      for (const k in attrs) el.setAttribute(k, attrs[k]);
      if (parent) parent.appendChild(el);
      return el;
    }

    /* ---- the frames, in the order drawn: each after its parent ---- */
    /* Each <g> holds <title>, <rect> and maybe <text>; the name is the
     * title's first line, read when first needed (a graph may have 50,000
     * frames, and the page should not wait for them). */
    class Frame {
      constructor(g, i) {
        this.g = g;
        this.i = i;
        this.title = g.firstElementChild;
        this.rect = this.title.nextElementSibling;
        this.text = this.rect.nextElementSibling;
        this.p = +attr(g, 'data-p');
        this.x = +attr(g, 'data-x');
        this.v = +attr(g, 'data-v');
        this.b = +attr(g, 'data-b');
        this.t = +attr(g, 'data-t');
        this.end = 0;
        this.kids = 0;
        g.velesFrame = this;
      }
      get name() {
        if (this.cached === undefined)
          this.cached = this.title ? this.title.textContent.split('\n')[0] : '';
        return this.cached;
      }
      /* Our tooltip replaces the browser's, which the <title> would show. */
      untitle() {
        if (!this.title) return;
        this.cached = this.name;
        this.title.remove();
        this.title = null;
      }
    }
    const frames = Array.from(svg.querySelectorAll('g.f'), (g, i) => new Frame(g, i));
    if (!frames.length) return;
    const open = [];
    frames.forEach((f, i) => {
      while (open.length && open[open.length - 1] !== f.p) frames[open.pop()].end = i;
      open.push(i);
      if (f.p >= 0) frames[f.p].kids += f.v;
    });
    while (open.length) frames[open.pop()].end = frames.length;
    const total = frames[0].v;

    /* ---- controls: back, reset, search; the matched share below ---- */
    const back = make('text', { x: pad, y: 24, class: 'fg-btn', display: 'none' }, svg);
    back.textContent = '\u25c2 back';
    const reset = make('text', { x: pad + 60, y: 24, class: 'fg-btn', display: 'none' }, svg);
    reset.textContent = 'reset zoom';
    const box = make('foreignObject', { x: W - pad - 262, y: 6, width: 262, height: 26 }, svg);
    const input = make('input', {
      type: 'search', class: 'fg-search', placeholder: 'search: text, or /regex/',
      'aria-label': 'search frames', spellcheck: 'false',
      style: 'width:250px;box-sizing:border-box;font:12px sans-serif;padding:3px 5px',
    }, box, XHTML);
    const matched = make('text', { x: W - pad, y: H - 25, class: 'fg-note fg-matched',
      'text-anchor': 'end' }, svg);
    const tip = make('g', { class: 'fg-tip', display: 'none' }, null);
    const tipRect = make('rect', { rx: 3 }, tip), tipText = make('text', {}, tip);

    let focus = 0, lit = false; /* lit: some frame may be highlighted */
    const history = [];

    function label(f, x, w) {
      if (w <= 30) {
        if (f.text) f.text.setAttribute('display', 'none');
        return;
      }
      if (!f.text) f.text = make('text', { y: (+attr(f.rect, 'y') + 12).toFixed(1) }, f.g);
      f.text.removeAttribute('display');
      f.text.setAttribute('x', (x + 3).toFixed(2));
      f.text.textContent = cut(f.name, Math.floor((w - 6) / 7));
    }

    function layout() {
      const F = frames[focus], line = new Set();
      for (let j = focus; j >= 0; j = frames[j].p) line.add(j);
      frames.forEach((f, j) => {
        let x = pad, w = 0;
        if (line.has(j)) w = inner;
        else if (j > focus && j < F.end) {
          x = pad + (f.x - F.x) / F.v * inner;
          w = f.v / F.v * inner;
        }
        f.g.classList.toggle('fg-anc', line.has(j) && j !== focus);
        if (w < 0.1) {
          f.g.setAttribute('display', 'none');
          return;
        }
        f.g.removeAttribute('display');
        f.rect.setAttribute('x', x.toFixed(2));
        f.rect.setAttribute('width', w.toFixed(2));
        label(f, x, w);
      });
      back.setAttribute('display', history.length ? 'inline' : 'none');
      reset.setAttribute('display', focus ? 'inline' : 'none');
      search();
    }

    function zoom(j, remember) {
      if (j === focus || !frames[j]) return;
      if (remember) history.push(focus);
      focus = j;
      layout();
    }

    /* Text: a case-insensitive substring; /re/flags: a regular expression. */
    function matcher(q) {
      const m = /^\/(.+)\/([a-z]*)$/.exec(q);
      if (!m) {
        const low = q.toLowerCase();
        return (s) => s.toLowerCase().indexOf(low) >= 0;
      }
      try {
        const re = new RegExp(m[1], m[2].replace(/[gy]/g, ''));
        return (s) => re.test(s);
      } catch (e) {
        return null;
      }
    }

    /* Highlights the matches; their share counts a match inside another
     * match once, so it never passes 100%. */
    function search() {
      const q = input.value, test = q ? matcher(q) : null;
      let n = 0, sum = 0, inFocus = 0, covered = 0, coveredIn = 0;
      const F = frames[focus];
      if (!q && !lit) { /* nothing to clear in every frame */
        matched.textContent = '';
        return;
      }
      lit = !!test;
      frames.forEach((f, j) => {
        const hit = !!test && j > 0 && test(f.name);
        f.g.classList.toggle('fg-hit', hit);
        if (!hit) return;
        n++;
        /* a caller of the zoomed frame that matches holds all of it */
        if (j < focus && F.i < f.end) inFocus = F.v;
        if (j >= focus && j < F.end && j >= coveredIn && inFocus < F.v) {
          coveredIn = f.end;
          inFocus += f.v;
        }
        if (j < covered) return;
        covered = f.end;
        sum += f.v;
      });
      if (!q) matched.textContent = '';
      else if (!test) matched.textContent = 'not a regular expression: ' + cut(q, 60);
      else {
        matched.textContent = 'matched ' + n + (n === 1 ? ' frame: ' : ' frames: ') + fmt(sum) +
          ', ' + fmtPercent(total > 0 ? 100 * sum / total : 0) + ' of all' +
          (focus ? ', ' + fmtPercent(100 * inFocus / F.v) + ' of ' + cut(F.name, 40) : '');
      }
    }

    function tipLines(f) {
      const lines = [cut(f.name, 110)], par = f.p >= 0 ? frames[f.p] : null;
      if (diff) {
        const d = f.t - f.b;
        lines.push('baseline: ' + fmt(f.b));
        lines.push('target: ' + fmt(f.t));
        lines.push('change: ' + (d > 0 ? '+' : '') + fmt(d) + ' (' +
          (f.b > 0 ? fmtPercent(100 * (f.t / f.b - 1), true) : f.t > 0 ? 'new' : 'none') + ')');
      } else {
        const self = f.g.hasAttribute('data-s') ? +attr(f.g, 'data-s') : f.v - f.kids;
        /* what rounding leaves of a sum minus its parts is nothing */
        lines.push('total: ' + fmt(f.v) + ' \u00b7 self: ' + fmt(self > f.v * 1e-9 ? self : 0));
      }
      if (par) {
        lines.push(fmtPercent(total > 0 ? 100 * f.v / total : 0) + ' of all, ' +
          fmtPercent(par.v > 0 ? 100 * f.v / par.v : 0) + ' of ' + cut(par.name, 50));
      }
      return lines;
    }

    function showTip(f, e) {
      f.untitle();
      const lines = tipLines(f);
      while (tipText.firstChild) tipText.removeChild(tipText.firstChild);
      lines.forEach((s, k) => {
        const t = make('tspan', { x: 6, dy: k ? 15 : 0 }, tipText);
        if (!k) t.setAttribute('font-weight', 'bold');
        t.textContent = s;
      });
      svg.appendChild(tip); /* last, so drawn over everything */
      tip.removeAttribute('display');
      tipText.setAttribute('y', 15);
      const bb = tipText.getBBox(), w = bb.width + 12, h = lines.length * 15 + 8;
      tipRect.setAttribute('width', w.toFixed(1));
      tipRect.setAttribute('height', h);
      const m = svg.getScreenCTM(), pt = svg.createSVGPoint();
      pt.x = e.clientX;
      pt.y = e.clientY;
      const at = m ? pt.matrixTransform(m.inverse()) : { x: 0, y: 0 };
      let x = at.x + 14, y = at.y + 16;
      if (x + w > W - 2) x = Math.max(2, at.x - 14 - w);
      if (y + h > H - 2) y = Math.max(2, at.y - 10 - h);
      tip.setAttribute('transform', 'translate(' + x.toFixed(1) + ',' + y.toFixed(1) + ')');
    }

    const frameOf = (e) => {
      const g = e.target.closest && e.target.closest('g.f');
      return g && g.velesFrame;
    };
    svg.addEventListener('mousemove', (e) => {
      const f = frameOf(e);
      if (f) showTip(f, e);
      else tip.setAttribute('display', 'none');
    });
    svg.addEventListener('mouseleave', () => tip.setAttribute('display', 'none'));
    svg.addEventListener('click', (e) => {
      const f = frameOf(e);
      if (f) zoom(f.i, true);
    });
    back.addEventListener('click', () => {
      if (history.length) {
        focus = history.pop();
        layout();
      }
    });
    reset.addEventListener('click', () => {
      history.length = 0;
      zoom(0, false);
      layout();
    });
    /* A large graph is searched once typing pauses. */
    let pending = 0;
    input.addEventListener('input', () => {
      clearTimeout(pending);
      if (frames.length < 5000) search();
      else pending = setTimeout(search, 150);
    });
    /* Ctrl+F searches where the flame graph is the whole document or page;
     * Escape empties the search box, or else resets the zoom. */
    const alone = document.documentElement === svg ||
      (document.body && document.body.classList.contains('veles-flame-page'));
    document.addEventListener('keydown', (e) => {
      if (alone && (e.ctrlKey || e.metaKey) && e.key === 'f') {
        e.preventDefault();
        input.focus();
      } else if (e.key === 'Escape') {
        if (document.activeElement === input && input.value) {
          input.value = '';
          search();
        } else if (focus) {
          history.length = 0;
          zoom(0, false);
        }
      }
    });

    svg.velesFlame = { zoom: (j) => zoom(j, true), search: (q) => { input.value = q; search(); },
      fmtValue, fmtPercent };
    (window.velesFlames = window.velesFlames || []).push(svg.velesFlame);
    /* Drawn as the C side laid it out: nothing to move until a zoom. */
    return svg.velesFlame;
  }

  /* A page that inserts a flame graph's SVG itself (innerHTML runs no
   * script) loads this file once and calls velesFlameInit(svg). */
  window.velesFlameInit = init;
  const me = document.currentScript;
  init((me && me.closest && me.closest('svg.veles-flame')) ||
    Array.from(document.querySelectorAll('svg.veles-flame')).find((s) => !s.velesFlame));
})();
