// What the project's version, profile and diff pages share: links that
// stay in the page, numbers and verdicts as people read them.
import { h } from './widgets.js';

export function link(go, href, ...children) {
  return h('a', { href, onclick: (e) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
    e.preventDefault();
    go(href);
  } }, ...children);
}

export function pct(v) {
  if (v == null || Number.isNaN(v)) return '–';
  return `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}%`;
}

export function num(v) {
  if (v == null || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e7 || a < 1e-3)) return v.toExponential(3);
  return String(+v.toPrecision(6));
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function bytes(v) {
  let i = 0;
  let x = v;
  while (Math.abs(x) >= 1024 && i < units.length - 1) { x /= 1024; i++; }
  return i ? `${x.toFixed(2)} ${units[i]}` : `${x} B`;
}

// A class of check (NoChange, MaybeDegradation, ...) as a coloured label.
export function verdictClass(c) {
  if (/^Maybe.*Degradation$/.test(c)) return 'maybe-degradation';
  if (/^Maybe.*Optimization$/.test(c)) return 'maybe-optimization';
  if (/Degradation$/.test(c)) return 'degradation';
  if (/Optimization$/.test(c)) return 'optimization';
  if (c === 'NoChange') return 'nochange';
  return 'unknown';
}

export function verdict(c) {
  return h('span', { class: `verdict ${verdictClass(c)}` }, c);
}

export function when(t) {
  return new Date(t * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter((p) => p[1] != null && p[1] !== '')
    .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

export function table(heads, rows, cls) {
  return h('table', { class: `list ${cls || ''}` },
    h('thead', {}, h('tr', {}, heads.map((t) => h('th', {}, t)))),
    h('tbody', {}, rows));
}
