// The JSON API (docs/serve.md). Requests that change something carry the
// anti-CSRF header; the token travels in the cookie the server set.
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(method, path, body) {
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
