// server-form.js creates and edits a server: hostnames, TLS and locations. Location fields
// the form does not show (timeouts, headers to set) are kept from the original object.
import { h, route } from '../dom.js';
import { field, input, select, reasonField, formError } from '../form.js';
import { pageHeader } from './common.js';
import { rowList } from './rows.js';
import { submitObject, previewObject } from './objects.js';
import { isKubernetes } from '../format.js';
import { authFields, readAuth } from './location-auth.js';
import { clientTLSFields } from './server-clienttls.js';
import { accessFields, readAccess } from './location-access.js';
import { httpFields, readHTTP, serverRedirectFields } from './location-http.js';
import { proxyFields, readProxy } from './location-proxy.js';
import { upstreamHostFields, readUpstreamHost } from './location-upstream.js';
import { whenFields, readWhen } from './location-when.js';

/** renderServerForm renders the create form (no name param) or the edit form. */
export async function renderServerForm(ctx) {
  const { api, signal } = ctx;
  const editing = ctx.params.name;
  ctx.setTitle(editing ? `Edit server ${editing}` : 'New server');
  const [original, backends, certs, htpasswds, cas] = await Promise.all([
    editing ? api.get('/servers/' + encodeURIComponent(editing), undefined, signal) : null,
    api.get('/backends', undefined, signal),
    api.get('/certificates', undefined, signal),
    // Policies: the htpasswd objects basic auth may name.
    api.get('/htpasswds', undefined, signal).catch(() => ({ items: [] })),
    // Policies: the CA certificates client certificates may be verified against.
    api.get('/caCertificates', undefined, signal).catch(() => ({ items: [] })),
  ]);
  const htpasswdNames = (htpasswds.items || []).map((x) => x.name);
  if (original && isKubernetes(original)) {
    ctx.navigate(route(['servers', editing]));
    return h('div');
  }
  const s = original || { hostnames: [''], locations: [{ path: '/', match: 'prefix' }] };
  const backendNames = (backends.items || []).map((b) => b.name);
  const certNames = (certs.items || []).map((c) => c.name);
  // The original location objects, by row, so that fields without inputs survive an edit.
  const kept = new WeakMap();

  const name = input({ name: 'name', value: s.name || '', readOnly: Boolean(editing), autocapitalize: 'none', testid: 'server-name' });
  const hostnames = rowList({
    prefix: 'hostnames',
    legend: 'Hostnames',
    noun: 'hostname',
    addLabel: 'Add hostname',
    testid: 'hostname',
    min: 1,
    hint: 'DNS names this server answers, lowercase; a wildcard may be the whole first label (*.example.com) or last label (www.example.*).',
    values: (s.hostnames && s.hostnames.length ? s.hostnames : ['']).map((x) => ({ host: x })),
    inline: true,
    makeRow: (v) => {
      const f = field({ label: 'Hostname', input: input({ value: v.host || '', placeholder: 'shop.example.com', autocapitalize: 'none', class: 'input-host' }), sub: '', testid: 'hostname-input' });
      // renumber() labels it "Hostname 1", "Hostname 2", …
      f.querySelector('label').dataset.rowLabel = 'Hostname';
      return f;
    },
  });
  // A hostname row's input is the row's own path (hostnames[0]), not a sub-field.
  const backendOptions = (current) => [['', backendNames.length ? 'Choose a backend' : 'Create a backend first'], ...backendNames.map((n) => [n, n]),
    ...(current && !backendNames.includes(current) ? [[current, `${current} (missing)`]] : [])];
  const locations = rowList({
    prefix: 'locations',
    legend: 'Locations',
    noun: 'location',
    addLabel: 'Add location',
    testid: 'location',
    hint: 'Prefix /api matches /api, /api/ and /api/x but never /apix. Exact matches one path; regex is a restricted regular expression starting with / or ^/.',
    values: s.locations || [],
    makeRow: (l) => [
      field({ label: 'Path', input: input({ value: l.path || '', placeholder: '/api', class: 'input-path', autocapitalize: 'none' }), sub: 'path', testid: 'location-path' }),
      field({ label: 'Match', input: select([['prefix', 'prefix'], ['exact', 'exact'], ['regex', 'regex']], l.match || 'prefix'), sub: 'match', testid: 'location-match' }),
      field({ label: 'Backend', input: select(backendOptions(l.backend), l.backend || ''), sub: 'backend', testid: 'location-backend' }),
      field({ label: 'Rewrite to', input: input({ value: l.rewrite || '', placeholder: '/', class: 'input-path' }), sub: 'rewrite', testid: 'location-rewrite', hint: 'Optional, prefix only.' }),
      whenFields(l), // request conditions, after the row's own inputs
      authFields(l, htpasswdNames), // policies; its inputs come last in the row
      accessFields(l), // policies: access lists and limits, after auth's inputs
      httpFields(l), // policies: CORS and redirect, after auth
      proxyFields(l, backendNames), // policies: body, retries and error pages
      upstreamHostFields(l),
    ],
  });
  [...locations.list.children].forEach((row, i) => kept.set(row, s.locations[i]));

  const tlsCert = select([['', 'None (plain HTTP)'], ...certNames.map((n) => [n, n]),
    ...(s.tls && !certNames.includes(s.tls.certificate) ? [[s.tls.certificate, `${s.tls.certificate} (missing)`]] : [])],
  s.tls ? s.tls.certificate : '', { testid: 'server-tls-certificate' });
  const redirect = h('input', { type: 'checkbox', id: 'tls-redirect', checked: Boolean(s.tls && s.tls.redirect), testid: 'server-tls-redirect' });
  const redirectWrap = h('div', { class: 'check' }, redirect, h('label', { for: 'tls-redirect' }, 'Redirect plain HTTP to HTTPS (308)'));
  const clientTLS = clientTLSFields(s, (cas.items || []).map((x) => x.name)); // policies
  const syncTLS = () => { redirectWrap.hidden = !tlsCert.value; clientTLS.el.hidden = !tlsCert.value; };
  const redirects = serverRedirectFields(s); // policies
  tlsCert.addEventListener('change', syncTLS);
  syncTLS();

  const summary = formError();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'form-submit' }, editing ? 'Save changes' : 'Create server');
  const preview = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'form-preview' }, 'Preview changes');
  const form = h('form', { class: 'form', novalidate: true, testid: 'server-form' },
    summary,
    h('div', { class: 'field-grid' },
      field({ label: 'Name', input: name, path: 'name', hint: editing ? 'A server’s name cannot change.' : 'Lowercase letters, digits, “.”, “_” and “-”.' })),
    hostnames.el,
    h('fieldset', { class: 'fieldset', dataset: { field: 'tls' } },
      h('legend', null, 'TLS'),
      h('div', { class: 'field-grid' }, field({ label: 'Certificate', input: tlsCert, path: 'tls.certificate', hint: certNames.length ? 'Serve HTTPS with this certificate.' : 'Upload a certificate first to serve HTTPS.' })),
      redirectWrap,
      clientTLS.el),
    redirects.el,
    locations.el,
    reasonField({ testid: 'server-reason' }),
    h('div', { class: 'form-actions' }, submit, preview,
      h('a', { href: editing ? route(['servers', editing]) : '#/servers', class: 'btn btn-quiet', testid: 'form-cancel' }, 'Cancel')));

  const body = () => {
    const out = {
      name: name.value.trim(),
      hostnames: [...hostnames.list.children].map((row) => row.querySelector('input').value.trim()),
      locations: [...locations.list.children].map((row) => {
        const [path, rewrite] = row.querySelectorAll('input');
        const [match, backend] = row.querySelectorAll('select');
        const l = { ...(kept.get(row) || {}), path: path.value.trim(), match: match.value, backend: backend.value };
        if (!l.backend) delete l.backend; // a redirecting location needs none
        if (rewrite.value.trim()) l.rewrite = rewrite.value.trim();
        else delete l.rewrite;
        const auth = readAuth(row); // policies
        if (auth) l.auth = auth;
        else delete l.auth;
        const { access, limits } = readAccess(row); // policies
        if (access) l.access = access;
        else delete l.access;
        if (limits) l.limits = limits;
        else delete l.limits;
        const { cors, redirect } = readHTTP(row); // policies
        if (cors) l.cors = cors;
        else delete l.cors;
        if (redirect) l.redirect = redirect;
        else delete l.redirect;
        readProxy(row, l); // policies
        readUpstreamHost(row, l);
        readWhen(row, l);
        return l;
      }),
    };
    if (tlsCert.value) out.tls = { certificate: tlsCert.value, redirect: redirect.checked };
    const ct = tlsCert.value ? clientTLS.read() : undefined;
    if (ct) out.clientTLS = ct;
    redirects.read(out);
    if (original && original.source) out.source = original.source;
    return out;
  };
  const opts = () => ({ kind: 'server', plural: 'servers', original, body: body() });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submitObject(ctx, form, { ...opts(), submitButton: submit });
  });
  preview.addEventListener('click', () => previewObject(ctx, form, { ...opts(), button: preview }));

  return h('div', { testid: 'server-form-view' },
    pageHeader(editing ? `Edit server ${editing}` : 'New server', {
      subtitle: editing ? `Editing version #${original.version}. Saving makes a new revision; OpenResty reloads only after nginx -t accepts it.` : 'Saving makes a new revision; OpenResty reloads only after nginx -t accepts it.',
    }),
    form);
}
