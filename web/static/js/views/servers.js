// servers.js lists servers (virtual hosts) and shows one server's hostnames, TLS and
// locations.
import { h, route, replace } from '../dom.js';
import { badge, sourceBadge, isKubernetes, plural } from '../format.js';
import { pageHeader, panel, table, dl, emptyState, linkButton, button, searchBox, kubernetesNote } from './common.js';
import { deleteObject } from './objects.js';

/** renderServerList lists servers, filtered by ?q= on the server. */
export async function renderServerList(ctx) {
  ctx.setTitle('Servers');
  const { api, signal } = ctx;
  // The table is not a live region (it would be read out whole at every keystroke); a
  // short count is announced instead.
  const results = h('div', { testid: 'server-results' });
  const found = h('p', { class: 'visually-hidden', role: 'status', testid: 'server-found' });
  const load = async (q) => {
    const data = await api.get('/servers', { q }, signal);
    const items = data.items || [];
    replace(results, serverTable(items, q, ctx));
    found.textContent = q ? `${plural(items.length, 'server')} ${items.length === 1 ? 'matches' : 'match'} “${q}”.` : `${plural(items.length, 'server')}.`;
  };
  const search = searchBox('Search servers', ctx.query.q, (q) => {
    history.replaceState(null, '', route(['servers'], { q }));
    load(q).catch((err) => { if (err.name !== 'AbortError') ctx.notify.error(err.message); });
  }, 'server-search');
  await load(ctx.query.q || '');
  return h('div', { testid: 'server-list' },
    pageHeader('Servers', {
      subtitle: 'Virtual hosts: the hostnames OpenResty answers and where each path goes. Changes apply with a tested reload.',
      actions: ctx.can('editor') ? [linkButton('New server', '#/servers/new', { primary: true, testid: 'new-server' })] : [],
    }),
    h('div', { class: 'toolbar' }, search, found),
    results);
}

function serverTable(items, q, ctx) {
  return table([
    { label: 'Name', cell: (s) => h('a', { href: route(['servers', s.name]), class: 'mono strong' }, s.name) },
    { label: 'Hostnames', cell: (s) => hostList(s.hostnames || []) },
    { label: 'Locations', cell: (s) => String((s.locations || []).length) },
    { label: 'TLS', cell: (s) => (s.tls ? badge('tls', 'ok') : h('span', { class: 'muted' }, 'plain HTTP')) },
    { label: 'Owner', cell: (s) => sourceBadge(s.source) },
    { label: 'Revision', cell: (s) => h('a', { href: route(['history', s.version]) }, `#${s.version}`) },
  ], items, {
    caption: 'Servers',
    testid: 'server-table',
    rowProps: (s) => ({ testid: 'server-row', dataset: { name: s.name } }),
    empty: emptyState(q ? `No server name contains “${q}”.` : 'No servers yet.',
      !q && ctx.can('editor') ? linkButton('Create the first server', '#/servers/new', { primary: true }) : null, 'server-empty'),
  });
}

function hostList(hosts) {
  const shown = hosts.slice(0, 3);
  return h('span', { class: 'hosts' }, shown.map((x) => h('span', { class: 'chip mono' }, x)),
    hosts.length > 3 ? h('span', { class: 'muted' }, ` +${hosts.length - 3} more`) : null);
}

/** renderServerDetail shows one server. */
export async function renderServerDetail(ctx) {
  const { api, signal } = ctx;
  const name = ctx.params.name;
  ctx.setTitle(`Server ${name}`);
  const s = await api.get('/servers/' + encodeURIComponent(name), undefined, signal);
  const editable = ctx.can('editor') && !isKubernetes(s);
  const actions = editable ? [
    linkButton('Edit', route(['servers', name, 'edit']), { testid: 'server-edit' }),
    button('Delete', () => deleteObject(ctx, 'server', 'servers', s), { kind: 'danger-quiet', testid: 'server-delete' }),
  ] : [];
  const locs = s.locations || [];
  const locTable = table([
    { label: 'Path', cell: (l) => h('span', { class: 'mono' }, l.path) },
    { label: 'Match', cell: (l) => l.match || 'prefix' },
    { label: 'Backend', cell: (l) => (l.backend ? h('a', { href: route(['backends', l.backend]), class: 'mono' }, l.backend) : h('span', { class: 'muted' }, '—')) },
    { label: 'Rewrite', cell: (l) => (l.rewrite ? h('span', { class: 'mono' }, l.rewrite) : h('span', { class: 'muted' }, '—')) },
    { label: 'Extras', cell: (l) => locationExtras(l) },
  ], locs, {
    caption: `Locations of ${name}`,
    testid: 'location-table',
    rowProps: (l) => ({ testid: 'location-row', dataset: { path: l.path } }),
    empty: emptyState('No locations: every request to these hostnames gets 404.', null, 'location-empty'),
  });
  return h('div', { testid: 'server-detail', dataset: { name, version: s.version } },
    pageHeader(name, { badges: [sourceBadge(s.source)], actions, subtitle: `Server · ${plural((s.hostnames || []).length, 'hostname')} · ${plural(locs.length, 'location')} · last changed in revision #${s.version}`, testid: 'server-title' }),
    isKubernetes(s) ? kubernetesNote(s, 'server') : null,
    h('div', { class: 'grid-2' },
      panel('Hostnames', h('ul', { class: 'chips', testid: 'server-hostnames' }, (s.hostnames || []).map((x) => h('li', { class: 'chip mono' }, x)))),
      panel('TLS', s.tls ? dl([
        ['Certificate', h('a', { href: route(['certificates', s.tls.certificate]), class: 'mono' }, s.tls.certificate)],
        ['HTTP to HTTPS', s.tls.redirect || (s.clientTLS && s.clientTLS.verify !== 'off') ? 'redirect (308)' : 'both served'],
        // Policies: client certificates.
        ['Client certificates', s.clientTLS ? h('span', { testid: 'server-clienttls-summary' },
          h('a', { href: route(['caCertificates', s.clientTLS.caCertificate]), class: 'mono' }, s.clientTLS.caCertificate),
          ` verify ${s.clientTLS.verify}, depth ${s.clientTLS.depth}${s.clientTLS.errorPage ? ', error page ' + s.clientTLS.errorPage : ''}${s.clientTLS.passCertificateToUpstream ? ', passed upstream' : ''}`) : 'not asked for'],
      ]) : h('p', { class: 'muted' }, 'Plain HTTP only.'))),
    // Policies: the server's own redirects, when it has any.
    s.appRoot || s.forceSSLRedirect || s.wwwRedirect ? panel('Redirects', dl([
      ['App root', s.appRoot ? h('span', { class: 'mono' }, s.appRoot) : '—'],
      ['Plain HTTP', s.forceSSLRedirect ? 'always redirected to HTTPS (308)' : 'as TLS says'],
      ['www partner', s.wwwRedirect ? 'redirected to the hostname (308)' : '—'],
    ]), { testid: 'server-redirects' }) : null,
    panel('Locations', locTable, { testid: 'server-locations' }),
    h('p', null, h('a', { href: '#/servers', class: 'small' }, 'All servers')));
}

function locationExtras(l) {
  const parts = whenExtras(l.when);
  const t = l.timeouts;
  if (t && (t.connect || t.send || t.read)) parts.push(`timeouts ${[t.connect && 'connect ' + t.connect, t.send && 'send ' + t.send, t.read && 'read ' + t.read].filter(Boolean).join(', ')}`);
  for (const hd of l.setHeaders || []) parts.push(`${hd.name}: ${hd.value}`);
  parts.push(...policyExtras(l)); // policies
  // Policies: a redirect answers instead of the backend; CORS names its origins.
  if (l.redirect) parts.push(`redirect ${l.redirect.code || 302} to ${l.redirect.url}`);
  if (l.cors) parts.push(`CORS ${(l.cors.allowOrigins || ['*']).join(', ')}`);
  if (!parts.length) return h('span', { class: 'muted' }, '—');
  return h('ul', { class: 'plain-list small' }, parts.map((p) => h('li', { class: 'mono' }, p)));
}

// whenExtras lists a location's request conditions, one line each: the method, each header
// and query parameter ("=" exact, "~" regex, which must match the whole value) and the
// scheme.
function whenExtras(w) {
  if (!w) return [];
  const value = (kind, v) => `${kind} ${v.name} ${v.type === 'regex' ? '~' : '='} ${v.value}`;
  return [
    w.method && `when ${w.method}`,
    ...(w.headers || []).map((v) => value('header', v)),
    ...(w.query || []).map((v) => value('query', v)),
    w.scheme && `${w.scheme} only`,
  ].filter(Boolean);
}

// policyExtras summarizes a location's access lists and limits (policies).
function policyExtras(l) {
  const out = [];
  const a = l.access;
  if (a && a.allow) out.push(`allow ${a.allow.length} address range${a.allow.length === 1 ? '' : 's'}`);
  if (a && a.deny) out.push(`deny ${a.deny.length} address range${a.deny.length === 1 ? '' : 's'}`);
  const m = l.limits;
  if (m) {
    const lim = [m.rps && `${m.rps}/s`, m.rpm && `${m.rpm}/min`, m.connections && `${m.connections} connections`,
      m.rate && `${m.rate}B/s`].filter(Boolean);
    if (lim.length) out.push(`limit ${lim.join(', ')} per address`);
  }
  return out;
}
