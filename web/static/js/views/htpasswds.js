// htpasswds.js lists the htpasswd objects (users of basic auth, a policy) and shows
// one: its user names and fingerprint. The API never returns the hashes, and this view has
// no place for them.
import { h, route, replace } from '../dom.js';
import { sourceBadge, isKubernetes, plural } from '../format.js';
import { pageHeader, panel, table, dl, emptyState, linkButton, button, searchBox, kubernetesNote } from './common.js';
import { deleteObject } from './objects.js';

/** renderHtpasswdList lists htpasswd objects. */
export async function renderHtpasswdList(ctx) {
  ctx.setTitle('Basic auth users');
  const { api, signal } = ctx;
  const results = h('div', { testid: 'htpasswd-results' });
  const found = h('p', { class: 'visually-hidden', role: 'status', testid: 'htpasswd-found' });
  const load = async (q) => {
    const data = await api.get('/htpasswds', { q }, signal);
    const items = data.items || [];
    replace(results, htpasswdTable(items, q, ctx));
    found.textContent = `${plural(items.length, 'htpasswd object')}.`;
  };
  const search = searchBox('Search htpasswd objects', ctx.query.q, (q) => {
    history.replaceState(null, '', route(['htpasswds'], { q }));
    load(q).catch((err) => { if (err.name !== 'AbortError') ctx.notify.error(err.message); });
  }, 'htpasswd-search');
  await load(ctx.query.q || '');
  return h('div', { testid: 'htpasswd-list' },
    pageHeader('Basic auth users', {
      subtitle: 'htpasswd objects that locations ask for with basic auth. The hashes are write-only.',
      actions: ctx.can('editor') ? [linkButton('New htpasswd', '#/htpasswds/new', { primary: true, testid: 'new-htpasswd' })] : [],
    }),
    h('div', { class: 'toolbar' }, search, found),
    results);
}

function htpasswdTable(items, q, ctx) {
  return table([
    { label: 'Name', cell: (x) => h('a', { href: route(['htpasswds', x.name]), class: 'mono strong' }, x.name) },
    { label: 'Users', cell: (x) => h('span', { class: 'hosts' }, (x.users || []).slice(0, 5).map((u) => h('span', { class: 'chip mono' }, u)), (x.users || []).length > 5 ? h('span', { class: 'muted' }, ` +${x.users.length - 5} more`) : null) },
    { label: 'Fingerprint', cell: (x) => h('span', { class: 'mono small' }, (x.fingerprint || '').slice(0, 16)) },
    { label: 'Owner', cell: (x) => sourceBadge(x.source) },
  ], items, {
    caption: 'htpasswd objects',
    testid: 'htpasswd-table',
    rowProps: (x) => ({ testid: 'htpasswd-row', dataset: { name: x.name } }),
    empty: emptyState(q ? `No htpasswd name contains “${q}”.` : 'No htpasswd objects yet.',
      !q && ctx.can('editor') ? linkButton('Create the first one', '#/htpasswds/new', { primary: true }) : null, 'htpasswd-empty'),
  });
}

/** renderHtpasswdDetail shows one htpasswd object and the locations that use it. */
export async function renderHtpasswdDetail(ctx) {
  const { api, signal } = ctx;
  const name = ctx.params.name;
  ctx.setTitle(`htpasswd ${name}`);
  const [x, servers] = await Promise.all([
    api.get('/htpasswds/' + encodeURIComponent(name), undefined, signal),
    api.get('/servers', undefined, signal).catch(() => ({ items: [] })),
  ]);
  const uses = [];
  for (const s of servers.items || []) {
    for (const l of s.locations || []) {
      if (l.auth && l.auth.basic && l.auth.basic.htpasswd === name) uses.push([s, l]);
    }
  }
  const editable = ctx.can('editor') && !isKubernetes(x);
  const actions = editable ? [
    linkButton('Replace', route(['htpasswds', name, 'edit']), { testid: 'htpasswd-edit' }),
    button('Delete', () => deleteObject(ctx, 'htpasswd', 'htpasswds', x), { kind: 'danger-quiet', testid: 'htpasswd-delete' }),
  ] : [];
  return h('div', { testid: 'htpasswd-detail', dataset: { name, version: x.version } },
    pageHeader(name, { badges: [sourceBadge(x.source)], actions, subtitle: `htpasswd · last changed in revision #${x.version}` }),
    isKubernetes(x) ? kubernetesNote(x, 'htpasswd object') : null,
    panel('Users', dl([
      ['Users', h('ul', { class: 'chips', testid: 'htpasswd-users' }, (x.users || []).map((u) => h('li', { class: 'chip mono' }, u)))],
      ['Fingerprint (SHA-256)', h('span', { class: 'mono break small' }, x.fingerprint || '—')],
      ['Hashes', 'stored; never shown'],
    ])),
    panel('Used by', uses.length
      ? h('ul', { class: 'plain-list' }, uses.map(([s, l]) => h('li', null, h('a', { href: route(['servers', s.name]), class: 'mono' }, s.name), ' ', h('span', { class: 'mono muted' }, l.path))))
      : h('p', { class: 'muted' }, 'No location uses these users.')),
    h('p', null, h('a', { href: '#/htpasswds', class: 'small' }, 'All htpasswd objects')));
}
