// The diff of two profiles or two versions (/p/diff?a=X&b=Y): for each
// pair of profiles of the same configuration the table `veles diff`
// prints and, where they have call stacks, the differential flame graph
// (`veles diff A B flamegraph -o x.html`'s page, in a sandboxed frame).
import { get, staticSite } from './api.js';
import { h } from './widgets.js';
import { link, pct, num, table } from './pagekit.js';
import './pages.css';

const TOP = 20;

function rowsTable(rows, limit) {
  return table(['location', 'baseline', 'target', 'change'], rows.slice(0, limit).map((r) => h('tr', {},
    h('td', {}, r.name), h('td', { class: 'num' }, num(r.baseline)), h('td', { class: 'num' }, num(r.target)),
    h('td', { class: `num ${r.rel_change > 0 ? 'up' : r.rel_change < 0 ? 'down' : ''}` },
      r.rel_change != null ? pct(r.rel_change) : r.baseline == null ? 'new' : r.target == null ? 'gone' : '–'))), 'diff-table');
}

function pairSection(go, pair) {
  const a = pair.baseline;
  const b = pair.target;
  const holder = h('div', {}, rowsTable(pair.rows, TOP));
  const more = pair.rows.length > TOP ? h('button', { type: 'button', onclick: () => {
    holder.replaceChildren(rowsTable(pair.rows, pair.rows.length));
    more.remove();
  } }, `Show all ${pair.rows.length} rows`) : null;
  return h('section', { class: 'pair', 'data-config': b.config },
    h('h3', {}, b.config),
    h('p', {}, link(go, `/p/profile/${a.id}`, h('span', { class: 'mono' }, a.short)), ` ${a.name} @${a.version.slice(0, 7)} → `,
      link(go, `/p/profile/${b.id}`, h('span', { class: 'mono' }, b.short)), ` ${b.name} @${b.version.slice(0, 7)}`),
    pair.error ? h('p', { class: 'msg' }, pair.error) : [holder, more],
    pair.total_rows > pair.rows.length ? h('p', { class: 'muted' }, `The first ${pair.rows.length} of ${pair.total_rows} rows.`) : null,
    pair.flamegraph && staticSite ? h('p', { class: 'muted' }, 'The differential flame graph is drawn by a live veles serve.') : null,
    pair.flamegraph && !staticSite ? [h('h4', {}, 'Differential flame graph'),
      h('p', { class: 'muted small' }, 'Widths from the target; red where a frame grew, blue where it shrank.'),
      h('iframe', { class: 'view-frame flame-diff', title: 'differential flame graph', sandbox: 'allow-scripts',
        src: `/api/project/diff/flamegraph?a=${a.id}&b=${b.id}` })] : null);
}

function side(go, s) {
  if (s.kind === 'version') return link(go, `/p/v/${s.id}`, h('span', { class: 'mono' }, s.short || s.id.slice(0, 7)), ` ${s.summary || ''}`);
  return link(go, `/p/profile/${s.id}`, h('span', { class: 'mono' }, s.id.slice(0, 8)));
}

export async function diffScreen(root, go) {
  // A static site routes by the fragment: its query is there.
  const q = new URLSearchParams(staticSite ? location.hash.split('?')[1] || '' : location.search);
  const ia = h('input', { type: 'text', name: 'a', value: q.get('a') || '', placeholder: 'baseline: profile id or version' });
  const ib = h('input', { type: 'text', name: 'b', value: q.get('b') || '', placeholder: 'target: profile id or version' });
  const form = h('form', { class: 'row', onsubmit: (e) => {
    e.preventDefault();
    go(`/p/diff?a=${encodeURIComponent(ia.value.trim())}&b=${encodeURIComponent(ib.value.trim())}`);
  } }, ia, ' → ', ib, ' ', h('button', { type: 'submit' }, 'Compare'));
  const out = h('div', { class: 'diff-body' });
  root.append(form, out);
  if (!q.get('a') || !q.get('b')) {
    out.append(h('p', { class: 'muted' }, 'Name two profiles (their ids) or two versions to compare.'));
    return null;
  }
  out.append(h('p', { class: 'loading' }, 'Loading…'));
  let d;
  try {
    d = await get(`/api/project/diff?a=${encodeURIComponent(q.get('a'))}&b=${encodeURIComponent(q.get('b'))}`);
  } catch (e) {
    out.replaceChildren(h('p', { class: 'msg' }, e.message));
    return null;
  }
  const only = (ids, where) => (ids.length ? h('p', { class: 'muted' },
    `Only in the ${where}: `, ids.flatMap((id) => [link(go, `/p/profile/${id}`, h('span', { class: 'mono' }, id.slice(0, 8))), ' '])) : null);
  out.replaceChildren(...[h('h2', {}, 'Diff ', side(go, d.a), ' → ', side(go, d.b)),
    d.pairs.length ? d.pairs.map((p) => pairSection(go, p))
      : h('p', { class: 'muted' }, 'The two versions have no configuration in common.'),
    only(d.only_a, 'baseline'), only(d.only_b, 'target')].flat().filter(Boolean));
  return null;
}
