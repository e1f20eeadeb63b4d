// certificates.js lists TLS certificates with subject, names and expiry, and shows one
// certificate. The API never returns a private key, and this view has no place for one.
import { h, route, replace } from '../dom.js';
import { badge, sourceBadge, isKubernetes, timeEl, expiryBadge, plural } from '../format.js';
import { pageHeader, panel, table, dl, emptyState, linkButton, button, searchBox, kubernetesNote } from './common.js';
import { deleteObject } from './objects.js';

/** renderCertificateList lists certificates. */
export async function renderCertificateList(ctx) {
  ctx.setTitle('Certificates');
  const { api, signal } = ctx;
  // The table is not a live region (it would be read out whole at every keystroke); a
  // short count is announced instead.
  const results = h('div', { testid: 'certificate-results' });
  const found = h('p', { class: 'visually-hidden', role: 'status', testid: 'certificate-found' });
  const load = async (q) => {
    const data = await api.get('/certificates', { q }, signal);
    const items = data.items || [];
    replace(results, certTable(items, q, ctx));
    found.textContent = q ? `${plural(items.length, 'certificate')} ${items.length === 1 ? 'matches' : 'match'} “${q}”.` : `${plural(items.length, 'certificate')}.`;
  };
  const search = searchBox('Search certificates', ctx.query.q, (q) => {
    history.replaceState(null, '', route(['certificates'], { q }));
    load(q).catch((err) => { if (err.name !== 'AbortError') ctx.notify.error(err.message); });
  }, 'certificate-search');
  await load(ctx.query.q || '');
  return h('div', { testid: 'certificate-list' },
    pageHeader('Certificates', {
      subtitle: 'TLS certificates that servers present. A renewed certificate applies without a reload; keys are write-only.',
      actions: ctx.can('editor') ? [linkButton('Upload certificate', '#/certificates/new', { primary: true, testid: 'new-certificate' })] : [],
    }),
    h('div', { class: 'toolbar' }, search, found),
    results);
}

function certTable(items, q, ctx) {
  return table([
    { label: 'Name', cell: (c) => h('a', { href: route(['certificates', c.name]), class: 'mono strong' }, c.name) },
    { label: 'Subject', cell: (c) => h('span', { class: 'mono break' }, c.subject || '—') },
    { label: 'Names', cell: (c) => h('span', { class: 'hosts' }, (c.dnsNames || []).slice(0, 3).map((n) => h('span', { class: 'chip mono' }, n)), (c.dnsNames || []).length > 3 ? h('span', { class: 'muted' }, ` +${c.dnsNames.length - 3} more`) : null) },
    { label: 'Expires', cell: (c) => h('span', { class: 'stack' }, expiryBadge(c.notAfter), timeEl(c.notAfter, { class: 'small muted' })) },
    { label: 'Key', cell: (c) => (c.keyMatches ? badge('matches', 'ok') : badge('mismatch', 'bad', { title: 'The stored key does not belong to this certificate; nginx will refuse it.' })) },
    { label: 'Owner', cell: (c) => sourceBadge(c.source) },
  ], items, {
    caption: 'Certificates',
    testid: 'certificate-table',
    rowProps: (c) => ({ testid: 'certificate-row', dataset: { name: c.name } }),
    empty: emptyState(q ? `No certificate name contains “${q}”.` : 'No certificates yet.',
      !q && ctx.can('editor') ? linkButton('Upload the first certificate', '#/certificates/new', { primary: true }) : null, 'certificate-empty'),
  });
}

/** renderCertificateDetail shows one certificate. */
export async function renderCertificateDetail(ctx) {
  const { api, signal } = ctx;
  const name = ctx.params.name;
  ctx.setTitle(`Certificate ${name}`);
  const [c, servers] = await Promise.all([
    api.get('/certificates/' + encodeURIComponent(name), undefined, signal),
    api.get('/servers', undefined, signal).catch(() => ({ items: [] })),
  ]);
  const users = (servers.items || []).filter((s) => s.tls && s.tls.certificate === name);
  const editable = ctx.can('editor') && !isKubernetes(c);
  const actions = editable ? [
    linkButton('Replace', route(['certificates', name, 'edit']), { testid: 'certificate-edit' }),
    button('Delete', () => deleteObject(ctx, 'certificate', 'certificates', c), { kind: 'danger-quiet', testid: 'certificate-delete' }),
  ] : [];
  return h('div', { testid: 'certificate-detail', dataset: { name, version: c.version } },
    pageHeader(name, { badges: [sourceBadge(c.source), expiryBadge(c.notAfter, { testid: 'certificate-expiry' })], actions, subtitle: `Certificate · last changed in revision #${c.version}`, testid: 'certificate-title' }),
    isKubernetes(c) ? kubernetesNote(c, 'certificate') : null,
    c.keyMatches ? null : h('p', { class: 'note note-bad', testid: 'key-mismatch' }, 'The stored private key does not belong to this certificate. nginx will refuse it; upload a matching key.'),
    h('div', { class: 'grid-2' },
      panel('Certificate', dl([
        ['Subject', h('span', { class: 'mono break' }, c.subject || '—'), 'certificate-subject'],
        ['Expires', h('span', null, timeEl(c.notAfter), ' ', expiryBadge(c.notAfter))],
        ['Fingerprint (SHA-256)', h('span', { class: 'mono break small' }, c.fingerprint || '—')],
        ['Private key', c.keyMatches ? 'stored, matches the certificate' : 'stored, does not match'],
      ])),
      panel('Names', (c.dnsNames || []).length
        ? h('ul', { class: 'chips', testid: 'certificate-names' }, c.dnsNames.map((n) => h('li', { class: 'chip mono' }, n)))
        : h('p', { class: 'muted' }, 'No DNS names (subject only).'))),
    panel('Used by', users.length
      ? h('ul', { class: 'plain-list' }, users.map((s) => h('li', null, h('a', { href: route(['servers', s.name]), class: 'mono' }, s.name), ' ', h('span', { class: 'muted' }, (s.hostnames || []).join(', ')))))
      : h('p', { class: 'muted' }, 'No server uses this certificate.')),
    h('p', null, h('a', { href: '#/certificates', class: 'small' }, 'All certificates')));
}
