// The sessions screen: create one (a title), search, open, delete.
import { get, post, del } from './api.js';
import { h, clear, fmtTime } from './widgets.js';

export async function sessionsScreen(root, go) {
  const list = h('tbody');
  const msg = h('p', { class: 'msg' });
  const title = h('input', { id: 'session-title', type: 'text', placeholder: 'Session title', maxlength: 500 });
  const search = h('input', { id: 'session-search', type: 'search', placeholder: 'Search sessions' });

  async function load() {
    const q = search.value.trim();
    let data;
    try {
      data = await get('/api/sessions' + (q ? `?q=${encodeURIComponent(q)}` : ''));
    } catch (e) {
      msg.textContent = e.message;
      return;
    }
    clear(list);
    for (const s of data.sessions) {
      list.append(h('tr', { 'data-id': s.id },
        h('td', {}, h('a', { href: `/s/${s.id}`, class: 'session-link', onclick: (e) => { e.preventDefault(); go(`/s/${s.id}`); } }, s.title)),
        h('td', { class: 'mono' }, s.id),
        h('td', {}, fmtTime(s.created)),
        h('td', { class: 'num' }, s.runs),
        h('td', {}, h('button', { class: 'danger', onclick: () => remove(s) }, 'Delete'))));
    }
    if (!data.sessions.length) list.append(h('tr', {}, h('td', { colspan: 5, class: 'muted' }, q ? 'No session matches.' : 'No sessions yet.')));
  }

  async function create(e) {
    e.preventDefault();
    const t = title.value.trim();
    if (!t) { msg.textContent = 'A session needs a title.'; return; }
    try {
      const s = await post('/api/sessions', { title: t });
      go(`/s/${s.id}`);
    } catch (err) {
      msg.textContent = err.message;
    }
  }

  async function remove(s) {
    if (!confirm(`Delete the session "${s.title}" and its ${s.runs} run(s), with all their data?`)) return;
    try {
      await del(`/api/sessions/${s.id}`);
      msg.textContent = `Deleted "${s.title}".`;
      load();
    } catch (err) {
      msg.textContent = err.message;
    }
  }

  let timer;
  search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(load, 150); });
  clear(root).append(
    h('header', {}, h('h1', {}, 'veles serve'), h('span', { class: 'muted' }, 'sessions')),
    h('main', { class: 'sessions' },
      h('form', { class: 'row', onsubmit: create }, title, h('button', { id: 'session-create', type: 'submit' }, 'Create new session')),
      h('div', { class: 'row' }, search),
      msg,
      h('table', { class: 'list', id: 'sessions' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Title'), h('th', {}, 'Id'), h('th', {}, 'Created'), h('th', {}, 'Runs'), h('th', {}))),
        list)));
  await load();
}
