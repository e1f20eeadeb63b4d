// diff.js (view) compares any two revisions side by side: #/diff?from=3&to=7.
import { h } from '../dom.js';
import { pageHeader, panel } from './common.js';
import { diffView } from '../diff.js';
import { compareForm } from './history.js';

/** renderDiff fetches the diff from `from` to `to` and renders it. */
export async function renderDiff(ctx) {
  const { api, signal } = ctx;
  const revs = await api.get('/revisions', { limit: 1 }, signal);
  const head = revs.head || 0;
  const to = ctx.query.to !== undefined ? Number(ctx.query.to) : head;
  const from = ctx.query.from !== undefined ? Number(ctx.query.from) : Math.max(0, to - 1);
  ctx.setTitle(`Diff #${from} → #${to}`);
  const diff = await api.get(`/revisions/${to}/diff`, { against: from }, signal);
  return h('div', { testid: 'diff-page', dataset: { from, to } },
    pageHeader(`Revision #${from} → #${to}`, { subtitle: 'Before on the left, after on the right; changed lines are highlighted.' }),
    panel('Compare two revisions', compareForm(ctx, from, to), { testid: 'compare-panel' }),
    diffView(diff));
}
