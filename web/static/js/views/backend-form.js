// backend-form.js creates and edits a backend: endpoints, balancing, affinity, canary,
// timeouts and retries, with a required reason and the API's validation shown per field.
import { h, route } from '../dom.js';
import { field, input, select, intOf, reasonField, formError, errorSlot } from '../form.js';
import { pageHeader } from './common.js';
import { rowList } from './rows.js';
import { submitObject, previewObject } from './objects.js';
import { isKubernetes } from '../format.js';
import { upstreamFields } from './backend-upstream.js';
import { affinityFields } from './backend-affinity.js';

/** renderBackendForm renders the create form (no name param) or the edit form. */
export async function renderBackendForm(ctx) {
  const { api, signal } = ctx;
  const editing = ctx.params.name;
  ctx.setTitle(editing ? `Edit backend ${editing}` : 'New backend');
  const [original, all, cas, certs] = await Promise.all([
    editing ? api.get('/backends/' + encodeURIComponent(editing), undefined, signal) : null,
    api.get('/backends', undefined, signal),
    // Policies: the CA bundles and certificates upstream TLS may name.
    api.get('/caCertificates', undefined, signal).catch(() => ({ items: [] })),
    api.get('/certificates', undefined, signal).catch(() => ({ items: [] })),
  ]);
  if (original && isKubernetes(original)) {
    ctx.navigate(route(['backends', editing]));
    return h('div');
  }
  const b = original || { endpoints: [{}], loadBalance: 'round_robin' };
  const others = (all.items || []).map((x) => x.name).filter((n) => n !== editing);

  const name = input({ name: 'name', value: b.name || '', readOnly: Boolean(editing), autocapitalize: 'none', testid: 'backend-name' });

  const endpoints = rowList({
    prefix: 'endpoints',
    legend: 'Endpoints',
    noun: 'endpoint',
    addLabel: 'Add endpoint',
    testid: 'endpoint',
    hint: 'Each endpoint is an IP address or DNS name and a port. Weight is its share relative to the others (1-1000).',
    values: b.endpoints && b.endpoints.length ? b.endpoints : [{}],
    makeRow: (e) => [
      field({ label: 'Address', input: input({ value: e.address || '', placeholder: '10.0.0.12', class: 'input-address', autocapitalize: 'none' }), sub: 'address', testid: 'endpoint-address' }),
      field({ label: 'Port', input: input({ type: 'number', inputmode: 'numeric', min: '1', max: '65535', value: e.port ? String(e.port) : '', class: 'input-port' }), sub: 'port', testid: 'endpoint-port' }),
      field({ label: 'Weight', input: input({ type: 'number', inputmode: 'numeric', min: '1', max: '1000', value: String(e.weight || 1), class: 'input-weight' }), sub: 'weight', testid: 'endpoint-weight' }),
    ],
  });

  const lb = select([['round_robin', 'Weighted round robin'], ['ewma', 'Peak EWMA (least latency)'], ['chash', 'Consistent hash']], b.loadBalance || 'round_robin', { name: 'loadBalance', testid: 'backend-lb' });
  const hashBy = input({ value: b.hashBy || '', placeholder: '$remote_addr', testid: 'backend-hashby' });
  const hashField = field({ label: 'Hash by', input: hashBy, path: 'hashBy', hint: 'An nginx variable such as $remote_addr, $request_uri or $cookie_user.' });
  const syncHash = () => { hashField.hidden = lb.value !== 'chash'; };
  lb.addEventListener('change', syncHash);
  syncHash();

  const affinity = affinityFields(b);
  const retries = input({ type: 'number', inputmode: 'numeric', min: '0', max: '10', value: String(b.retries || 0), testid: 'backend-retries' });
  const t = b.timeouts || {};
  const tConnect = input({ value: t.connect || '', placeholder: '5s', class: 'input-short', testid: 'backend-timeout-connect' });
  const tSend = input({ value: t.send || '', placeholder: '60s', class: 'input-short', testid: 'backend-timeout-send' });
  const tRead = input({ value: t.read || '', placeholder: '60s', class: 'input-short', testid: 'backend-timeout-read' });

  const c = b.canary || {};
  const canaryOn = h('input', { type: 'checkbox', id: 'canary-on', checked: Boolean(b.canary), testid: 'canary-on' });
  const cBackend = select([['', others.length ? 'Choose a backend' : 'No other backend exists yet'], ...others.map((n) => [n, n]), ...(c.backend && !others.includes(c.backend) ? [[c.backend, c.backend]] : [])], c.backend || '', { testid: 'canary-backend' });
  const cWeight = input({ type: 'number', inputmode: 'numeric', min: '0', max: '100', value: c.weight ? String(c.weight) : '', placeholder: '10', class: 'input-short', testid: 'canary-weight' });
  const cHeader = input({ value: c.header || '', placeholder: 'X-Canary', testid: 'canary-header' });
  const cHeaderValue = input({ value: c.headerValue || '', placeholder: 'always', testid: 'canary-header-value' });
  const cCookie = input({ value: c.cookie || '', placeholder: 'canary', testid: 'canary-cookie' });
  const canaryFields = h('div', { class: 'field-grid' },
    field({ label: 'Alternative backend', input: cBackend, path: 'canary.backend' }),
    field({ label: 'Weight (percent)', input: cWeight, path: 'canary.weight', hint: 'Share of requests sent to the alternative, 0-100.' }),
    field({ label: 'Header', input: cHeader, path: 'canary.header', hint: 'Requests with this header go to the alternative.' }),
    field({ label: 'Header value', input: cHeaderValue, path: 'canary.headerValue', hint: 'Only when the header has this value (optional).' }),
    field({ label: 'Cookie', input: cCookie, path: 'canary.cookie', hint: 'Requests with this cookie set to "always" go to the alternative.' }));
  const syncCanary = () => { canaryFields.hidden = !canaryOn.checked; };
  canaryOn.addEventListener('change', syncCanary);
  syncCanary();

  const upstream = upstreamFields(b, (cas.items || []).map((x) => x.name), (certs.items || []).map((x) => x.name));

  const summary = formError();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'form-submit' }, editing ? 'Save changes' : 'Create backend');
  const preview = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'form-preview' }, 'Preview changes');
  const form = h('form', { class: 'form', novalidate: true, testid: 'backend-form' },
    summary,
    h('div', { class: 'field-grid' },
      field({ label: 'Name', input: name, path: 'name', hint: editing ? 'A backend’s name cannot change.' : 'Lowercase letters, digits, “.”, “_” and “-”; locations refer to it by this name.' })),
    endpoints.el,
    upstream.el,
    h('fieldset', { class: 'fieldset', dataset: { field: 'balancing' } },
      h('legend', null, 'Balancing'),
      h('div', { class: 'field-grid' },
        field({ label: 'Load balancing', input: lb, path: 'loadBalance' }),
        hashField,
        field({ label: 'Retries', input: retries, path: 'retries', hint: 'Other endpoints a failed request may try, 0-10.' }))),
    affinity.el,
    h('fieldset', { class: 'fieldset', dataset: { field: 'timeouts' } },
      h('legend', null, 'Upstream timeouts'),
      h('p', { class: 'field-hint' }, 'In nginx notation such as 500ms, 5s or 2m; empty keeps the global setting.'),
      errorSlot('timeouts'),
      h('div', { class: 'field-grid field-grid-3' },
        field({ label: 'Connect', input: tConnect, path: 'timeouts.connect' }),
        field({ label: 'Send', input: tSend, path: 'timeouts.send' }),
        field({ label: 'Read', input: tRead, path: 'timeouts.read' }))),
    h('fieldset', { class: 'fieldset', dataset: { field: 'canary' } },
      h('legend', null, 'Canary'),
      h('div', { class: 'check' }, canaryOn, h('label', { for: 'canary-on' }, 'Send part of the traffic to another backend')),
      errorSlot('canary'),
      canaryFields),
    reasonField({ testid: 'backend-reason' }),
    h('div', { class: 'form-actions' }, submit, preview,
      h('a', { href: editing ? route(['backends', editing]) : '#/backends', class: 'btn btn-quiet', testid: 'form-cancel' }, 'Cancel')));

  const body = () => {
    const out = {
      name: name.value.trim(),
      endpoints: [...endpoints.list.children].map((row) => {
        const [addr, port, weight] = row.querySelectorAll('input');
        return { address: addr.value.trim(), port: intOf(port), weight: intOf(weight) };
      }),
      loadBalance: lb.value,
    };
    if (lb.value === 'chash') out.hashBy = hashBy.value.trim();
    affinity.apply(out);
    const r = intOf(retries);
    if (r) out.retries = r;
    const to = { connect: tConnect.value.trim(), send: tSend.value.trim(), read: tRead.value.trim() };
    if (to.connect || to.send || to.read) out.timeouts = Object.fromEntries(Object.entries(to).filter(([, v]) => v));
    if (canaryOn.checked) {
      out.canary = { backend: cBackend.value };
      const w = intOf(cWeight);
      if (w) out.canary.weight = w;
      if (cHeader.value.trim()) out.canary.header = cHeader.value.trim();
      if (cHeaderValue.value.trim()) out.canary.headerValue = cHeaderValue.value.trim();
      if (cCookie.value.trim()) out.canary.cookie = cCookie.value.trim();
    }
    upstream.apply(out);
    if (original && original.source) out.source = original.source;
    return out;
  };
  const opts = () => ({ kind: 'backend', plural: 'backends', original, body: body() });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submitObject(ctx, form, { ...opts(), submitButton: submit });
  });
  preview.addEventListener('click', () => previewObject(ctx, form, { ...opts(), button: preview }));

  return h('div', { testid: 'backend-form-view' },
    pageHeader(editing ? `Edit backend ${editing}` : 'New backend', {
      subtitle: editing ? `Editing version #${original.version}. Saving makes a new revision; a concurrent change is detected, not overwritten.` : 'Saving makes a new revision and applies it without a reload.',
    }),
    form);
}
