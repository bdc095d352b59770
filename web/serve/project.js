// The project's pages under /p/ (veles serve run in a project): a bar with
// the project's name and its parts, and each part's screen, chosen by the
// first path segment after /p/ in the table below.
import { get, staticSite } from './api.js';
import { h, clear } from './widgets.js';
import { historyScreen } from './history.js';
import { versionScreen } from './version.js';
import { profileScreen } from './profile.js';
import { diffScreen } from './diff.js';
import { jobsScreen, jobsVersionAction } from './jobs.js';

// Actions a version's page offers (run the matrix there, remeasure, bisect):
// each is fn(el, version, ctx) appending its controls to el; parts that
// offer one push it here when their module loads.
export const versionActions = [];
versionActions.push(jobsVersionAction);

// What /api/project said, fetched once per page load.
let info = null;

export async function projectInfo() {
  if (!info) {
    info = await get('/api/project');
    // A static export only shows: nothing there can change anything.
    if (staticSite) info.read_only = true;
  }
  return info;
}

// [segment, title in the bar (or null: not listed), screen(root, go, ctx)]
const parts = [
  ['', 'History', historyScreen],
  ['v', null, versionScreen],
  ['profile', null, profileScreen],
  ['diff', 'Diff', diffScreen],
  ['jobs', 'Jobs', jobsScreen],
];

export async function projectScreen(root, go, path) {
  let data;
  try {
    data = await projectInfo();
  } catch (e) {
    clear(root).append(h('p', { class: 'msg' }, e.message));
    return null;
  }
  const seg = path[0] || '';
  const part = parts.find((p) => p[0] === seg);
  const nav = h('nav', { class: 'project-nav' },
    h('strong', {}, data.name),
    data.read_only ? h('span', { class: 'muted' }, ' (read-only)') : null,
    parts.filter((p) => p[1]).map((p) => h('a', {
      href: `/p/${p[0]}`,
      class: p === part ? 'current' : null,
      onclick: (e) => { e.preventDefault(); go(`/p/${p[0]}`); },
    }, p[1])));
  const body = h('div', { class: 'project-body' });
  clear(root).append(nav, body);
  if (!part) {
    body.append(h('p', { class: 'msg' }, 'There is no such page here.'));
    return null;
  }
  return part[2](body, go, { info: data, path: path.slice(1), go });
}
