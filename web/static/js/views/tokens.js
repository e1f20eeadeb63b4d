// tokens.js lets admins list, create and delete API tokens. A new token's secret is shown
// once, in a dialog, because only its hash is stored.
import { h } from '../dom.js';
import { badge, timeEl, agoEl } from '../format.js';
import { pageHeader, panel, table, emptyState, button } from './common.js';
import { field, input, select, formError, clearErrors, showError } from '../form.js';
import { openDialog, confirmAction } from '../dialog.js';

const ROLES = [['viewer', 'viewer: read only'], ['editor', 'editor: change config, roll back'], ['admin', 'admin: also tokens and settings']];

/** renderTokens draws the token list and the create form. */
export async function renderTokens(ctx) {
  ctx.setTitle('Tokens');
  const { api, signal } = ctx;
  const data = await api.get('/tokens', undefined, signal);
  const tokens = data.items || data || [];

  const name = input({ name: 'name', placeholder: 'ci-deploy', autocapitalize: 'none', testid: 'token-name' });
  const role = select(ROLES, 'viewer', { name: 'role', testid: 'token-role' });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'token-create' }, 'Create token');
  const form = h('form', { class: 'form form-inline', novalidate: true, testid: 'token-form' },
    formError(),
    h('div', { class: 'field-grid' },
      field({ label: 'Name', input: name, path: 'name', hint: 'Who or what uses it; shown as the actor in the history.' }),
      field({ label: 'Role', input: role, path: 'role' })),
    h('div', { class: 'form-actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(form);
    submit.disabled = true;
    try {
      const res = await api.request('POST', '/tokens', { body: { name: name.value.trim(), role: role.value } });
      showSecret(ctx, res.data);
    } catch (err) {
      if (err.name !== 'AbortError') showError(form, { field: err.field || (err.code === 'conflict' ? 'name' : ''), message: err.message });
    } finally {
      submit.disabled = false;
    }
  });

  const list = table([
    { label: 'Name', cell: (t) => h('span', { class: 'strong' }, t.name, t.name === ctx.session.name ? h('span', { class: 'muted small' }, ' (you)') : null) },
    { label: 'Role', cell: (t) => badge(t.role, { admin: 'accent', editor: 'info', viewer: 'muted' }[t.role]) },
    { label: 'Created', cell: (t) => timeEl(t.created) },
    { label: 'Last used', cell: (t) => (t.lastUsed ? agoEl(t.lastUsed) : h('span', { class: 'muted' }, 'never')) },
    { label: 'Actions', cell: (t) => button('Delete', () => deleteToken(ctx, t), { kind: 'danger-quiet', class: 'btn-small', testid: 'token-delete' }) },
  ], tokens, {
    caption: 'API tokens',
    testid: 'token-table',
    rowProps: (t) => ({ testid: 'token-row', dataset: { id: t.id, name: t.name, role: t.role } }),
    empty: emptyState('No tokens.', null, 'token-empty'),
  });

  return h('div', { testid: 'tokens' },
    pageHeader('Tokens', { subtitle: 'API credentials. restyplane stores only their hashes, so a secret is shown once, when it is created.' }),
    panel('New token', form, { testid: 'token-new' }),
    panel('Tokens', list, { testid: 'token-list' }));
}

function showSecret(ctx, tok) {
  const secret = h('input', { type: 'text', readOnly: true, value: tok.secret || '', class: 'mono secret', testid: 'token-secret', id: 'token-secret', spellcheck: 'false' });
  const copied = h('span', { class: 'muted small', role: 'status' });
  const copy = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'token-copy' }, 'Copy');
  copy.addEventListener('click', async () => {
    secret.select();
    try {
      await navigator.clipboard.writeText(secret.value);
      copied.textContent = 'Copied.';
    } catch {
      copied.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
  const done = h('button', { type: 'button', class: 'btn btn-primary', testid: 'token-secret-done' }, 'I have stored it');
  const dlg = openDialog({
    title: `Token ${tok.name} created`,
    testid: 'token-secret-dialog',
    content: [
      h('p', null, 'Copy the secret now. It is not stored and cannot be shown again.'),
      h('div', { class: 'field' }, h('label', { for: 'token-secret' }, `Secret (${tok.role})`), h('div', { class: 'copy-row' }, secret, copy), copied),
    ],
    actions: [done],
    onClose: () => ctx.app.route(),
  });
  done.addEventListener('click', () => dlg.close());
  secret.focus();
  secret.select();
}

function deleteToken(ctx, t) {
  const self = t.name === ctx.session.name;
  confirmAction({
    title: `Delete token ${t.name}?`,
    testid: 'token-delete',
    confirmLabel: 'Delete token',
    content: [
      h('p', null, 'Anything that uses this token is refused from now on. This cannot be undone; create a new token instead.'),
      self ? h('p', { class: 'note note-bad' }, 'This looks like the token you are signed in with: you will be signed out.') : null,
    ],
    run: () => ctx.api.request('DELETE', `/tokens/${t.id}`),
    done: () => {
      ctx.notify.ok(`Deleted token ${t.name}.`);
      ctx.app.route();
    },
  });
}
