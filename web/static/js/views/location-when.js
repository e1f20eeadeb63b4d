// location-when.js is the request conditions part of a location row in the server form
// (when): a method, header and query parameter conditions, each exact or a regex, and a
// scheme. Its inputs come after the row's own path and rewrite inputs, and its method,
// scheme and condition lists carry data-when or data-when-list, so that the server form
// reads them apart.
import { h } from '../dom.js';
import { field, input, select, setPaths } from '../form.js';

// METHODS are the methods the API accepts in a condition (api.Methods).
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];
const SCHEMES = [['', 'Any'], ['http', 'http only'], ['https', 'https only']];
const TYPES = [['exact', '= exact'], ['regex', '~ regex']];

/** whenFields returns the collapsible request condition fields for location l. */
export function whenFields(l) {
  const w = l.when || {};
  const on = Boolean(l.when);
  // The section carries when's own path, so that an error about when as a whole shows here.
  return h('details', { class: 'location-when', open: on, testid: 'location-when', dataset: { sub: 'when' } },
    h('summary', null, on ? 'Request conditions (on)' : 'Request conditions'),
    h('p', { class: 'field-hint' }, 'The location takes only requests that meet every condition; others go to the next location that matches, or get 404. A regex must match the whole value.'),
    h('div', { class: 'field-grid' },
      field({ label: 'Method', input: select([['', 'Any'], ...METHODS], w.method || '', { dataset: { when: 'method' } }), sub: 'when.method', testid: 'location-when-method' }),
      field({ label: 'Scheme', input: select(SCHEMES, w.scheme || '', { dataset: { when: 'scheme' } }), sub: 'when.scheme', testid: 'location-when-scheme' })),
    conditionList('headers', 'Headers', 'header', w.headers, 'Names are case-insensitive.'),
    conditionList('query', 'Query parameters', 'query', w.query, 'Names are case-sensitive; a parameter given twice is matched by its first value.'),
    h('p', { class: 'field-error', hidden: true, dataset: { sub: 'when' } }));
}

// conditionList is the header or query conditions (kind) as rows of name, type and value,
// each removable, with a button to add one. Each row's inputs edit when.kind[i].
function conditionList(kind, legend, noun, values, hint) {
  const list = h('div', { class: 'conditions', dataset: { whenList: kind } });
  const add = h('button', { type: 'button', class: 'btn btn-secondary btn-small', testid: `add-when-${noun}` }, `Add ${noun} condition`);
  const sync = () => {
    [...list.children].forEach((row, i) => {
      row.setAttribute('aria-label', `${legend} condition ${i + 1}`);
      row.querySelector('.condition-remove').setAttribute('aria-label', `Remove ${noun} condition ${i + 1}`);
      for (const el of row.querySelectorAll('[data-part]')) el.dataset.sub = `when.${kind}[${i}].${el.dataset.part}`;
    });
    // In a location row already numbered, the paths follow at once; a new location row
    // is numbered by its list when it is added.
    const loc = list.closest('[data-row]');
    if (loc) setPaths(list, loc.dataset.row);
  };
  const addRow = (v, focus) => {
    // type is sent as it came: a condition stored without one (exact) stays without one.
    const given = v.type === undefined ? '' : v.type;
    const name = input({ value: v.name || '', placeholder: noun === 'header' ? 'X-Version' : 'page', autocapitalize: 'none' });
    const type = select(TYPES, v.type || 'exact', { dataset: { given } });
    const value = input({ value: v.value || '', autocapitalize: 'none' });
    // Each input and its error slot remember their part; sync() turns it into a path.
    const cell = (label, el, part) => {
      const f = field({ label, input: el, sub: part, testid: 'when-' + part });
      for (const x of f.querySelectorAll('[data-sub]')) x.dataset.part = part;
      return f;
    };
    const remove = h('button', { type: 'button', class: 'btn btn-quiet btn-small condition-remove', testid: 'remove-when-condition' }, 'Remove');
    const row = h('div', { class: 'condition', role: 'group', testid: `when-${noun}-row` },
      h('div', { class: 'row-fields' },
        cell('Name', name, 'name'),
        cell('Type', type, 'type'),
        cell('Value', value, 'value')),
      h('div', { class: 'row-end' }, remove));
    remove.addEventListener('click', () => {
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      sync();
      // Keep keyboard focus in the list instead of dropping it to the page body.
      (next ? next.querySelector('input') : add).focus();
    });
    list.append(row);
    sync();
    if (focus) name.focus();
  };
  add.addEventListener('click', () => addRow({ type: 'exact' }, true));
  (values || []).forEach((v) => addRow(v, false));
  return h('fieldset', { class: 'conditions-set', testid: `location-when-${kind}` },
    h('legend', null, legend),
    h('p', { class: 'field-hint' }, hint),
    list,
    h('div', { class: 'rows-actions' }, add));
}

/** readWhen sets l.when from the row's condition fields, or deletes it when none is set. */
export function readWhen(row, l) {
  const box = row.querySelector('.location-when');
  const w = {};
  const method = box.querySelector('[data-when="method"]').value;
  if (method) w.method = method;
  for (const list of box.querySelectorAll('[data-when-list]')) {
    const conds = [...list.children].map((c) => {
      const [name, value] = c.querySelectorAll('input');
      const type = c.querySelector('select');
      const out = { name: name.value.trim() };
      if (type.value !== 'exact' || type.dataset.given) out.type = type.value;
      out.value = value.value.trim();
      return out;
    });
    if (conds.length) w[list.dataset.whenList] = conds;
  }
  const scheme = box.querySelector('[data-when="scheme"]').value;
  if (scheme) w.scheme = scheme;
  if (Object.keys(w).length) l.when = w;
  else delete l.when;
}
