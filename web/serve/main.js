// veles serve's page: the sessions screen (/), a session's benchmark
// screen (/s/ID, /s/ID/r/RUN with that run reloaded), a run's plot alone
// (/plot/RUN), the project's pages (/p/...). Built with esbuild into one file, served by the binary.
import 'uplot/dist/uPlot.min.css';
import './app.css';
import { get } from './api.js';
import { h, clear } from './widgets.js';
import { sessionsScreen } from './sessions.js';
import { benchScreen } from './bench.js';
import { RunView } from './runview.js';
import { projectScreen } from './project.js';

const app = { view: null, cleanup: null };
window.velesApp = app;

app.needToken = () => {
  if (document.getElementById('token-form')) return;
  const input = h('input', { id: 'token', type: 'password', placeholder: 'token' });
  document.body.prepend(h('form', { id: 'token-form', class: 'banner', onsubmit: (e) => {
    e.preventDefault();
    location.href = `${location.pathname}?token=${encodeURIComponent(input.value.trim())}`;
  } }, 'This server asks for the token veles serve printed when it started: ', input, h('button', { type: 'submit' }, 'Go')));
};

async function plotScreen(root, id) {
  const view = new RunView({ plotOnly: true });
  clear(root).append(h('div', { class: 'fullplot' }, view.el));
  view.mount();
  try {
    view.show(await get(`/api/runs/${id}`));
  } catch (e) {
    view.status.textContent = e.message;
  }
  return () => view.unmount();
}

async function route() {
  const root = document.getElementById('app');
  const p = location.pathname.split('/').filter(Boolean);
  if (app.cleanup) app.cleanup();
  app.cleanup = null;
  document.body.classList.toggle('full', p[0] === 'plot');
  if (p[0] === 's' && p[1]) app.cleanup = await benchScreen(root, go, p[1], p[2] === 'r' ? p[3] : null);
  else if (p[0] === 'plot' && p[1]) app.cleanup = await plotScreen(root, p[1]);
  else if (p[0] === 'p') app.cleanup = await projectScreen(root, go, p.slice(1));
  else await sessionsScreen(root, go);
  app.ready = true;
}

function go(path) {
  history.pushState(null, '', path);
  route();
}

window.addEventListener('popstate', route);
document.addEventListener('DOMContentLoaded', route);
