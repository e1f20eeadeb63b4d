// overview.js shows what runs: head and applied revision, whether OpenResty is in sync,
// the last applies, the instance state and object counts. It refreshes at every revision
// on the event stream (and follows the apply that comes after it), and falls back to
// polling /status every two seconds when the stream fails. It fetches the rest only when
// something moved.
import { h, setText, replace, route } from '../dom.js';
import { badge, agoEl, ms, humanize, plural } from '../format.js';
import { pageHeader, panel, table, emptyState, dl } from './common.js';
import { live as follow } from '../events.js';

const INTERVAL = 2000;
const SETTLE_EVERY = 250;
const SETTLE_TRIES = 40;

function stat(label, testid, value, extra) {
  const v = h('p', { class: 'stat-value', testid }, value);
  return { el: h('div', { class: 'stat' }, h('h2', { class: 'stat-label' }, label), v, extra || null), value: v };
}

/** renderOverview draws the overview and keeps it live until the user navigates away. */
export async function renderOverview(ctx) {
  ctx.setTitle('Overview');
  const { api, signal } = ctx;

  const head = stat('Head revision', 'ov-head', '—');
  const applied = stat('Applied revision', 'ov-applied', '—');
  const sync = h('span', { testid: 'ov-sync' }, badge('unknown'));
  const syncNote = h('p', { class: 'stat-note', testid: 'ov-sync-note' });
  const syncStat = { el: h('div', { class: 'stat' }, h('h2', { class: 'stat-label' }, 'Sync'), h('p', { class: 'stat-value', 'aria-live': 'polite' }, sync), syncNote) };
  const inst = h('span', { testid: 'ov-instance' }, badge('unknown'));
  const instNote = h('p', { class: 'stat-note', testid: 'ov-instance-note' });
  const instStat = { el: h('div', { class: 'stat' }, h('h2', { class: 'stat-label' }, 'OpenResty'), h('p', { class: 'stat-value' }, inst), instNote) };

  const countLink = (kind, label) => {
    const n = h('span', { class: 'count-value', testid: `ov-count-${kind}` }, '—');
    return { n, el: h('a', { class: 'count', href: route([kind]) }, n, h('span', { class: 'count-label' }, label)) };
  };
  const counts = { backends: countLink('backends', 'backends'), servers: countLink('servers', 'servers'), certificates: countLink('certificates', 'certificates') };

  const lastApply = h('div', { testid: 'ov-last-apply' }, h('p', { class: 'muted' }, 'No apply yet.'));
  const applies = h('div', { testid: 'ov-applies' });
  const revisions = h('div', { testid: 'ov-revisions' });
  const live = h('span', { class: 'live', testid: 'ov-live' }, h('span', { class: 'live-dot', 'aria-hidden': 'true' }), h('span', { class: 'live-text' }, 'Live'));
  const updated = h('span', { class: 'muted small', testid: 'ov-updated' });

  const view = h('div', { class: 'overview', testid: 'overview' },
    pageHeader('Overview', { actions: [h('div', { class: 'live-wrap' }, live, updated)] }),
    h('div', { class: 'stats' }, head.el, applied.el, syncStat.el, instStat.el),
    h('div', { class: 'grid-2' },
      panel('Last apply', lastApply, { testid: 'ov-last-apply-panel' }),
      panel('Objects', h('div', { class: 'counts' }, counts.backends.el, counts.servers.el, counts.certificates.el), { testid: 'ov-objects' })),
    panel('Recent applies', applies, { actions: [h('a', { href: '#/history' }, 'History')] }),
    panel('Recent revisions', revisions, { actions: [h('a', { href: '#/history' }, 'All revisions')] }));

  let seenHead = -1;
  let seenApply = null;
  let seenApplied = -1;

  async function refresh() {
    const st = await api.get('/status', undefined, signal);
    const lastId = st.lastApply ? st.lastApply.id : 0;
    setText(head.value, `#${st.head}`);
    setText(applied.value, st.applied ? `#${st.applied}` : 'none');
    view.dataset.head = String(st.head);
    view.dataset.applied = String(st.applied);
    const inSync = Boolean(st.inSync);
    // api.Status: state is the OpenResty process state ("off" without OpenResty), instance
    // its name; lastGood, watching and rejected tell where the applier stands.
    const state = st.state || 'off';
    const syncKey = st.rejected ? 'rejected' : inSync ? 'in_sync' : state === 'off' ? 'off' : 'out_of_sync';
    if (sync.dataset.state !== syncKey) {
      sync.dataset.state = syncKey;
      replace(sync, { rejected: badge('rejected', 'bad'), in_sync: badge('in sync', 'ok'), out_of_sync: badge('out of sync', 'warn'), off: badge('not applied', 'muted') }[syncKey]);
    }
    let note = 'Nothing applied yet.';
    if (st.rejected) note = `nginx refused head #${st.rejected}; OpenResty keeps serving #${st.applied}.`;
    else if (inSync) note = 'OpenResty runs the head revision.';
    else if (state === 'off') note = 'No OpenResty to apply to.';
    else if (st.applied) note = `OpenResty runs #${st.applied}; head is #${st.head}.`;
    setText(syncNote, note);
    if (inst.dataset.state !== state) {
      inst.dataset.state = state;
      replace(inst, badge(state, { running: 'ok', attached: 'ok', starting: 'warn', restarting: 'warn', stopped: 'bad', off: 'muted' }[state]));
    }
    const notes = [];
    if (state === 'off') notes.push('restyplane runs without OpenResty.');
    else if (st.instance) notes.push(`instance ${st.instance}`);
    if (st.watching) notes.push(`watching #${st.watching} after its apply`);
    if (st.rejected) notes.push(`head #${st.rejected} was rejected by nginx`);
    if (st.lastGood) notes.push(`last good #${st.lastGood}`);
    setText(instNote, notes.join(' · '));

    if (st.head !== seenHead) {
      const [cfg, revs] = await Promise.all([
        api.get('/config', undefined, signal),
        api.get('/revisions', { limit: 5 }, signal),
      ]);
      setText(counts.backends.n, String((cfg.backends || []).length));
      setText(counts.servers.n, String((cfg.servers || []).length));
      setText(counts.certificates.n, String((cfg.certificates || []).length));
      replace(revisions, revisionList(revs.items || []));
      seenHead = st.head;
    }
    if (lastId !== seenApply || st.applied !== seenApplied) {
      const ap = await api.get('/applies', { limit: 8 }, signal);
      replace(applies, appliesTable(ap.items || []));
      replace(lastApply, lastApplyView(st.lastApply));
      seenApply = lastId;
      seenApplied = st.applied;
    }
    live.classList.remove('live-error');
    setText(live.querySelector('.live-text'), 'Live');
    setText(updated, `updated ${new Date().toLocaleTimeString()}`);
    return st;
  }

  // After a revision event the applier still has to apply it: the status is looked at
  // again, a bounded number of times, until OpenResty runs the head or refused it.
  let settling = 0;
  async function settle() {
    const st = await refresh();
    clearTimeout(settling);
    let tries = 0;
    const again = async () => {
      if (signal.aborted || tries++ >= SETTLE_TRIES) return;
      const now = await refresh().catch(() => null);
      if (now && !now.inSync && !now.rejected && now.state !== 'off') settling = setTimeout(again, SETTLE_EVERY);
    };
    if (st && !st.inSync && !st.rejected && st.state !== 'off') settling = setTimeout(again, SETTLE_EVERY);
  }
  signal.addEventListener('abort', () => clearTimeout(settling));

  await refresh();
  follow(api, signal, INTERVAL, settle, (mode) => {
    // The indicator says how the view stays live: by the event stream or by polling.
    live.dataset.mode = mode;
    live.title = mode === 'events' ? 'Updates arrive as they happen' : 'Event stream unavailable: polling every 2 s';
  }, () => {
    live.classList.add('live-error');
    setText(live.querySelector('.live-text'), 'Reconnecting…');
  });
  return view;
}

function lastApplyView(a) {
  if (!a) return h('p', { class: 'muted' }, 'No apply yet. Applies appear here once OpenResty is managed.');
  return h('div', { class: 'last-apply' },
    dl([
      ['Outcome', badge(a.outcome, undefined, { testid: 'ov-last-apply-outcome' })],
      ['Revision', revLink(a.revision)],
      ['Mode', badge(a.mode, undefined, { testid: 'ov-last-apply-mode' })],
      ['Took', ms(a.durationMs)],
      ['Started', agoEl(a.started)],
    ], { class: 'facts-compact' }),
    a.error ? h('pre', { class: 'error-text', testid: 'ov-last-apply-error' }, a.error) : null);
}

function appliesTable(items) {
  return table([
    { label: 'Revision', cell: (a) => revLink(a.revision) },
    { label: 'Mode', cell: (a) => badge(a.mode) },
    { label: 'Outcome', cell: (a) => badge(a.outcome) },
    { label: 'Duration', cell: (a) => ms(a.durationMs) },
    { label: 'Started', cell: (a) => agoEl(a.started) },
    { label: 'Error', cell: (a) => (a.error ? h('span', { class: 'error-text-inline' }, a.error) : h('span', { class: 'muted' }, '—')), class: 'col-wide' },
  ], items, {
    caption: 'Recent applies',
    rowProps: (a) => ({ dataset: { revision: a.revision, outcome: a.outcome }, testid: 'apply-row' }),
    empty: emptyState('No applies yet.', null, 'ov-applies-empty'),
  });
}

function revisionList(items) {
  if (!items.length) return emptyState('No revisions yet. Create a backend to start the history.', h('a', { href: '#/backends/new' }, 'Create a backend'));
  return h('ol', { class: 'mini-timeline' }, items.map((r) => h('li', { dataset: { revision: r.id } },
    h('a', { href: route(['history', r.id]), class: 'rev-id' }, `#${r.id}`), ' ',
    h('span', { class: 'rev-message' }, r.message || h('span', { class: 'muted' }, '(no message)')), ' ',
    h('span', { class: 'muted small' }, `${r.actor} · ${humanize(r.source)} · ${plural(r.changeCount || 0, 'change')} · `, agoEl(r.time)))));
}

// revLink links a revision; #0, the empty state OpenResty starts with, has no page.
function revLink(id) {
  return id ? h('a', { href: route(['history', id]) }, `#${id}`) : h('span', { title: 'the empty configuration' }, '#0');
}
