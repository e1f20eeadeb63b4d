// cacertificates.js lists the CA certificate bundles (policies) that backends
// verify their upstreams' certificates against, and shows one: its subjects, earliest
// expiry, fingerprint and the backends that use it. A bundle holds no key.
import { h, route, replace } from '../dom.js';
import { sourceBadge, isKubernetes, plural } from '../format.js';
import { pageHeader, panel, table, dl, emptyState, linkButton, button, searchBox, kubernetesNote } from './common.js';
import { deleteObject } from './objects.js';

/** renderCACertificateList lists CA bundles. */
export async function renderCACertificateList(ctx) {
  ctx.setTitle('CA certificates');
  const { api, signal } = ctx;
  const results = h('div', { testid: 'ca-results' });
  const found = h('p', { class: 'visually-hidden', role: 'status', testid: 'ca-found' });
  const load = async (q) => {
    const data = await api.get('/caCertificates', { q }, signal);
    const items = data.items || [];
    replace(results, caTable(items, q, ctx));
    found.textContent = `${plural(items.length, 'CA bundle')}.`;
  };
  const search = searchBox('Search CA bundles', ctx.query.q, (q) => {
    history.replaceState(null, '', route(['caCertificates'], { q }));
    load(q).catch((err) => { if (err.name !== 'AbortError') ctx.notify.error(err.message); });
  }, 'ca-search');
  await load(ctx.query.q || '');
  return h('div', { testid: 'ca-list' },
    pageHeader('CA certificates', {
      subtitle: 'Bundles of CA certificates that HTTPS and gRPC backends verify their endpoints against.',
      actions: ctx.can('editor') ? [linkButton('New CA bundle', '#/caCertificates/new', { primary: true, testid: 'new-ca' })] : [],
    }),
    h('div', { class: 'toolbar' }, search, found),
    results);
}

function caTable(items, q, ctx) {
  return table([
    { label: 'Name', cell: (x) => h('a', { href: route(['caCertificates', x.name]), class: 'mono strong' }, x.name) },
    { label: 'Subjects', cell: (x) => h('span', { class: 'hosts' }, (x.subjects || []).slice(0, 3).map((s) => h('span', { class: 'chip mono' }, s))) },
    { label: 'Expires', cell: (x) => h('span', { class: 'mono small' }, (x.notAfter || '').slice(0, 10)) },
    { label: 'Owner', cell: (x) => sourceBadge(x.source) },
  ], items, {
    caption: 'CA certificate bundles',
    testid: 'ca-table',
    rowProps: (x) => ({ testid: 'ca-row', dataset: { name: x.name } }),
    empty: emptyState(q ? `No CA bundle name contains “${q}”.` : 'No CA bundles yet.',
      !q && ctx.can('editor') ? linkButton('Create the first one', '#/caCertificates/new', { primary: true }) : null, 'ca-empty'),
  });
}

/** renderCACertificateDetail shows one CA bundle and the backends that use it. */
export async function renderCACertificateDetail(ctx) {
  const { api, signal } = ctx;
  const name = ctx.params.name;
  ctx.setTitle(`CA bundle ${name}`);
  const [x, backends] = await Promise.all([
    api.get('/caCertificates/' + encodeURIComponent(name), undefined, signal),
    api.get('/backends', undefined, signal).catch(() => ({ items: [] })),
  ]);
  const uses = (backends.items || []).filter((b) => b.upstreamTLS && b.upstreamTLS.caCertificate === name);
  const editable = ctx.can('editor') && !isKubernetes(x);
  const actions = editable ? [
    linkButton('Replace', route(['caCertificates', name, 'edit']), { testid: 'ca-edit' }),
    button('Delete', () => deleteObject(ctx, 'caCertificate', 'caCertificates', x), { kind: 'danger-quiet', testid: 'ca-delete' }),
  ] : [];
  return h('div', { testid: 'ca-detail', dataset: { name, version: x.version } },
    pageHeader(name, { badges: [sourceBadge(x.source)], actions, subtitle: `CA bundle · last changed in revision #${x.version}` }),
    isKubernetes(x) ? kubernetesNote(x, 'CA bundle') : null,
    panel('Certificates', dl([
      ['Subjects', h('ul', { class: 'chips', testid: 'ca-subjects' }, (x.subjects || []).map((s) => h('li', { class: 'chip mono' }, s)))],
      ['Earliest expiry', h('span', { class: 'mono' }, x.notAfter || '—')],
      ['Fingerprint (SHA-256)', h('span', { class: 'mono break small' }, x.fingerprint || '—')],
    ])),
    panel('Used by', uses.length
      ? h('ul', { class: 'plain-list', testid: 'ca-uses' }, uses.map((b) => h('li', null, h('a', { href: route(['backends', b.name]), class: 'mono' }, b.name))))
      : h('p', { class: 'muted' }, 'No backend verifies against this bundle.')),
    h('p', null, h('a', { href: '#/caCertificates', class: 'small' }, 'All CA bundles')));
}
