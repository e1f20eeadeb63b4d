// rows.js manages repeated form rows (endpoints, hostnames, locations): add, remove, and
// keeping each row's field paths in step with its position so API errors find it.
import { h } from '../dom.js';
import { renumber, errorSlot } from '../form.js';

/**
 * rowList returns {el, list, add} for rows under the API path prefix. makeRow(value) builds
 * one row's inputs; each row gets a remove button labelled with its position.
 */
export function rowList({ prefix, legend, makeRow, values, addLabel, noun, min = 0, testid, hint }) {
  const list = h('div', { class: 'rows', testid: testid + '-rows' });
  const addBtn = h('button', { type: 'button', class: 'btn btn-secondary btn-small', testid: 'add-' + testid }, addLabel);
  const fs = h('fieldset', { class: 'fieldset', dataset: { field: prefix } },
    h('legend', null, legend),
    hint ? h('p', { class: 'field-hint' }, hint) : null,
    errorSlot(prefix),
    list,
    h('div', { class: 'rows-actions' }, addBtn));

  const sync = () => {
    renumber(list, prefix);
    const rows = [...list.children];
    rows.forEach((row, i) => {
      const rm = row.querySelector('.row-remove');
      rm.setAttribute('aria-label', `Remove ${noun} ${i + 1}`);
      rm.disabled = rows.length <= min;
    });
  };
  const add = (value, focus) => {
    const remove = h('button', { type: 'button', class: 'btn btn-quiet btn-small row-remove', testid: 'remove-' + testid }, 'Remove');
    const row = h('div', { class: 'row', role: 'group', testid: testid + '-row' },
      h('p', { class: 'row-title', dataset: { rowLabel: noun[0].toUpperCase() + noun.slice(1) } }),
      h('div', { class: 'row-fields' }, makeRow(value || {})),
      h('div', { class: 'row-end' }, remove),
      h('p', { class: 'field-error', hidden: true, dataset: { sub: '' } }));
    remove.addEventListener('click', () => {
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      sync();
      // Keep keyboard focus in the list instead of dropping it to the page body.
      (next ? next.querySelector('input, select') : addBtn).focus();
    });
    list.append(row);
    sync();
    row.setAttribute('aria-label', row.querySelector('.row-title').textContent);
    if (focus) row.querySelector('input, select').focus();
    return row;
  };
  addBtn.addEventListener('click', () => add({}, true));
  (values || []).forEach((v) => add(v, false));
  for (let i = (values || []).length; i < min; i++) add({}, false);
  return { el: fs, list, add };
}
