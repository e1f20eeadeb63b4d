// backends.js lists backends with a search box and shows one backend's endpoints, weights
// and balancing, with edit and delete for editors.
import { h, route, replace } from '../dom.js';
import { sourceBadge, isKubernetes, plural, humanize } from '../format.js';
import { pageHeader, panel, table, dl, emptyState, linkButton, button, searchBox, kubernetesNote } from './common.js';
import { deleteObject } from './objects.js';
import { affinityText } from './backend-affinity.js';

/** renderBackendList lists backends, filtered by ?q= on the server. */
export async function renderBackendList(ctx) {
  ctx.setTitle('Backends');
  const { api, signal } = ctx;
  // The table is not a live region (it would be read out whole at every keystroke); a
  // short count is announced instead.
  const results = h('div', { testid: 'backend-results' });
  const found = h('p', { class: 'visually-hidden', role: 'status', testid: 'backend-found' });
  const load = async (q) => {
    const data = await api.get('/backends', { q }, signal);
    const items = data.items || [];
    replace(results, backendTable(items, q, ctx));
    found.textContent = q ? `${plural(items.length, 'backend')} ${items.length === 1 ? 'matches' : 'match'} “${q}”.` : `${plural(items.length, 'backend')}.`;
  };
  const search = searchBox('Search backends', ctx.query.q, (q) => {
    history.replaceState(null, '', route(['backends'], { q }));
    load(q).catch((err) => { if (err.name !== 'AbortError') ctx.notify.error(err.message); });
  }, 'backend-search');
  await load(ctx.query.q || '');
  return h('div', { testid: 'backend-list' },
    pageHeader('Backends', {
      subtitle: 'Pools of upstream endpoints that locations proxy to. Changes apply without a reload.',
      actions: ctx.can('editor') ? [linkButton('New backend', '#/backends/new', { primary: true, testid: 'new-backend' })] : [],
    }),
    h('div', { class: 'toolbar' }, search, found),
    results);
}

function backendTable(items, q, ctx) {
  return table([
    { label: 'Name', cell: (b) => h('a', { href: route(['backends', b.name]), class: 'mono strong' }, b.name) },
    { label: 'Endpoints', cell: (b) => endpointSummary(b.endpoints || []) },
    { label: 'Balancing', cell: (b) => humanize(b.loadBalance || 'round_robin') + (b.hashBy ? ` by ${b.hashBy}` : '') },
    { label: 'Canary', cell: (b) => (b.canary ? canarySummary(b.canary) : h('span', { class: 'muted' }, '—')) },
    { label: 'Owner', cell: (b) => sourceBadge(b.source) },
    { label: 'Revision', cell: (b) => h('a', { href: route(['history', b.version]) }, `#${b.version}`) },
  ], items, {
    caption: 'Backends',
    testid: 'backend-table',
    rowProps: (b) => ({ testid: 'backend-row', dataset: { name: b.name } }),
    empty: emptyState(q ? `No backend name contains “${q}”.` : 'No backends yet.',
      !q && ctx.can('editor') ? linkButton('Create the first backend', '#/backends/new', { primary: true }) : null, 'backend-empty'),
  });
}

function endpointSummary(eps) {
  if (!eps.length) return h('span', { class: 'muted' }, 'none');
  const shown = eps.slice(0, 2).map((e) => `${hostPort(e)}`).join(', ');
  return h('span', null, h('span', { class: 'mono' }, shown), eps.length > 2 ? h('span', { class: 'muted' }, ` +${eps.length - 2} more`) : null);
}

/** hostPort formats an endpoint, bracketing IPv6 addresses. */
export function hostPort(e) {
  return e.address.includes(':') ? `[${e.address}]:${e.port}` : `${e.address}:${e.port}`;
}

function canarySummary(c) {
  const how = [];
  if (c.weight) how.push(`${c.weight}%`);
  if (c.header) how.push(`header ${c.header}${c.headerValue ? '=' + c.headerValue : ''}`);
  if (c.cookie) how.push(`cookie ${c.cookie}`);
  return h('span', null, h('a', { href: route(['backends', c.backend]), class: 'mono' }, c.backend), ' ', h('span', { class: 'muted' }, how.join(', ')));
}

/** renderBackendDetail shows one backend. */
export async function renderBackendDetail(ctx) {
  const { api, signal } = ctx;
  const name = ctx.params.name;
  ctx.setTitle(`Backend ${name}`);
  const [b, servers] = await Promise.all([
    api.get('/backends/' + encodeURIComponent(name), undefined, signal),
    api.get('/servers', undefined, signal).catch(() => ({ items: [] })),
  ]);
  const eps = b.endpoints || [];
  const total = eps.reduce((s, e) => s + (e.weight || 1), 0);
  const editable = ctx.can('editor') && !isKubernetes(b);
  const actions = editable ? [
    linkButton('Edit', route(['backends', name, 'edit']), { testid: 'backend-edit' }),
    button('Delete', () => deleteObject(ctx, 'backend', 'backends', b), { kind: 'danger-quiet', testid: 'backend-delete' }),
  ] : [];

  const usedBy = [];
  for (const s of servers.items || []) {
    for (const l of s.locations || []) {
      if (l.backend === name) usedBy.push({ server: s.name, path: l.path, match: l.match });
    }
  }

  const endpointTable = table([
    { label: 'Address', cell: (e) => h('span', { class: 'mono' }, e.address) },
    { label: 'Port', cell: (e) => String(e.port) },
    { label: 'Weight', cell: (e) => String(e.weight || 1) },
    { label: 'Share', cell: (e) => share((e.weight || 1) / total), class: 'col-share' },
  ], eps, {
    caption: `Endpoints of ${name}`,
    testid: 'endpoint-table',
    rowProps: (e) => ({ testid: 'endpoint-row', dataset: { address: e.address, port: e.port } }),
    empty: emptyState('This backend has no endpoints: requests to it fail with 502 until it gets one.', null, 'endpoint-empty'),
  });

  const t = b.timeouts || {};
  const c = b.canary;
  return h('div', { testid: 'backend-detail', dataset: { name, version: b.version } },
    pageHeader(name, { badges: [sourceBadge(b.source)], actions, subtitle: `Backend · ${plural(eps.length, 'endpoint')} · last changed in revision #${b.version}`, testid: 'backend-title' }),
    isKubernetes(b) ? kubernetesNote(b, 'backend') : null,
    panel('Endpoints', endpointTable, { testid: 'backend-endpoints' }),
    h('div', { class: 'grid-2' },
      panel('Balancing', dl([
        ['Algorithm', humanize(b.loadBalance || 'round_robin'), 'backend-lb'],
        ['Hash by', b.hashBy ? h('span', { class: 'mono' }, b.hashBy) : null],
        ['Session affinity', affinityText(b.affinity)],
        ['Retries', String(b.retries || 0)],
        ['Connect timeout', t.connect || 'default'],
        ['Send timeout', t.send || 'default'],
        ['Read timeout', t.read || 'default'],
      ])),
      panel('Canary', c ? dl([
        ['Alternative backend', h('a', { href: route(['backends', c.backend]), class: 'mono' }, c.backend)],
        ['Weight', c.weight ? `${c.weight}% of requests` : null],
        ['Header', c.header ? `${c.header}${c.headerValue ? ' = ' + c.headerValue : ' (any value)'}` : null],
        ['Cookie', c.cookie || null],
      ]) : h('p', { class: 'muted' }, 'No canary: all traffic goes to the endpoints above.'))),
    panel('Used by', usedBy.length ? h('ul', { class: 'plain-list' }, usedBy.map((u) => h('li', null,
      h('a', { href: route(['servers', u.server]), class: 'mono' }, u.server), ' ', h('span', { class: 'muted' }, `${u.match || 'prefix'} ${u.path}`))))
      : h('p', { class: 'muted' }, 'No location routes to this backend yet.')),
    h('p', null, h('a', { href: '#/backends', class: 'small' }, 'All backends')));
}

function share(f) {
  const pct = Math.round(f * 1000) / 10;
  const bar = h('span', { class: 'share-bar' });
  // Setting the width through the CSSOM is allowed by the style-src policy; a style
  // attribute would not be.
  bar.style.width = `${Math.max(0, Math.min(100, pct))}%`;
  return h('span', { class: 'share' }, h('span', { class: 'share-track', 'aria-hidden': 'true' }, bar), h('span', { class: 'share-text' }, `${pct}%`));
}
