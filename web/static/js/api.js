// api.js talks to restyplane's REST API under api/v1, relative to the page so that the UI
// also works behind a reverse proxy that mounts restyplane under a path.

/** ApiError is a failed request: the API's error code, message and field (for invalid input). */
export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field || '';
  }
}

const CODES = { 400: 'invalid', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 412: 'precondition_failed', 413: 'too_large', 415: 'unsupported_media_type', 503: 'unavailable' };

/** Client sends authenticated requests with the session's bearer token. */
export class Client {
  /**
   * @param {string} token the bearer token
   * @param {() => void} onUnauthorized called when the API rejects the token (401)
   */
  constructor(token, onUnauthorized) {
    this.token = token;
    this.onUnauthorized = onUnauthorized || (() => {});
  }

  url(path, query) {
    const u = new URL('api/v1' + path, document.baseURI);
    if (query) {
      for (const [k, v] of Object.entries(query)) {
        if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
      }
    }
    return u;
  }

  /**
   * request sends one API call and returns {data, status, etag}. Options: query (object),
   * body (JSON-encoded), ifMatch (a version), reason (the change message, sent as the
   * `message` query parameter because it is the one place every write accepts it, DELETE
   * included, and it carries any Unicode text), signal.
   */
  async request(method, path, opts = {}) {
    const query = { ...(opts.query || {}) };
    if (opts.reason !== undefined) query.message = opts.reason;
    const headers = { Accept: 'application/json', Authorization: 'Bearer ' + this.token };
    const init = { method, headers, cache: 'no-store', credentials: 'omit', signal: opts.signal, redirect: 'error' };
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(opts.body);
    }
    if (opts.ifMatch) headers['If-Match'] = `"${opts.ifMatch}"`;
    let res;
    try {
      res = await fetch(this.url(path, query), init);
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      throw new ApiError(0, 'unavailable', 'Cannot reach restyplane. Check that it is running and try again.');
    }
    let data = null;
    const type = res.headers.get('Content-Type') || '';
    if (type.includes('json')) {
      try {
        data = await res.json();
      } catch {
        data = null;
      }
    }
    if (!res.ok) {
      const e = (data && data.error) || {};
      const err = new ApiError(res.status, e.code || CODES[res.status] || 'internal', e.message || `${res.status} ${res.statusText}`, e.field);
      if (res.status === 401) this.onUnauthorized(err);
      throw err;
    }
    return { data, status: res.status, etag: res.headers.get('ETag') };
  }

  /** get returns the decoded body of a GET. */
  async get(path, query, signal) {
    return (await this.request('GET', path, { query, signal })).data;
  }
}

/** whoami checks a token before it is kept: it resolves to {name, role}. */
export async function whoami(token, signal) {
  const c = new Client(token);
  return c.get('/whoami', undefined, signal);
}
