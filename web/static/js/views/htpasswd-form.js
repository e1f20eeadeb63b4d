// htpasswd-form.js creates or replaces an htpasswd object (policies). The lines
// textarea always starts empty: the API never returns the hashes, and on replace an empty
// field keeps the stored lines.
import { h, route } from '../dom.js';
import { field, input, reasonField, formError } from '../form.js';
import { pageHeader } from './common.js';
import { submitObject, previewObject } from './objects.js';
import { isKubernetes } from '../format.js';

/** renderHtpasswdForm renders the create form or, with a name, the replace form. */
export async function renderHtpasswdForm(ctx) {
  const { api, signal } = ctx;
  const editing = ctx.params.name;
  ctx.setTitle(editing ? `Replace htpasswd ${editing}` : 'New htpasswd');
  const original = editing ? await api.get('/htpasswds/' + encodeURIComponent(editing), undefined, signal) : null;
  if (original && isKubernetes(original)) {
    ctx.navigate(route(['htpasswds', editing]));
    return h('div');
  }
  const name = input({ name: 'name', value: editing || '', readOnly: Boolean(editing), autocapitalize: 'none', testid: 'htpasswd-name' });
  const content = h('textarea', { rows: '8', class: 'mono', spellcheck: 'false', autocomplete: 'off', placeholder: 'alice:$2y$10$…', testid: 'htpasswd-content' });
  const summary = formError();
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'form-submit' }, editing ? 'Replace' : 'Create');
  const preview = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'form-preview' }, 'Preview changes');
  const form = h('form', { class: 'form', novalidate: true, testid: 'htpasswd-form' },
    summary,
    h('div', { class: 'field-grid' }, field({ label: 'Name', input: name, path: 'name', hint: 'Locations name it for basic auth.' })),
    field({ label: 'Users (user:hash lines)', input: content, path: 'content', wide: true,
      hint: (editing ? 'Leave empty to keep the stored lines. ' : '') + 'Hashes: bcrypt (htpasswd -B), $apr1$ (htpasswd -m), {SHA} (htpasswd -s), $5$ or $6$ (openssl passwd -5/-6). Never shown again after saving.' }),
    reasonField({ testid: 'htpasswd-reason' }),
    h('div', { class: 'form-actions' }, submit, preview,
      h('a', { href: editing ? route(['htpasswds', editing]) : '#/htpasswds', class: 'btn btn-quiet', testid: 'form-cancel' }, 'Cancel')));
  const body = () => {
    const out = { name: name.value.trim() };
    const lines = content.value.split('\n').map((l) => l.trim()).filter(Boolean);
    if (lines.length) out.content = lines.join('\n') + '\n';
    if (original && original.source) out.source = original.source;
    return out;
  };
  const opts = () => ({ kind: 'htpasswd', plural: 'htpasswds', original, body: body() });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submitObject(ctx, form, { ...opts(), submitButton: submit });
  });
  preview.addEventListener('click', () => previewObject(ctx, form, { ...opts(), button: preview }));
  return h('div', { testid: 'htpasswd-form-view' },
    pageHeader(editing ? `Replace htpasswd ${editing}` : 'New htpasswd', {
      subtitle: 'Saving makes a new revision; OpenResty reloads to read the new file.',
    }),
    form);
}
