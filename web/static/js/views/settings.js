// settings.js shows the proxy-wide settings (GET /api/v1/settings) to everyone and lets an
// admin change them: a PUT with If-Match and a reason makes a revision, as any write does.
// Editors and viewers see the same fields read only, since PUT /settings needs the admin
// role. Admins also get the history's retention policy, which is not part of the settings.
import { h } from '../dom.js';
import { reasonField, formError, clearErrors, needReason, showError } from '../form.js';
import { pageHeader } from './common.js';
import { settingsFields, readSettings } from './settings-fields.js';
import { retentionPanel } from './retention.js';
import { writeSummary, explain, reloadLink, previewObject } from './objects.js';

/** renderSettings renders the settings form, read only unless the token is an admin's. */
export async function renderSettings(ctx) {
  const { api, signal } = ctx;
  ctx.setTitle('Settings');
  const admin = ctx.can('admin');
  const [s, retention] = await Promise.all([
    api.get('/settings', undefined, signal),
    admin ? api.get('/retention', undefined, signal) : null,
  ]);
  const summary = formError();
  const form = h('form', { class: 'form', novalidate: true, testid: 'settings-form' },
    summary,
    admin ? null : h('p', { class: 'note', testid: 'settings-read-only' },
      `Your token has the ${ctx.session.role} role, so you see the settings read only: only an admin may change them.`),
    settingsFields(s, !admin));
  if (admin) {
    const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'form-submit' }, 'Save settings');
    const preview = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'form-preview' }, 'Preview changes');
    form.append(reasonField({ testid: 'settings-reason' }), h('div', { class: 'form-actions' }, submit, preview));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      save(ctx, form, s, submit);
    });
    preview.addEventListener('click', () => previewObject(ctx, form, {
      kind: 'settings', original: s, body: readSettings(form), button: preview, path: '/settings', title: 'Preview: settings',
    }));
  }
  return h('div', { testid: 'settings' },
    pageHeader('Settings', {
      subtitle: `Proxy-wide settings, version #${s.version}. Saving makes a new revision; a change to an nginx directive reloads OpenResty once nginx -t accepts it.`,
    }),
    form,
    retention ? retentionPanel(ctx, retention) : null);
}

async function save(ctx, form, original, submit) {
  clearErrors(form);
  const reason = needReason(form);
  if (reason === null) return;
  submit.disabled = true;
  submit.textContent = 'Saving…';
  try {
    const res = await ctx.api.request('PUT', '/settings', { body: readSettings(form), reason, ifMatch: original.version });
    ctx.notify.ok(writeSummary(res.data || {}, 'Settings'));
    ctx.app.route(); // draw the stored values and the new version
  } catch (err) {
    if (err.name === 'AbortError') return;
    showError(form, explain(err, 'the settings'), err.status === 412 ? reloadLink(ctx) : null);
  } finally {
    submit.disabled = false;
    submit.textContent = 'Save settings';
  }
}
