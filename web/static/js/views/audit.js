// audit.js shows who did what and when, filtered by actor, action and time. The filters
// live in the URL (#/audit?actor=ci&action=write) so a filtered view can be shared.
import { h, route } from '../dom.js';
import { badge, timeEl, humanize } from '../format.js';
import { pageHeader, panel, emptyState, button } from './common.js';
import { field, input, select } from '../form.js';

const PAGE = 100;
const ACTIONS = ['write', 'rollback', 'apply', 'login_failed', 'denied', 'token_create', 'token_delete', 'prune'];

// datetime-local inputs hold local wall time without a zone; the URL and API use RFC 3339.
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v) {
  if (!v) return '';
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** renderAudit draws the filters and the newest matching events, with paging. */
export async function renderAudit(ctx) {
  ctx.setTitle('Audit log');
  const { api, signal, query } = ctx;
  const filters = { actor: query.actor || '', action: query.action || '', since: query.since || '', until: query.until || '' };

  const actor = input({ value: filters.actor, placeholder: 'any', testid: 'audit-actor', name: 'actor' });
  const action = select([['', 'any action'], ...ACTIONS.map((a) => [a, humanize(a)])], filters.action, { testid: 'audit-action', name: 'action' });
  const since = input({ type: 'datetime-local', value: toLocalInput(filters.since), testid: 'audit-since', name: 'since' });
  const until = input({ type: 'datetime-local', value: toLocalInput(filters.until), testid: 'audit-until', name: 'until' });
  const form = h('form', { class: 'filters', novalidate: true, testid: 'audit-filters', 'aria-label': 'Filter the audit log' },
    field({ label: 'Actor', input: actor }),
    field({ label: 'Action', input: action }),
    field({ label: 'Since', input: since }),
    field({ label: 'Until', input: until }),
    h('div', { class: 'filters-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary', testid: 'audit-apply' }, 'Filter'),
      h('a', { href: '#/audit', class: 'btn btn-quiet', testid: 'audit-clear' }, 'Clear')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.navigate(route(['audit'], { actor: actor.value.trim(), action: action.value, since: fromLocalInput(since.value), until: fromLocalInput(until.value) }));
  });

  const q = { ...filters, limit: PAGE };
  const data = await api.get('/audit', q, signal);
  const tbody = h('tbody');
  const more = h('div', { class: 'more' });
  const columns = [
    { label: 'Time', cell: (e) => timeEl(e.time) },
    { label: 'Actor', cell: (e) => h('span', { class: 'strong' }, e.actor || '—') },
    { label: 'Action', cell: (e) => badge(e.action, 'info') },
    { label: 'Target', cell: (e) => (e.target ? h('span', { class: 'mono' }, e.target) : h('span', { class: 'muted' }, '—')) },
    { label: 'Revision', cell: (e) => (e.revision ? h('a', { href: route(['history', e.revision]) }, `#${e.revision}`) : h('span', { class: 'muted' }, '—')) },
    { label: 'Outcome', cell: (e) => badge(e.outcome, e.outcome === 'success' ? 'ok' : 'bad') },
    { label: 'Detail', cell: (e) => h('span', { class: 'break' }, e.detail || '', e.remote ? h('span', { class: 'muted small' }, ` from ${e.remote}`) : null), class: 'col-wide' },
  ];
  const addRows = (items) => {
    for (const ev of items) {
      tbody.append(h('tr', { testid: 'audit-row', dataset: { id: ev.id, action: ev.action, actor: ev.actor } },
        columns.map((c) => h('td', { class: c.class, dataset: { label: c.label } }, c.cell(ev)))));
    }
    more.replaceChildren();
    if (items.length === PAGE) {
      const last = items[items.length - 1].id;
      more.append(button('Load older events', async () => {
        const page = await api.get('/audit', { ...q, before: last }, signal);
        addRows(page.items || []);
      }, { testid: 'audit-more' }));
    }
  };
  const items = data.items || [];
  addRows(items);
  const any = filters.actor || filters.action || filters.since || filters.until;
  const results = items.length
    ? h('div', null, h('div', { class: 'table-wrap' }, h('table', { class: 'table table-cards', testid: 'audit-table' },
      h('caption', { class: 'visually-hidden' }, 'Audit events, newest first'),
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.class }, c.label)))),
      tbody)), more)
    : emptyState(any ? 'No event matches these filters.' : 'No audit events yet.', null, 'audit-empty');
  return h('div', { testid: 'audit' },
    pageHeader('Audit log', { subtitle: 'Every write, rollback, apply, failed sign-in and denied request.' }),
    panel('Filters', form, { testid: 'audit-filter-panel' }),
    h('div', { 'aria-live': 'polite' }, results));
}

