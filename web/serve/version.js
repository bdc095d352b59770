// A version's page (/p/v/REV): the commit, its profiles, the verdicts of
// check against its parents, and the actions other parts register in
// versionActions (hidden on a read-only server).
import { get } from './api.js';
import { h } from './widgets.js';
import { versionActions } from './project.js';
import { link, pct, num, verdict, when, facts, table } from './pagekit.js';
import './pages.css';

function profileRow(go, p) {
  return h('tr', { 'data-profile': p.id },
    h('td', { class: 'mono' }, link(go, `/p/profile/${p.id}`, p.short)),
    h('td', {}, p.config),
    h('td', {}, p.type),
    h('td', {}, p.collector || ''),
    h('td', {}, p.postprocessors.join(', ')),
    h('td', {}, p.when || ''),
    h('td', { class: 'mono' }, p.origin ? p.origin.slice(0, 7) : ''));
}

function changeRow(c) {
  const interval = c.ci_low == null ? '' : `[${pct(c.ci_low)}, ${pct(c.ci_high)}]`;
  return h('tr', {},
    h('td', {}, c.location),
    h('td', {}, verdict(c.class)),
    h('td', { class: `num ${c.rel_change > 0 ? 'up' : c.rel_change < 0 ? 'down' : ''}` }, pct(c.rel_change)),
    h('td', { class: 'num' }, interval),
    h('td', { class: 'num' }, c.confidence == null ? '' : `${c.confidence_kind === 'p-value' ? 'p=' : ''}${num(c.confidence)}`),
    h('td', { class: 'num' }, `${num(c.baseline)} → ${num(c.target)}`),
    h('td', { class: 'muted' }, `${c.method || ''}${c.detail ? `: ${c.detail}` : ''}${c.note ? ` (${c.note})` : ''}`));
}

function checkSection(go, v) {
  const sec = h('section', { class: 'check' }, h('h3', {}, 'Check against the parent'));
  const byId = Object.fromEntries(v.profiles.map((p) => [p.id, p]));
  if (!v.parents.length) sec.append(h('p', { class: 'muted' }, 'The first version: there is nothing to compare with.'));
  for (const pair of v.check.pairs) {
    sec.append(h('div', { class: 'pair', 'data-config': pair.config },
      h('h4', {}, pair.config, ' ',
        h('span', { class: 'muted small' },
          link(go, `/p/profile/${pair.baseline}`, pair.baseline.slice(0, 8)), ' @', pair.baseline_version.slice(0, 7),
          ' → ', link(go, `/p/profile/${pair.profile}`, pair.profile.slice(0, 8)), ' ',
          link(go, `/p/diff?a=${pair.baseline}&b=${pair.profile}`, 'diff'))),
      pair.error ? h('p', { class: 'msg' }, pair.error) : null,
      table(['location', 'verdict', 'change', 'interval', 'confidence', 'baseline → target', 'method'],
        pair.changes.map(changeRow), 'changes')));
  }
  for (const id of v.check.unmatched) {
    const p = byId[id];
    if (v.parents.length && p) sec.append(h('p', { class: 'muted' }, `${p.config}: no profile of this configuration in the parent.`));
  }
  return sec;
}

export async function versionScreen(root, go, ctx) {
  const rev = ctx.path[0];
  if (!rev) {
    root.append(h('p', { class: 'msg' }, 'Name a version: /p/v/REV.'));
    return null;
  }
  root.append(h('p', { class: 'loading' }, 'Loading…'));
  let v;
  try {
    v = await get(`/api/project/versions/${encodeURIComponent(rev)}`);
  } catch (e) {
    root.replaceChildren(h('p', { class: 'msg' }, e.message));
    return null;
  }
  const actions = h('div', { class: 'actions' });
  if (!ctx.info.read_only) for (const fn of versionActions) fn(actions, v, ctx);
  const first = v.parents[0];
  root.replaceChildren(h('section', { class: 'version', 'data-version': v.id },
    h('h2', {}, h('span', { class: 'mono' }, v.short), ' ', v.summary,
      h('span', { class: 'refs' }, ' ', v.refs.map((r) => h('span', { class: `ref ${r.kind}` }, r.name)),
        v.head ? h('span', { class: 'ref' }, 'HEAD') : null)),
    facts([
      ['Version', h('span', { class: 'mono' }, v.id)],
      ['Author', `${v.author || ''}${v.email ? ` <${v.email}>` : ''}`],
      ['Date', when(v.time)],
      ['Parents', v.parents.length ? v.parents.map((p) => h('span', {},
        link(go, `/p/v/${p.id}`, h('span', { class: 'mono' }, p.short || p.id.slice(0, 7))), ` ${p.summary || ''} `)) : 'none'],
    ]),
    h('pre', { class: 'message' }, v.message || ''),
    first ? h('p', {}, link(go, `/p/diff?a=${first.id}&b=${v.id}`, 'Diff with the parent')) : null,
    actions.childNodes.length ? actions : null,
    h('h3', {}, `Profiles (${v.profiles.length})`),
    v.profiles.length
      ? table(['id', 'configuration', 'type', 'collector', 'postprocessors', 'when', 'origin'],
        v.profiles.map((p) => profileRow(go, p)), 'profiles')
      : h('p', { class: 'muted' }, 'No profile is registered with this version.'),
    checkSection(go, v)));
  return null;
}
