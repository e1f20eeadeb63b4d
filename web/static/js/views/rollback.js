// rollback.js rolls the configuration back to an earlier revision after showing exactly
// what that will change: the diff from the current head to the target revision.
import { h } from '../dom.js';
import { confirmWithReason } from '../dialog.js';
import { diffView } from '../diff.js';

/** rollback asks for confirmation and a reason, then POSTs the rollback; it resolves to the WriteResult or null. */
export async function rollback(ctx, target) {
  const { api } = ctx;
  const revs = await api.get('/revisions', { limit: 1 });
  const head = revs.head;
  const diff = await api.get(`/revisions/${target}/diff`, { against: head });
  const same = !(diff.entries || []).length;
  const res = await confirmWithReason({
    title: `Roll back to revision #${target}?`,
    testid: 'rollback-dialog',
    danger: true,
    wide: true,
    confirmLabel: `Roll back to #${target}`,
    reasonHint: 'Say why: it is recorded with the new revision and in the audit log.',
    intro: [
      h('p', null, `This writes a new revision whose configuration equals revision #${target}. The history is kept, so this rollback can itself be undone.`),
      same
        ? h('p', { class: 'note', testid: 'rollback-same' }, `Head #${head} already has the same configuration as #${target}; rolling back changes nothing.`)
        : h('div', { class: 'dialog-diff', testid: 'rollback-diff' }, diffView(diff, { fromLabel: `Head #${head}`, toLabel: `After rollback (= #${target})`, headingLevel: 'h3' })),
    ],
    onConfirm: async (reason) => (await api.request('POST', `/revisions/${target}/rollback`, { body: { message: reason } })).data,
  });
  if (!res) return null;
  ctx.notify.ok(res.noop ? `Nothing to roll back: the configuration already equals #${target}.` : `Rolled back to #${target} in revision #${res.revision ? res.revision.id : '?'}.`);
  return res;
}
