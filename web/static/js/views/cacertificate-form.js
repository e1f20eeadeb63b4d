// cacertificate-form.js creates or replaces a CA certificate bundle (policies):
// PEM CA certificates, no key.
import { h, route } from '../dom.js';
import { field, input, reasonField, formError } from '../form.js';
import { pageHeader } from './common.js';
import { submitObject, previewObject } from './objects.js';
import { isKubernetes } from '../format.js';

/** renderCACertificateForm renders the create form or, with a name, the replace form. */
export async function renderCACertificateForm(ctx) {
  const { api, signal } = ctx;
  const editing = ctx.params.name;
  ctx.setTitle(editing ? `Replace CA bundle ${editing}` : 'New CA bundle');
  const original = editing ? await api.get('/caCertificates/' + encodeURIComponent(editing), undefined, signal) : null;
  if (original && isKubernetes(original)) {
    ctx.navigate(route(['caCertificates', editing]));
    return h('div');
  }
  const name = input({ name: 'name', value: editing || '', readOnly: Boolean(editing), autocapitalize: 'none', testid: 'ca-name' });
  const cert = h('textarea', { rows: '10', class: 'mono', spellcheck: 'false', autocomplete: 'off', placeholder: '-----BEGIN CERTIFICATE-----', testid: 'ca-cert' });
  cert.value = original ? original.cert || '' : '';
  const summary = formError();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'form-submit' }, editing ? 'Replace' : 'Create');
  const preview = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'form-preview' }, 'Preview changes');
  const form = h('form', { class: 'form', novalidate: true, testid: 'ca-form' },
    summary,
    h('div', { class: 'field-grid' }, field({ label: 'Name', input: name, path: 'name', hint: 'Backends name it to verify their endpoints.' })),
    field({ label: 'CA certificates (PEM)', input: cert, path: 'cert', wide: true,
      hint: 'One or more CA certificates (basicConstraints CA:TRUE). No private key.' }),
    reasonField({ testid: 'ca-reason' }),
    h('div', { class: 'form-actions' }, submit, preview,
      h('a', { href: editing ? route(['caCertificates', editing]) : '#/caCertificates', class: 'btn btn-quiet', testid: 'form-cancel' }, 'Cancel')));
  const body = () => {
    const out = { name: name.value.trim(), cert: cert.value.trim() + '\n' };
    if (original && original.source) out.source = original.source;
    return out;
  };
  const opts = () => ({ kind: 'caCertificate', plural: 'caCertificates', original, body: body() });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submitObject(ctx, form, { ...opts(), submitButton: submit });
  });
  preview.addEventListener('click', () => previewObject(ctx, form, { ...opts(), button: preview }));
  return h('div', { testid: 'ca-form-view' },
    pageHeader(editing ? `Replace CA bundle ${editing}` : 'New CA bundle', {
      subtitle: 'Saving makes a new revision; OpenResty reloads to read the new bundle where a backend uses it.',
    }),
    form);
}
