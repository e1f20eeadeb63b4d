// rows.js manages repeated form rows (endpoints, hostnames, locations): add, remove, and
// keeping each row's field paths in step with its position so API errors find it.
import { h } from '../dom.js';
import { renumber, errorSlot } from '../form.js';

/**
 * rowList returns {el, list, add} for rows under the API path prefix. makeRow(value) builds
 * one row's inputs; each row gets a remove button labelled with its position.
 */
export function rowList({ prefix, legend, makeRow, values, addLabel, noun, min = 0, testid, hint, inline }) {
  const Noun = noun[0].toUpperCase() + noun.slice(1);
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
      row.setAttribute('aria-label', `${Noun} ${i + 1}`);
      const rm = row.querySelector('.row-remove');
      rm.setAttribute('aria-label', `Remove ${noun} ${i + 1}`);
      rm.disabled = rows.length <= min;
    });
  };
  const add = (value, focus) => {
    const remove = h('button', { type: 'button', class: 'btn btn-quiet btn-small row-remove', testid: 'remove-' + testid }, 'Remove');
    // A row of several fields is titled ("Endpoint 2") with its remove button beside the
    // title; a one-field row (inline) puts the button beside its input instead.
    const row = h('div', { class: ['row', inline && 'row-inline'], role: 'group', testid: testid + '-row' },
      inline ? null : h('div', { class: 'row-head' }, h('p', { class: 'row-title', dataset: { rowLabel: Noun } }), remove),
      h('div', { class: 'row-fields' }, makeRow(value || {})),
      inline ? h('div', { class: 'row-end' }, remove) : null,
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
    if (focus) row.querySelector('input, select').focus();
    return row;
  };
  addBtn.addEventListener('click', () => add({}, true));
  (values || []).forEach((v) => add(v, false));
  for (let i = (values || []).length; i < min; i++) add({}, false);
  return { el: fs, list, add };
}
