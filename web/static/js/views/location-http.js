// location-http.js is the CORS and redirect part of a location row in the server form
// (policies), and the server-level redirects. Its inputs carry data-http and
// come after the row's own and the auth fields, so that the server form reads them apart.
import { h } from '../dom.js';
import { field, input, select } from '../form.js';

const CODES = [['302', '302 Found'], ['301', '301 Moved Permanently'], ['303', '303 See Other'],
  ['307', '307 Temporary Redirect'], ['308', '308 Permanent Redirect']];

const list = (xs) => (xs || []).join(', ');
const split = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);

/** httpFields returns the collapsible CORS and redirect fields for location l. */
export function httpFields(l) {
  const c = l.cors || {};
  const r = l.redirect || {};
  const on = Boolean(l.cors || l.redirect);
  const text = (key, value, placeholder) => input({ value: value || '', placeholder, autocapitalize: 'none', dataset: { http: key } });
  const check = (key, checked, id) => h('input', { type: 'checkbox', id, checked, dataset: { http: key } });
  const corsOn = check('cors.on', Boolean(l.cors), 'cors-' + Math.random().toString(36).slice(2));
  corsOn.dataset.testid = 'location-cors-on';
  const creds = check('cors.allowCredentials', c.allowCredentials !== false, 'cred-' + Math.random().toString(36).slice(2));
  creds.dataset.testid = 'location-cors-credentials';
  return h('details', { class: 'location-http', open: on, testid: 'location-http' },
    h('summary', null, on ? 'CORS and redirect (on)' : 'CORS and redirect'),
    h('div', { class: 'check' }, corsOn, h('label', { for: corsOn.id }, 'Answer CORS (preflights get 204 from the proxy)')),
    h('div', { class: 'field-grid' },
      field({ label: 'Allowed origins', input: text('cors.allowOrigins', list(c.allowOrigins), '*, or origins as scheme://host, e.g. a wildcard host *.example.com'), sub: 'cors.allowOrigins', testid: 'location-cors-origins' }),
      field({ label: 'Allowed methods', input: text('cors.allowMethods', list(c.allowMethods), 'GET, PUT, POST, DELETE, PATCH, OPTIONS'), sub: 'cors.allowMethods', testid: 'location-cors-methods' }),
      field({ label: 'Allowed headers', input: text('cors.allowHeaders', list(c.allowHeaders), 'ingress-nginx’s list'), sub: 'cors.allowHeaders', testid: 'location-cors-headers' }),
      field({ label: 'Exposed headers', input: text('cors.exposeHeaders', list(c.exposeHeaders), 'X-Request-Id'), sub: 'cors.exposeHeaders', testid: 'location-cors-expose' }),
      field({ label: 'Max age (s)', input: text('cors.maxAge', c.maxAge ? String(c.maxAge) : '', '1728000'), sub: 'cors.maxAge', testid: 'location-cors-max-age' })),
    h('div', { class: 'check' }, creds, h('label', { for: creds.id }, 'Allow credentials')),
    h('div', { class: 'field-grid' },
      field({ label: 'Redirect to', input: text('redirect.url', r.url, 'a full URL (scheme://host/path) or a path such as /new'), sub: 'redirect.url', testid: 'location-redirect-url', hint: 'Answers every request itself; the location then needs no backend.' }),
      field({ label: 'Code', input: select(CODES, String(r.code || 302), { dataset: { http: 'redirect.code' } }), sub: 'redirect.code', testid: 'location-redirect-code' })));
}

/** readHTTP returns the row's { cors, redirect }, each undefined when off. */
export function readHTTP(row) {
  const v = {};
  for (const el of row.querySelectorAll('[data-http]')) v[el.dataset.http] = el.type === 'checkbox' ? el.checked : el.value.trim();
  const out = {};
  if (v['cors.on']) {
    const c = { allowCredentials: v['cors.allowCredentials'] };
    for (const k of ['allowOrigins', 'allowMethods', 'allowHeaders', 'exposeHeaders']) {
      const xs = split(v['cors.' + k]);
      if (xs.length) c[k] = xs;
    }
    if (v['cors.maxAge']) c.maxAge = Number(v['cors.maxAge']);
    out.cors = c;
  }
  if (v['redirect.url']) out.redirect = { url: v['redirect.url'], code: Number(v['redirect.code']) };
  return out;
}

/** serverRedirectFields returns the server-level redirect fields and a reader for them. */
export function serverRedirectFields(s) {
  const force = h('input', { type: 'checkbox', id: 'force-ssl', checked: Boolean(s.forceSSLRedirect), testid: 'server-force-ssl' });
  const www = h('input', { type: 'checkbox', id: 'www-redirect', checked: Boolean(s.wwwRedirect), testid: 'server-www-redirect' });
  const appRoot = input({ value: s.appRoot || '', placeholder: '/app', autocapitalize: 'none', class: 'input-path' });
  const el = h('fieldset', { class: 'fieldset', dataset: { field: 'redirects' } },
    h('legend', null, 'Redirects'),
    h('div', { class: 'field-grid' }, field({ label: 'App root', input: appRoot, path: 'appRoot', testid: 'server-app-root', hint: 'Optional: a request for / is redirected here (302).' })),
    h('div', { class: 'check' }, force, h('label', { for: 'force-ssl' }, 'Always redirect plain HTTP to HTTPS (308), even without a certificate here')),
    h('div', { class: 'check' }, www, h('label', { for: 'www-redirect' }, 'Redirect www.<hostname> to <hostname>, or the reverse (308)')));
  const read = (out) => {
    if (force.checked) out.forceSSLRedirect = true;
    if (www.checked) out.wwwRedirect = true;
    if (appRoot.value.trim()) out.appRoot = appRoot.value.trim();
  };
  return { el, read };
}
