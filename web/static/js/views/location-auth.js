// location-auth.js is the auth part of a location row in the server form (policies, issue
// 11): basic auth from an htpasswd object and external auth by subrequest. Its inputs come
// after the row's own, and carry data-auth, so that the server form reads them apart.
import { h } from '../dom.js';
import { field, input, select } from '../form.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** authFields returns the collapsible auth fields for location l. */
export function authFields(l, htpasswdNames) {
  const a = l.auth || {};
  const b = a.basic || {};
  const e = a.external || {};
  const current = b.htpasswd || '';
  const users = select([['', 'None'], ...htpasswdNames.map((n) => [n, n]),
    ...(current && !htpasswdNames.includes(current) ? [[current, `${current} (missing)`]] : [])], current, { dataset: { auth: 'basic.htpasswd' } });
  const text = (key, value, placeholder) => input({ value: value || '', placeholder, autocapitalize: 'none', dataset: { auth: key } });
  // The auth subrequest's request headers have no field here; they are kept as they are.
  const kept = e.requestHeaders ? JSON.stringify(e.requestHeaders) : undefined;
  return h('details', { class: 'location-auth', open: Boolean(l.auth), testid: 'location-auth', dataset: { requestHeaders: kept } },
    h('summary', null, l.auth ? 'Auth (on)' : 'Auth'),
    h('div', { class: 'field-grid' },
      field({ label: 'Basic auth users', input: users, sub: 'auth.basic.htpasswd', testid: 'location-auth-htpasswd', hint: 'An htpasswd object; a request without a valid user gets 401.' }),
      field({ label: 'Realm', input: text('basic.realm', b.realm, 'Authentication Required'), sub: 'auth.basic.realm', testid: 'location-auth-realm' })),
    h('div', { class: 'field-grid' },
      field({ label: 'External auth URL', input: text('external.url', e.url, 'http(s)://auth.internal:8080/verify'), sub: 'auth.external.url', testid: 'location-auth-url', hint: 'Asked before every request: 2xx passes, 401 and 403 are returned.' }),
      field({ label: 'Method', input: select(METHODS, e.method || 'GET', { dataset: { auth: 'external.method' } }), sub: 'auth.external.method', testid: 'location-auth-method' }),
      field({ label: 'Sign-in URL', input: text('external.signin', e.signin, 'http(s)://login.example.com/start'), sub: 'auth.external.signin', testid: 'location-auth-signin', hint: 'Optional: a 401 redirects here with rd=<the original URL>.' }),
      field({ label: 'Headers passed upstream', input: text('external.responseHeaders', (e.responseHeaders || []).join(', '), 'X-User, X-Email'), sub: 'auth.external.responseHeaders', testid: 'location-auth-headers' }),
      field({ label: 'X-Auth-Request-Redirect', input: text('external.requestRedirect', e.requestRedirect, 'the request URI'), sub: 'auth.external.requestRedirect', testid: 'location-auth-redirect' })));
}

/** readAuth returns the auth policy the row's fields describe, or undefined for none. */
export function readAuth(row) {
  const v = {};
  for (const el of row.querySelectorAll('[data-auth]')) v[el.dataset.auth] = el.value.trim();
  const auth = {};
  if (v['basic.htpasswd']) {
    auth.basic = { htpasswd: v['basic.htpasswd'] };
    if (v['basic.realm']) auth.basic.realm = v['basic.realm'];
  }
  if (v['external.url']) {
    const e = { url: v['external.url'] };
    if (v['external.method'] && v['external.method'] !== 'GET') e.method = v['external.method'];
    if (v['external.signin']) e.signin = v['external.signin'];
    const hs = v['external.responseHeaders'].split(',').map((x) => x.trim()).filter(Boolean);
    if (hs.length) e.responseHeaders = hs;
    if (v['external.requestRedirect']) e.requestRedirect = v['external.requestRedirect'];
    const kept = row.querySelector('.location-auth')?.dataset.requestHeaders;
    if (kept) e.requestHeaders = JSON.parse(kept);
    auth.external = e;
  }
  return auth.basic || auth.external ? auth : undefined;
}
