// instances.js shows the fleet: serve's own OpenResty and every agent, with the revision
// each serves, how far it lags the head, whether it holds a feed stream, when it was last
// heard from, and its last apply with nginx's own error when the apply was rejected. An
// admin may forget an agent that is gone, such as a pod that a rollout replaced.
import { h, route } from '../dom.js';
import { badge, agoEl, humanize } from '../format.js';
import { pageHeader, table, emptyState, button } from './common.js';
import { confirmAction } from '../dialog.js';

function lastApply(a) {
  if (!a) return h('span', { class: 'muted' }, '—');
  const tone = a.outcome === 'success' ? 'ok' : 'bad';
  return h('div', null,
    badge(humanize(a.outcome), tone), ' ',
    h('a', { href: route(['history', a.revision]) }, `#${a.revision}`), ' ',
    h('span', { class: 'muted small' }, a.mode),
    a.error ? h('pre', { class: 'break small', testid: 'instance-error' }, a.error) : null);
}

/** renderInstances draws the instance list. */
export async function renderInstances(ctx) {
  ctx.setTitle('Instances');
  const { api, signal } = ctx;
  const data = await api.get('/instances', {}, signal);
  const items = data.items || [];
  const columns = [
    { label: 'Name', cell: (i) => h('span', { class: 'strong mono' }, i.name, i.managed ? h('span', { class: 'muted small' }, ' (this server)') : null) },
    { label: 'Applied', cell: (i) => (i.applied ? h('a', { href: route(['history', i.applied]) }, `#${i.applied}`) : h('span', { class: 'muted' }, 'none')) },
    { label: 'Lag', cell: (i) => badge(i.lag === 0 ? 'at head' : `${i.lag} behind`, i.lag === 0 ? 'ok' : 'warn', { testid: 'instance-lag' }) },
    { label: 'Connected', cell: (i) => badge(i.connected ? 'connected' : 'disconnected', i.connected ? 'ok' : 'bad', { testid: 'instance-connected' }) },
    { label: 'State', cell: (i) => h('span', null, i.state || '—') },
    { label: 'Last seen', cell: (i) => agoEl(i.lastSeen) },
    { label: 'Version', cell: (i) => h('span', { class: 'muted small' }, i.version || '—') },
    { label: 'Last apply', cell: (i) => lastApply(i.lastApply) },
  ];
  if (ctx.can('admin')) {
    columns.push({ label: 'Actions', cell: (i) => (i.managed || i.connected ? null
      : button('Forget', () => forgetInstance(ctx, i), { kind: 'danger-quiet', class: 'btn-small', testid: 'instance-forget' })) });
  }
  const body = items.length
    ? table(columns, items, { caption: 'Instances', testid: 'instances-table',
      rowProps: (i) => ({ testid: 'instance-row', dataset: { name: i.name } }) })
    : emptyState('No instance yet: start restyplane agent with a dataplane token.', null, 'instances-empty');
  return h('div', { testid: 'instances' },
    pageHeader('Instances', { subtitle: `Every OpenResty this control plane drives. The head is #${data.head}.` }),
    body);
}

function forgetInstance(ctx, i) {
  confirmAction({
    title: `Forget instance ${i.name}?`,
    testid: 'instance-forget',
    confirmLabel: 'Forget instance',
    content: [h('p', null, 'It leaves this list, the status and the metrics; its applies stay in the history. If its agent reports again, it is listed again.')],
    run: () => ctx.api.request('DELETE', `/instances/${encodeURIComponent(i.name)}`),
    done: () => {
      ctx.notify.ok(`Forgot instance ${i.name}.`);
      ctx.app.route();
    },
  });
}
