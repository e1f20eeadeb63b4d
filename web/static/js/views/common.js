// common.js holds the building blocks that every view shares: page headers, panels,
// responsive tables, definition lists and empty states.
import { h } from '../dom.js';

/** pageHeader is the view's h1 with optional badges beside it and actions on the right. */
export function pageHeader(title, { actions = [], badges = [], subtitle, testid } = {}) {
  return h('div', { class: 'page-header' },
    h('div', { class: 'page-title' },
      h('h1', { testid: testid || 'page-title' }, title, badges.length ? ' ' : null, badges),
      subtitle ? h('p', { class: 'subtitle' }, subtitle) : null),
    actions.length ? h('div', { class: 'page-actions' }, actions) : null);
}

/** panel is a titled section; the title is an h2 that labels the region. */
export function panel(title, children, props = {}) {
  const id = props.id || `panel-${String(title).toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { class: ['panel', props.class], 'aria-labelledby': id + '-title', testid: props.testid, id },
    h('div', { class: 'panel-head' }, h('h2', { id: id + '-title' }, title), props.actions ? h('div', { class: 'panel-actions' }, props.actions) : null),
    children);
}

/**
 * table renders rows as a table that turns into labelled cards on narrow screens. columns:
 * [{label, cell(row) → node|string, class}]; rowProps(row) adds attributes to each <tr>.
 */
export function table(columns, rows, { caption, rowProps, testid, empty } = {}) {
  if (!rows.length && empty) return empty;
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table table-cards', testid },
      caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
      h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.class }, c.label)))),
      h('tbody', null, rows.map((r) => h('tr', rowProps ? rowProps(r) : null,
        columns.map((c) => h('td', { class: c.class, dataset: { label: c.label } }, c.cell(r))))))));
}

/** dl renders [term, value] pairs; pairs whose value is null are left out. */
export function dl(pairs, props = {}) {
  return h('dl', { class: ['facts', props.class], testid: props.testid },
    pairs.filter((p) => p && p[1] !== null && p[1] !== undefined && p[1] !== '')
      .map(([k, v, testid]) => h('div', { class: 'fact' }, h('dt', null, k), h('dd', { testid }, v))));
}

/** emptyState says there is nothing yet and offers the next step. */
export function emptyState(text, action, testid = 'empty') {
  return h('div', { class: 'empty', testid }, h('p', null, text), action || null);
}

/** errorPanel shows a failure in place of a view. */
export function errorPanel(title, message, action) {
  return h('div', { class: 'panel panel-error', testid: 'error-panel' },
    h('h1', null, title), h('p', null, message), action ? h('p', null, action) : null);
}

/** notAllowed explains that the token's role cannot open a view. */
export function notAllowed(role, need) {
  return errorPanel('Not available to your role',
    `Your token has the ${role} role; this page needs ${need}. Ask an admin for a token with more rights.`,
    h('a', { href: '#/' }, 'Go to the overview'));
}

/** linkButton is a link styled as a button (for navigation, not actions). */
export function linkButton(text, href, props = {}) {
  return h('a', { href, class: ['btn', props.primary ? 'btn-primary' : 'btn-secondary', props.class], testid: props.testid }, text);
}

/** button is a real <button type="button">. */
export function button(text, onClick, props = {}) {
  return h('button', { type: 'button', class: ['btn', props.kind ? 'btn-' + props.kind : 'btn-secondary', props.class], onClick, testid: props.testid, 'aria-describedby': props.describedby }, text);
}

/** searchBox is a labelled search input that calls onSearch after the user pauses typing. */
export function searchBox(label, value, onSearch, testid) {
  const id = testid || 'search';
  const inputEl = h('input', { type: 'search', id, value: value || '', autocomplete: 'off', spellcheck: 'false', testid, placeholder: 'Filter by name' });
  let timer = 0;
  inputEl.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => onSearch(inputEl.value.trim()), 200);
  });
  return h('div', { class: 'search', role: 'search' }, h('label', { for: id, class: 'search-label' }, label), inputEl);
}

/** kubernetesNote explains why a cluster-owned object offers no edit buttons. */
export function kubernetesNote(obj, kind) {
  return h('p', { class: 'note', testid: 'kubernetes-note' },
    `This ${kind} is managed by Kubernetes (${obj.source.namespace}/${obj.source.name}). Change the Ingress or Service in the cluster instead; the REST API refuses edits to it.`);
}
