// holds.js shows the objects that rollbacks hold back from Kubernetes (GET /holds): the
// reconciler leaves each as its rollback left it until the cluster asks for something
// else, or an editor releases the hold here.
import { h, route, replace } from '../dom.js';
import { agoEl } from '../format.js';
import { panel, table, button } from './common.js';
import { confirmWithReason } from '../dialog.js';

/**
 * holdsPanel returns {el, refresh}: el lists the holds, with a Release button for
 * editors, and is hidden while nothing is held; refresh reads them again.
 */
export function holdsPanel(ctx) {
  const { api, signal } = ctx;
  const el = h('div', { testid: 'holds', hidden: true });
  const refresh = async () => {
    const data = await api.get('/holds', undefined, signal);
    const items = (data && data.items) || [];
    el.hidden = !items.length;
    if (!items.length) {
      replace(el);
      return;
    }
    const columns = [
      { label: 'Object', cell: (x) => [h('span', { class: 'kind' }, x.kind), ' ', h('span', { class: 'mono' }, x.name)] },
      { label: 'Rollback', cell: (x) => h('a', { href: route(['history', x.revision]), testid: 'hold-revision' }, `#${x.revision}`) },
      { label: 'Held since', cell: (x) => agoEl(x.since) },
    ];
    if (ctx.can('editor')) {
      columns.push({ label: 'Actions', cell: (x) => button('Release', () => release(ctx, x, refresh),
        { kind: 'danger-quiet', class: 'btn-small', testid: 'hold-release' }) });
    }
    replace(el, panel(`Held back from Kubernetes (${items.length})`, [
      h('p', { class: 'muted' }, 'A rollback took these objects back from what Kubernetes wrote. The reconciler leaves them as the rollback left them until their Ingress or route asks for something else, or the hold is released.'),
      table(columns, items, {
        caption: 'Objects held back from Kubernetes',
        testid: 'hold-table',
        rowProps: (x) => ({ testid: 'hold-row', dataset: { kind: x.kind, name: x.name } }),
      }),
    ], { testid: 'holds-panel' }));
  };
  return { el, refresh };
}

/** release asks for a reason, then releases the hold on x and reads the holds again. */
async function release(ctx, x, refresh) {
  const res = await confirmWithReason({
    title: `Release ${x.kind} ${x.name}?`,
    testid: 'hold-release-dialog',
    danger: true,
    confirmLabel: 'Release',
    reasonHint: 'Say why: it is recorded in the audit log.',
    intro: h('p', null, `The reconciler then writes what the cluster asks for at its next sync: if that is still what revision #${x.revision} rolled back, it goes live again.`),
    // If-Match: a hold a newer rollback made since is not released in its place; the row
    // then shows that rollback, to be read before releasing. A hold released meanwhile
    // (by another editor, or by the reconciler, which makes no revision when it has
    // nothing to write) is what was asked for: no error.
    onConfirm: (reason) => ctx.api.request('DELETE', `/holds/${encodeURIComponent(x.kind)}/${encodeURIComponent(x.name)}`, { reason, ifMatch: x.revision })
      .catch((err) => {
        if (err.status === 404) return { gone: true };
        if (err.status === 412) return { newer: true };
        throw err;
      }),
  });
  if (!res) return;
  // 412 says the hold is gone or another rollback's (RFC 9110 answers both so): look.
  const now = res.newer ? await ctx.api.get('/holds').catch(() => null) : null;
  const again = now && (now.items || []).find((h) => h.kind === x.kind && h.name === x.name);
  if (again) ctx.notify.error(`Rollback #${again.revision} holds ${x.kind} ${x.name} now: read it before releasing.`);
  else if (res.gone || res.newer) ctx.notify.ok(`${x.kind} ${x.name} was no longer held.`);
  else ctx.notify.ok(`Released ${x.kind} ${x.name}.`);
  try {
    await refresh();
  } catch (err) {
    if (err.name !== 'AbortError') ctx.notify.error(err.message);
  }
}
