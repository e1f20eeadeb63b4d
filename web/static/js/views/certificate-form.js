// certificate-form.js uploads a certificate (PEM chain and key) or replaces one. The key
// textarea always starts empty: the API never returns a key, and on replace an empty key
// keeps the stored one.
import { h, route } from '../dom.js';
import { field, input, reasonField, formError } from '../form.js';
import { pageHeader } from './common.js';
import { submitObject, previewObject } from './objects.js';
import { isKubernetes } from '../format.js';

/** renderCertificateForm renders the upload form or, with a name, the replace form. */
export async function renderCertificateForm(ctx) {
  const { api, signal } = ctx;
  const editing = ctx.params.name;
  ctx.setTitle(editing ? `Replace certificate ${editing}` : 'Upload certificate');
  const original = editing ? await api.get('/certificates/' + encodeURIComponent(editing), undefined, signal) : null;
  if (original && isKubernetes(original)) {
    ctx.navigate(route(['certificates', editing]));
    return h('div');
  }
  const name = input({ name: 'name', value: editing || '', readOnly: Boolean(editing), autocapitalize: 'none', testid: 'certificate-name' });
  const cert = h('textarea', { rows: '8', class: 'mono', spellcheck: 'false', placeholder: '-----BEGIN CERTIFICATE-----', testid: 'certificate-cert' });
  // The key field is a textarea with autocomplete off; it is never filled from the API.
  const key = h('textarea', { rows: '6', class: 'mono', spellcheck: 'false', autocomplete: 'off', placeholder: '-----BEGIN PRIVATE KEY-----', testid: 'certificate-key' });
  const summary = formError();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'form-submit' }, editing ? 'Replace certificate' : 'Upload certificate');
  const preview = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'form-preview' }, 'Preview changes');
  const form = h('form', { class: 'form', novalidate: true, testid: 'certificate-form' },
    summary,
    h('div', { class: 'field-grid' }, field({ label: 'Name', input: name, path: 'name', hint: editing ? 'A certificate’s name cannot change.' : 'Servers refer to the certificate by this name.' })),
    field({ label: 'Certificate chain (PEM)', input: cert, path: 'cert', wide: true, hint: 'The leaf certificate first, then intermediates.' }),
    field({ label: 'Private key (PEM)', input: key, path: 'key', wide: true, hint: editing ? 'Leave empty to keep the stored key. The key is never shown again after upload.' : 'Kept by restyplane and handed only to OpenResty: never shown again, never written to the history or the audit log.' }),
    reasonField({ testid: 'certificate-reason' }),
    h('div', { class: 'form-actions' }, submit, preview,
      h('a', { href: editing ? route(['certificates', editing]) : '#/certificates', class: 'btn btn-quiet', testid: 'form-cancel' }, 'Cancel')));
  const body = () => {
    const out = { name: name.value.trim(), cert: cert.value.trim() ? cert.value.trim() + '\n' : '' };
    if (key.value.trim()) out.key = key.value.trim() + '\n';
    if (original && original.source) out.source = original.source;
    return out;
  };
  const opts = () => ({ kind: 'certificate', plural: 'certificates', original, body: body() });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submitObject(ctx, form, { ...opts(), submitButton: submit });
  });
  preview.addEventListener('click', () => previewObject(ctx, form, { ...opts(), button: preview }));
  return h('div', { testid: 'certificate-form-view' },
    pageHeader(editing ? `Replace certificate ${editing}` : 'Upload certificate', {
      subtitle: 'Saving makes a new revision; OpenResty serves the new certificate without a reload.',
    }),
    form);
}
