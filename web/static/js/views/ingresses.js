// ingresses.js shows what restyplane does with each Ingress (GET /kubernetes/ingresses):
// served or refused, with why, and each annotation honoured, refused with why, or ignored,
// so that a team can check its Ingresses before it switches their class. A toggle adds
// the Ingresses of other classes, judged as if they moved over.
import { h } from '../dom.js';
import { badge } from '../format.js';
import { pageHeader, table, emptyState } from './common.js';

const TONES = { served: 'ok', refused: 'bad', honoured: 'ok', ignored: 'warn' };

function annotations(list) {
  if (!list || !list.length) return h('span', { class: 'muted' }, 'none');
  return h('ul', { class: 'plain-list small' }, list.map((a) => h('li', { testid: 'annotation', dataset: { name: a.name, verdict: a.verdict } },
    badge(a.verdict, TONES[a.verdict] || 'warn'), ' ',
    h('span', { class: 'mono break' }, a.name), a.value ? h('span', { class: 'muted mono break' }, ` = ${a.value}`) : null,
    a.why ? h('div', { class: 'muted' }, a.why) : null)));
}

function problems(list) {
  if (!list || !list.length) return null;
  return h('ul', { class: 'plain-list small' }, list.map((p) => h('li', { class: 'break', testid: 'ingress-problem' }, p.message || p.reason || JSON.stringify(p))));
}

/** renderIngresses draws the Ingress verdicts; ?class=any in the route adds other classes. */
export async function renderIngresses(ctx) {
  ctx.setTitle('Ingresses');
  const { api, signal } = ctx;
  const anyClass = ctx.query.class === 'any';
  const toggle = h('a', { href: anyClass ? '#/ingresses' : '#/ingresses?class=any', testid: 'ingresses-class' },
    anyClass ? 'Show only restyplane\'s class' : 'Show every class');
  let data;
  try {
    data = await api.get('/kubernetes/ingresses', anyClass ? { class: 'any' } : {}, signal);
  } catch (err) {
    if (err.status !== 503) throw err;
    return h('div', { testid: 'ingresses' }, pageHeader('Ingresses'),
      emptyState(`${err.message}: there are no Ingresses to judge.`, null, 'ingresses-no-cluster'));
  }
  const items = data.ingresses || [];
  const columns = [
    { label: 'Ingress', cell: (i) => h('span', { class: 'strong mono break' }, `${i.namespace}/${i.name}`) },
    { label: 'Class', cell: (i) => h('span', null, i.class || '—', i.ours ? null : h('span', { class: 'muted small' }, ' (other)')) },
    { label: 'Verdict', cell: (i) => h('div', null, badge(i.verdict, TONES[i.verdict] || 'warn', { testid: 'ingress-verdict' }), problems(i.problems)) },
    { label: 'Annotations', cell: (i) => annotations(i.annotations) },
  ];
  const body = items.length
    ? table(columns, items, { caption: 'Ingresses', testid: 'ingresses-table',
      rowProps: (i) => ({ testid: 'ingress-row', dataset: { name: `${i.namespace}/${i.name}` } }) })
    : emptyState('No Ingress of this class.', null, 'ingresses-empty');
  return h('div', { testid: 'ingresses' },
    pageHeader('Ingresses', { subtitle: `What restyplane does with each Ingress, as of revision #${data.revision}.` }),
    h('p', null, toggle), body);
}
