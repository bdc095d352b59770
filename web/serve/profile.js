// A profile's page (/p/profile/ID[/VIEW]): its header and every view
// that applies to it. The graphical views are the pages `veles show ID
// VIEW -o x.html` writes, in a sandboxed frame (their scripts run there,
// with no access to this page or the API); the memory report, heap map and
// trace summary are data drawn here.
import { get, staticSite, staticFile } from './api.js';
import { h } from './widgets.js';
import { link, num, bytes, facts, table } from './pagekit.js';
import './pages.css';

const base = (id) => `/api/project/profiles/${id}`;

function memoryView(d) {
  const site = (s) => h('tr', {}, h('td', {}, s.uid), h('td', { class: 'num' }, s.allocations),
    h('td', { class: 'num' }, bytes(s.bytes)), h('td', { class: 'num' }, bytes(s.peak)),
    h('td', { class: 'num' }, bytes(s.leaked)));
  const heads = ['site', 'allocations', 'bytes', 'held at the peak', 'leaked'];
  return h('div', { class: 'memory-view' },
    facts([
      ['Total allocated', `${bytes(d.bytes)} in ${d.allocations} allocations`],
      ['Releases', String(d.releases)],
      ['Temporary allocations', `${d.temporary}${d.allocations ? ` (${(100 * d.temporary / d.allocations).toFixed(1)}%)` : ''}`],
      ['Peak heap', bytes(d.peak)],
      ['Leaked', `${bytes(d.leaked)} in ${d.leaked_blocks} block${d.leaked_blocks === 1 ? '' : 's'}`],
    ]),
    d.leaks.length ? [h('h4', {}, 'Leaks (never freed), by stack, largest first'),
      table(['site', 'leaked', 'blocks', 'stack'], d.leaks.map((l) => h('tr', {},
        h('td', {}, l.uid), h('td', { class: 'num' }, bytes(l.leaked)), h('td', { class: 'num' }, l.leaked_blocks),
        h('td', { class: 'small mono' }, (l.trace || []).map((f) => h('div', {},
          `${f.function}${f.source && f.source !== 'unreachable' ? `  ${f.source}:${f.line}` : ''}`))))))] : null,
    h('h4', {}, 'Top sites by allocations'), table(heads, d.by_count.map(site)),
    h('h4', {}, 'Top sites by bytes allocated'), table(heads, d.by_bytes.map(site)),
    h('h4', {}, 'Top sites by memory held at the peak'), table(heads, d.by_peak.map(site)));
}

const levelColour = ['#ffffff', '#c6dbef', '#6baed6', '#2171b5', '#08306b'];

function heapmapView(d) {
  const scale = 8;
  const canvas = h('canvas', { width: d.cols * scale, height: d.rows * scale });
  const label = h('span', { class: 'mono' });
  const slider = h('input', { type: 'range', min: 0, max: d.frames.length - 1, value: Math.max(0, d.peak - d.first) });
  const draw = () => {
    const f = d.frames[+slider.value];
    const g = canvas.getContext('2d');
    for (let i = 0; i < f.cells.length; i++) {
      g.fillStyle = levelColour[+f.cells[i]];
      g.fillRect((i % d.cols) * scale, Math.floor(i / d.cols) * scale, scale, scale);
    }
    label.textContent = `snapshot ${f.snapshot}: ${bytes(f.bytes)} live in ${f.blocks} blocks${f.snapshot === d.peak ? ' (the peak)' : ''}`;
  };
  slider.addEventListener('input', draw);
  const el = h('div', { class: 'heapmap' },
    h('p', { class: 'muted' }, `Process ${d.pid}: the used address ranges end to end, ${bytes(d.cell)} a cell, darker where more of it is live.`),
    h('div', {}, slider, ' ', label), canvas);
  if (d.frames.length) draw();
  return el;
}

function traceView(d) {
  const fns = d.functions.slice().sort((a, b) => b.total - a.total);
  return h('div', {},
    h('p', { class: 'muted' }, `Times in ${d.unit}; percentiles estimated from the histograms.`),
    table(['function', 'calls', 'total', 'mean', 'exclusive', 'p50', 'p90', 'p99', 'min', 'max'],
      fns.map((f) => h('tr', {}, h('td', {}, f.uid), h('td', { class: 'num' }, f.calls),
        ['total', 'mean', 'exclusive_total', 'p50', 'p90', 'p99', 'min', 'max']
          .map((k) => h('td', { class: 'num' }, num(f[k])))))));
}

const drawers = { memory: memoryView, heapmap: heapmapView, trace: traceView };

async function showView(el, id, v) {
  if (v.html) {
    const src = `${base(id)}/views/${v.name}`;
    el.replaceChildren(h('iframe', { class: 'view-frame', title: v.title, sandbox: 'allow-scripts',
      src: staticSite ? staticFile(src).replace(/\.json$/, '.html') : src }));
    return;
  }
  el.replaceChildren(h('p', { class: 'loading' }, 'Loading…'));
  try {
    el.replaceChildren(drawers[v.name](await get(`${base(id)}/views/${v.name}`)));
  } catch (e) {
    el.replaceChildren(h('p', { class: 'msg' }, e.message));
  }
}

function header(go, p) {
  return [
    h('h2', {}, 'Profile ', h('span', { class: 'mono' }, p.short), ' ', p.config),
    facts([
      ['Id', h('span', { class: 'mono' }, p.id)],
      ['Name', p.name],
      ['Version', link(go, `/p/v/${p.version}`, h('span', { class: 'mono' }, p.version.slice(0, 7)))],
      ['Type', p.type],
      ['Command', [p.cmd, p.args].filter(Boolean).join(' ')],
      ['Workload', p.workload],
      ['Collector', p.collector ? `${p.collector} ${p.collector_params ? JSON.stringify(p.collector_params) : ''}` : null],
      ['Postprocessors', p.postprocessors.length ? p.postprocessors.join(', ') : 'none'],
      ['Models', p.models.length ? String(p.models.length) : null],
      ['Measured', p.when],
      ['Origin', p.origin],
      ['Units', Object.entries(p.units).map(([k, u]) => `${k}: ${u}`).join(', ')],
      ['Resources', String(p.resources)],
      ['Environment', p.environment ? h('pre', { class: 'small' }, p.environment) : null],
    ]),
  ];
}

function compareForm(go, p) {
  const input = h('input', { type: 'text', placeholder: 'another profile id', class: 'short' });
  return h('form', { class: 'compare', onsubmit: (e) => {
    e.preventDefault();
    if (input.value.trim()) go(`/p/diff?a=${p.id}&b=${encodeURIComponent(input.value.trim())}`);
  } }, 'Compare with ', input, ' ', h('button', { type: 'submit' }, 'Diff'));
}

export async function profileScreen(root, go, ctx) {
  const [id, viewName] = ctx.path;
  if (!id) {
    root.append(h('p', { class: 'msg' }, 'Name a profile: /p/profile/ID.'));
    return null;
  }
  root.append(h('p', { class: 'loading' }, 'Loading…'));
  let p;
  try {
    p = await get(base(encodeURIComponent(id)));
  } catch (e) {
    root.replaceChildren(h('p', { class: 'msg' }, e.message));
    return null;
  }
  const body = h('div', { class: 'view-body' });
  const current = p.views.find((v) => v.name === viewName) || p.views[0];
  const tabs = h('div', { class: 'view-tabs' }, p.views.map((v) => h('button', {
    type: 'button', 'data-view': v.name, class: v === current ? 'current' : null,
    onclick: () => go(`/p/profile/${p.id}/${v.name}`),
  }, v.title)));
  root.replaceChildren(h('section', { class: 'profile', 'data-profile': p.id }, header(go, p),
    compareForm(go, p), h('h3', {}, 'Views'), tabs,
    p.views.length ? body : h('p', { class: 'muted' }, 'No view applies to this profile.'),
    p.unavailable.length ? h('details', { class: 'small muted' }, h('summary', {}, 'Views that do not apply'),
      h('ul', {}, p.unavailable.map((u) => h('li', {}, `${u.name}: ${u.reason}`)))) : null));
  if (current) await showView(body, p.id, current);
  return null;
}
