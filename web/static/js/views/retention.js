// retention.js is the history's retention policy (GET/PUT /api/v1/retention), shown to
// admins in the settings view. It is not one of the settings: it shapes only restyplane's
// own database, so a change makes no revision and reloads nothing, and the API audits it
// itself (with no reason to give).
import { h } from '../dom.js';
import { field, input, intOf, formError, clearErrors, showError } from '../form.js';
import { panel } from './common.js';
import { explain } from './objects.js';

/** retentionPanel renders the policy pol with a form to replace it. */
export function retentionPanel(ctx, pol) {
  const num = (v, testid) => input({ type: 'number', min: 0, step: 1, value: String(v || 0), testid });
  const keepRevisions = num(pol.keepRevisions, 'retention-keep-revisions');
  const keepDays = num(pol.keepDays, 'retention-keep-days');
  const submit = h('button', { type: 'submit', class: 'btn btn-primary', testid: 'retention-submit' }, 'Save retention policy');
  const form = h('form', { class: 'form', novalidate: true, testid: 'retention-form' },
    formError(),
    h('p', { class: 'field-hint' },
      'A revision is pruned only when it is not among the newest kept revisions and older than the kept days; a pruned revision can no longer be read or rolled back to. ',
      'Pruning runs periodically (hourly unless --prune-interval says otherwise). This policy is not part of the configuration: changing it makes no revision and does not reload nginx; the audit log records it.'),
    h('div', { class: 'field-grid' },
      field({ label: 'Revisions to keep', input: keepRevisions, path: 'keepRevisions', hint: '0 turns pruning off: the history is kept for ever.' }),
      field({ label: 'Days to keep', input: keepDays, path: 'keepDays', hint: 'Revisions younger than this are kept whatever their number.' })),
    pol.floor ? h('p', { class: 'muted small', testid: 'retention-floor' }, `The oldest revision still readable is #${pol.floor}.`) : null,
    h('div', { class: 'form-actions' }, submit));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors(form);
    submit.disabled = true;
    try {
      const body = { keepRevisions: intOf(keepRevisions), keepDays: intOf(keepDays) };
      const res = await ctx.api.request('PUT', '/retention', { body });
      const p = res.data || body;
      ctx.notify.ok(p.keepRevisions ? `Retention policy saved: keep the newest ${p.keepRevisions} revisions and ${p.keepDays} days.` : 'Retention policy saved: pruning is off.');
      ctx.app.route();
    } catch (err) {
      if (err.name !== 'AbortError') showError(form, explain(err, 'the retention policy'));
    } finally {
      submit.disabled = false;
    }
  });
  return panel('History retention', form, { testid: 'retention' });
}
