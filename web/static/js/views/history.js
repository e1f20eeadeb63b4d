// history.js shows the revision timeline (who, from where, why, when, and how each apply
// went), the objects rollbacks hold back from Kubernetes, and one revision with its
// changes and its diff to the previous revision.
import { h, route, replace } from '../dom.js';
import { badge, agoEl, timeEl, humanize, plural, ms } from '../format.js';
import { pageHeader, panel, dl, emptyState, button, linkButton, table } from './common.js';
import { diffView } from '../diff.js';
import { rollback } from './rollback.js';
import { holdsPanel } from './holds.js';
import { field, input } from '../form.js';
import { live as follow } from '../events.js';

const PAGE = 50;
// INTERVAL is how often the history looks for new revisions when the event stream fails.
const INTERVAL = 5000;

/** applyIndex maps a revision to its newest apply record (the list is newest first). */
function applyIndex(items) {
  const m = new Map();
  for (const a of items || []) if (!m.has(a.revision)) m.set(a.revision, a);
  return m;
}

/** applyBadge says how a revision went live: its apply outcome, pending, or merged into a later apply. */
function applyBadge(rev, applies, status) {
  const a = applies.get(rev.id);
  if (a) return badge(a.outcome, undefined, { testid: 'revision-outcome', title: `${humanize(a.mode)} apply, ${ms(a.durationMs)}${a.error ? ': ' + a.error : ''}` });
  // Without OpenResty nothing is ever applied, and saying so on every revision is noise.
  if (status.state === 'off') return null;
  if (!status.applied) return badge('not applied', 'muted', { testid: 'revision-outcome' });
  if (rev.id > status.applied) return badge('pending', 'warn', { testid: 'revision-outcome' });
  return badge('superseded', 'muted', { testid: 'revision-outcome', title: 'Applied together with a later revision' });
}

/** compareForm lets the user pick any two revisions to diff. */
export function compareForm(ctx, from, to) {
  const fromIn = input({ type: 'number', inputmode: 'numeric', min: '0', value: String(from), class: 'input-short', testid: 'compare-from' });
  const toIn = input({ type: 'number', inputmode: 'numeric', min: '0', value: String(to), class: 'input-short', testid: 'compare-to' });
  const swap = h('button', { type: 'button', class: 'btn btn-quiet btn-small', testid: 'compare-swap', 'aria-label': 'Swap the two revisions' }, '⇄ Swap');
  swap.addEventListener('click', () => { [fromIn.value, toIn.value] = [toIn.value, fromIn.value]; });
  const form = h('form', { class: 'compare', novalidate: true, testid: 'compare-form', 'aria-label': 'Compare two revisions' },
    field({ label: 'From revision', input: fromIn }),
    field({ label: 'To revision', input: toIn }),
    h('div', { class: 'compare-actions' }, swap, h('button', { type: 'submit', class: 'btn btn-primary', testid: 'compare-submit' }, 'Compare')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = Number(fromIn.value);
    const t = Number(toIn.value);
    if (!Number.isInteger(f) || !Number.isInteger(t) || f < 0 || t < 0) {
      ctx.notify.error('Enter two revision numbers.');
      return;
    }
    ctx.navigate(route(['diff'], { from: f, to: t }));
  });
  return form;
}

/** renderHistory draws the timeline, newest first, with paging. */
export async function renderHistory(ctx) {
  ctx.setTitle('History');
  const { api, signal } = ctx;
  const holds = holdsPanel(ctx);
  const [revs, ap, status] = await Promise.all([
    api.get('/revisions', { limit: PAGE }, signal),
    api.get('/applies', { limit: 200 }, signal).catch(() => ({ items: [] })),
    api.get('/status', undefined, signal).catch(() => ({ applied: 0 })),
    // The holds are a panel of their own: the history shows without them.
    holds.refresh().catch((err) => { if (err.name !== 'AbortError') ctx.notify.error(`Holds: ${err.message}`); }),
  ]);
  const applies = applyIndex(ap.items);
  const head = revs.head || 0;
  const list = h('ol', { class: 'timeline', testid: 'history-list', 'aria-label': 'Revisions, newest first' });
  const more = h('div', { class: 'more' });
  const addPage = (items) => {
    for (const r of items) list.append(revisionItem(ctx, r, head, applies, status));
    replace(more);
    if (items.length === PAGE) {
      const last = items[items.length - 1].id;
      more.append(button('Load older revisions', async () => {
        const page = await api.get('/revisions', { before: last, limit: PAGE }, signal);
        const first = list.children.length;
        addPage(page.items || []);
        const next = list.children[first];
        if (next) next.querySelector('a').focus();
      }, { testid: 'load-older' }));
    }
  };
  addPage(revs.items || []);
  // New revisions come in at the top as the event stream announces them (by polling when
  // the stream fails); the pages already shown stay as they are.
  let shown = head;
  const newer = async () => {
    // A rollback makes holds, and the reconciler ends one as it writes what the cluster
    // asks for now: both come with a new revision (a release with nothing to write does
    // not, and Release of such a row says the hold is gone).
    await holds.refresh();
    const page = await api.get('/revisions', { limit: PAGE }, signal);
    const fresh = (page.items || []).filter((r) => r.id > shown);
    if (!fresh.length) return;
    const st = await api.get('/status', undefined, signal).catch(() => status);
    const first = list.firstChild;
    for (const r of fresh) list.insertBefore(revisionItem(ctx, r, page.head || r.id, applies, st), first);
    shown = page.head || fresh[0].id;
    root.dataset.head = String(shown);
  };
  const root = h('div', { testid: 'history', dataset: { head } },
    pageHeader('History', { subtitle: `Every change is a revision; head is #${head}. Nothing is ever rewritten: a rollback is a new revision.` }),
    panel('Compare two revisions', compareForm(ctx, Math.max(0, head - 1), head), { testid: 'compare-panel' }),
    holds.el,
    head ? panel('Revisions', [list, more], { testid: 'history-panel' })
      : emptyState('No revisions yet. Every change through the API, the UI or Kubernetes appears here.', null, 'history-empty'));
  follow(api, signal, INTERVAL, newer, (mode) => { root.dataset.live = mode; });
  return root;
}

function revisionItem(ctx, r, head, applies, status) {
  const actions = [
    h('a', { href: route(['history', r.id]), class: 'btn btn-quiet btn-small', testid: 'revision-open' }, 'Changes'),
    h('a', { href: route(['diff'], { from: r.parent ?? r.id - 1, to: r.id }), class: 'btn btn-quiet btn-small', testid: 'revision-diff', 'aria-label': `Diff of revision ${r.id} against its parent` }, 'Diff'),
  ];
  if (ctx.can('editor') && r.id !== head) {
    actions.push(button('Roll back to this', async () => {
      try {
        if (await rollback(ctx, r.id)) ctx.navigate('#/history');
      } catch (err) {
        if (err.name !== 'AbortError') ctx.notify.error(err.message);
      }
    }, { kind: 'quiet', class: 'btn-small', testid: 'revision-rollback' }));
  }
  return h('li', { class: ['timeline-item', r.id === head && 'is-head'], testid: 'revision', dataset: { revision: r.id } },
    h('div', { class: 'timeline-marker', 'aria-hidden': 'true' }),
    h('div', { class: 'timeline-body' },
      h('div', { class: 'timeline-top' },
        h('a', { href: route(['history', r.id]), class: 'rev-id', testid: 'revision-id' }, `#${r.id}`),
        r.id === head ? badge('head', 'accent') : null,
        applyBadge(r, applies, status),
        r.rollbackOf ? badge(`rollback to #${r.rollbackOf}`, 'warn') : null),
      h('p', { class: 'rev-message', testid: 'revision-message' }, r.message || h('span', { class: 'muted' }, '(no message)')),
      h('p', { class: 'rev-meta muted small' },
        h('span', { testid: 'revision-actor' }, r.actor), ' · ', humanize(r.source), ' · ', plural(r.changeCount || 0, 'change'), ' · ', agoEl(r.time))),
    h('div', { class: 'timeline-actions' }, actions));
}

/** renderRevision shows one revision: what it says, what it changed, and its diff. */
export async function renderRevision(ctx) {
  const { api, signal } = ctx;
  const id = Number(ctx.params.id);
  ctx.setTitle(`Revision #${id}`);
  const [rev, diff, revs, ap] = await Promise.all([
    api.get(`/revisions/${id}`, undefined, signal),
    api.get(`/revisions/${id}/diff`, undefined, signal),
    api.get('/revisions', { limit: 1 }, signal),
    api.get('/applies', { limit: 200 }, signal).catch(() => ({ items: [] })),
  ]);
  const head = revs.head;
  const recs = (ap.items || []).filter((a) => a.revision === id);
  const actions = [linkButton('Compare…', route(['diff'], { from: rev.parent || Math.max(0, id - 1), to: id }), { testid: 'revision-compare' })];
  if (ctx.can('editor') && id !== head) {
    actions.push(button('Roll back to this', async () => {
      try {
        if (await rollback(ctx, id)) ctx.navigate('#/history');
      } catch (err) {
        if (err.name !== 'AbortError') ctx.notify.error(err.message);
      }
    }, { kind: 'danger-quiet', testid: 'revision-rollback' }));
  }
  const changes = rev.changes || [];
  return h('div', { testid: 'revision-detail', dataset: { revision: id } },
    pageHeader(`Revision #${id}`, { badges: id === head ? [badge('head', 'accent')] : [], actions, subtitle: rev.message || '(no message)' }),
    h('div', { class: 'grid-2' },
      panel('About', dl([
        ['Actor', rev.actor, 'revision-detail-actor'],
        ['Source', humanize(rev.source)],
        ['Time', timeEl(rev.time)],
        ['Parent', rev.parent ? h('a', { href: route(['history', rev.parent]) }, `#${rev.parent}`) : 'none (first revision)'],
        ['Rollback of', rev.rollbackOf ? h('a', { href: route(['history', rev.rollbackOf]) }, `#${rev.rollbackOf}`) : null],
      ])),
      panel('Applies', recs.length ? table([
        { label: 'Mode', cell: (a) => badge(a.mode) },
        { label: 'Outcome', cell: (a) => badge(a.outcome) },
        { label: 'Duration', cell: (a) => ms(a.durationMs) },
        { label: 'Started', cell: (a) => agoEl(a.started) },
        { label: 'Error', cell: (a) => (a.error ? h('span', { class: 'error-text-inline' }, a.error) : '—'), class: 'col-wide' },
      ], recs, { caption: 'Applies of this revision' }) : h('p', { class: 'muted' }, 'No apply record for this revision.'))),
    panel(`Changes (${changes.length})`, h('ul', { class: 'plain-list', testid: 'revision-changes' }, changes.map((c) => h('li', null,
      badge(c.op), ' ', h('span', { class: 'kind' }, c.kind), ' ', objectLink(c)))), { id: 'panel-changes' }),
    panel(`Diff against #${diff.from}`, diffView(diff, { headingLevel: 'h3' }), { id: 'panel-diff' }));
}

function objectLink(c) {
  const plurals = { backend: 'backends', server: 'servers', certificate: 'certificates' };
  if (c.op !== 'delete' && plurals[c.kind]) return h('a', { href: route([plurals[c.kind], c.name]), class: 'mono' }, c.name);
  return h('span', { class: 'mono' }, c.name);
}
