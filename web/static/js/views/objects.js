// objects.js holds what backends, servers and certificates share: saving a form (create
// with POST, replace with PUT and If-Match), previewing a write as a dry run, and deleting
// with a reason.
import { h, route } from '../dom.js';
import { ApiError } from '../api.js';
import { confirmWithReason, openDialog } from '../dialog.js';
import { clearErrors, showError, needReason } from '../form.js';
import { diffView } from '../diff.js';
import { badge } from '../format.js';

/** writeSummary says what a write did, for the status line. */
export function writeSummary(res, what) {
  if (res.noop) return `Nothing changed in ${what}; no revision was made.`;
  return `${what}: saved as revision #${res.revision ? res.revision.id : '?'}.`;
}

/**
 * submitObject sends the form's object. original is the object being edited (null to
 * create); plural is the API collection ("backends"). On success it goes to the object's
 * page; on failure it shows the API's error next to the field it names.
 */
export async function submitObject(ctx, form, { kind, plural, original, body, submitButton }) {
  clearErrors(form);
  const reason = needReason(form);
  if (reason === null) return;
  const name = body.name;
  submitButton.disabled = true;
  const label = submitButton.textContent;
  submitButton.textContent = 'Saving…';
  try {
    let res;
    if (original) {
      res = await ctx.api.request('PUT', `/${plural}/${encodeURIComponent(original.name)}`, { body, reason, ifMatch: original.version });
    } else {
      res = await ctx.api.request('POST', `/${plural}`, { body, reason });
    }
    ctx.notify.ok(writeSummary(res.data || {}, `${kind} ${name}`));
    ctx.navigate(route([plural, name]));
  } catch (err) {
    if (err.name === 'AbortError') return;
    showError(form, explain(err, kind, name, plural), err.status === 412 ? reloadLink(ctx) : null);
  } finally {
    submitButton.disabled = false;
    submitButton.textContent = label;
  }
}

/** explain rewrites the errors whose API text needs the UI's context. */
export function explain(err, kind, name) {
  if (err instanceof ApiError && err.status === 412) {
    const what = name ? `${kind} ${name}` : kind; // a singleton (the settings) has no name
    return { message: `Someone changed ${what} after you opened it, so nothing was saved. Reload to see their change, then edit again.` };
  }
  if (err instanceof ApiError && err.status === 403) {
    return { message: 'Your token’s role may not make this change.' };
  }
  return { field: err.field, message: err.message };
}

/** reloadLink draws the view again, to show what someone else saved meanwhile. */
export function reloadLink(ctx) {
  return h('button', { type: 'button', class: 'btn btn-link', onClick: () => ctx.app.route() }, 'Reload');
}

/** previewObject runs the write as a dry run and shows the diff it would make. */
export async function previewObject(ctx, form, { kind, plural, original, body, button, path, title }) {
  clearErrors(form);
  const ta = form.querySelector('[data-field="message"]');
  const reason = (ta && ta.value.trim()) || 'preview';
  button.disabled = true;
  try {
    const opts = { body, reason, query: { dryRun: 'true' } };
    // path replaces the object's own for a singleton such as the settings.
    const res = original
      ? await ctx.api.request('PUT', path || `/${plural}/${encodeURIComponent(original.name)}`, { ...opts, ifMatch: original.version })
      : await ctx.api.request('POST', `/${plural}`, opts);
    const r = res.data || {};
    const facts = [];
    if (r.mode) facts.push(h('span', null, 'Apply mode: ', badge(r.mode)));
    if (r.validation) facts.push(h('span', null, ' Validation: ', r.validation));
    const dlg = openDialog({
      title: title || `Preview: ${kind} ${body.name}`,
      testid: 'preview-dialog',
      wide: true,
      content: [
        h('p', null, r.noop ? 'This change makes no difference; saving it makes no revision.' : 'Saving makes this change. Nothing is stored yet.'),
        facts.length ? h('p', null, facts) : null,
        r.noop ? null : diffView(r.diff || { entries: [] }, { fromLabel: 'Now', toLabel: 'After saving', headingLevel: 'h3' }),
      ],
      actions: [h('button', { type: 'button', class: 'btn btn-primary', testid: 'preview-close', onClick: () => dlg.close() }, 'Close')],
    });
  } catch (err) {
    if (err.name !== 'AbortError') showError(form, explain(err, kind, body.name));
  } finally {
    button.disabled = false;
  }
}

/** deleteObject asks for a reason and deletes obj, then returns to the list. */
export async function deleteObject(ctx, kind, plural, obj) {
  const res = await confirmWithReason({
    title: `Delete ${kind} ${obj.name}?`,
    testid: 'delete-dialog',
    danger: true,
    confirmLabel: `Delete ${kind}`,
    intro: h('p', null, `This writes a new revision without ${kind} `, h('strong', { class: 'mono' }, obj.name),
      '. The history keeps it, so a rollback can bring it back.'),
    onConfirm: async (reason) => {
      try {
        return (await ctx.api.request('DELETE', `/${plural}/${encodeURIComponent(obj.name)}`, { reason, ifMatch: obj.version })).data;
      } catch (err) {
        throw Object.assign(new Error(explain(err, kind, obj.name).message), { field: '' });
      }
    },
  });
  if (!res) return;
  ctx.notify.ok(res.noop ? `${kind} ${obj.name} was already gone.` : `Deleted ${kind} ${obj.name} in revision #${res.revision ? res.revision.id : '?'}.`);
  ctx.navigate(route([plural]));
}
