// The JSON API (docs/serve.md). Requests that change something carry the
// anti-CSRF header; the token travels in the cookie the server set.
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// A static export (veles serve --export) marks its page: the answers of
// the GET addresses are files beside it, named as src/serve/export.c's
// export_file_name() names them, and nothing is sent anywhere.
export const staticSite = !!document.querySelector('meta[name="veles-static"]');

function escaped(s, path) {
  let out = '';
  for (const c of new TextEncoder().encode(s)) {
    const ch = String.fromCharCode(c);
    if (path ? /[A-Za-z0-9/-]/.test(ch) : /[A-Za-z0-9.-]/.test(ch)) out += ch;
    else out += `_${c.toString(16).padStart(2, '0')}`;
  }
  return out;
}

export function staticFile(path) {
  const q = path.indexOf('?');
  let name = escaped(decodeURIComponent((q < 0 ? path : path.slice(0, q)).replace(/^\/+/, '')), true);
  let first = true;
  if (q >= 0) {
    for (const part of path.slice(q + 1).split('&')) {
      const key = part.split('=')[0];
      if (!part || key === 'limit' || key === 'after') continue;
      name += (first ? '@' : '&') + escaped(decodeURIComponent(part), false);
      first = false;
    }
  }
  return `${name}.json`;
}

async function staticGet(method, path) {
  if (method !== 'GET') throw new ApiError(403, 'this is a static export of the pages: it only shows');
  const r = await fetch(staticFile(path));
  if (!r.ok) throw new ApiError(r.status, r.status === 404 ? 'this export does not hold that page' : `HTTP ${r.status}`);
  return r.json();
}

export async function api(method, path, body) {
  if (staticSite) return staticGet(method, path);
  const opts = { method, headers: {}, credentials: 'same-origin' };
  if (method !== 'GET') opts.headers['X-Veles-CSRF'] = '1';
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  if (r.status === 204) return null;
  let data = null;
  try {
    data = await r.json();
  } catch (e) {
    if (r.ok) throw new ApiError(r.status, 'the server sent something that is not JSON');
  }
  if (!r.ok) {
    if (r.status === 401 && window.velesApp) window.velesApp.needToken();
    throw new ApiError(r.status, (data && data.error) || `HTTP ${r.status}`);
  }
  return data;
}

export const get = (p) => api('GET', p);
export const post = (p, b) => api('POST', p, b === undefined ? {} : b);
export const del = (p) => api('DELETE', p);
