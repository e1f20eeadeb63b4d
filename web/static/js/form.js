// form.js builds labelled form fields and shows the API's validation errors next to the
// field they name: an error's `field` (e.g. "endpoints[0].port") is matched against the
// data-field attribute of the inputs, walking up to the nearest enclosing path
// ("endpoints[0]", then "endpoints") when no input carries the exact one.
import { h, uid } from './dom.js';

/**
 * field wraps an input with its label, an optional hint and an error slot. path is the API
 * field path the input edits; sub, for inputs inside repeated rows, is the path below the
 * row, to which renumber() prefixes the row's index.
 */
export function field({ label, input, path, sub, hint, wide, testid }) {
  const id = input.id || uid('f');
  input.id = id;
  if (path) input.dataset.field = path;
  if (sub !== undefined) input.dataset.sub = sub;
  if (testid) input.dataset.testid = testid;
  const err = h('p', { class: 'field-error', id: id + '-err', hidden: true, dataset: { errorFor: path, sub } });
  const hintEl = hint ? h('p', { class: 'field-hint', id: id + '-hint' }, hint) : null;
  input.setAttribute('aria-describedby', [hintEl && hintEl.id, err.id].filter(Boolean).join(' '));
  return h('div', { class: ['field', wide && 'field-wide'] }, h('label', { for: id }, label), input, hintEl, err);
}

/** input is a text-like input; type defaults to text. */
export function input(props = {}) {
  return h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', ...props });
}

/** select renders options from [value, label] pairs (or plain values) with one selected. */
export function select(options, value, props = {}) {
  const el = h('select', props);
  for (const o of options) {
    const [v, label] = Array.isArray(o) ? o : [o, o];
    el.append(h('option', { value: v, selected: v === value }, label));
  }
  return el;
}

/** errorSlot is an error paragraph for a group (a fieldset or a list of rows). */
export function errorSlot(path) {
  return h('p', { class: 'field-error', hidden: true, dataset: { errorFor: path } });
}

/**
 * renumber gives the rows inside container the paths prefix[0], prefix[1], … so that an
 * API error about "endpoints[2].port" finds the third row's port input after rows were
 * added or removed.
 */
export function renumber(container, prefix) {
  [...container.children].forEach((row, i) => {
    const base = `${prefix}[${i}]`;
    // data-row, not data-field: a row whose one input is the row's own path (a hostname)
    // must not shadow that input.
    row.dataset.row = base;
    setPaths(row, base);
    row.querySelectorAll('[data-row-label]').forEach((el) => {
      el.textContent = `${el.dataset.rowLabel} ${i + 1}`;
    });
  });
}

/**
 * setPaths gives the inputs and error slots inside el that carry data-sub the path
 * base.sub, e.g. "locations[1]" and "when.method" give "locations[1].when.method".
 */
export function setPaths(el, base) {
  el.querySelectorAll('[data-sub]').forEach((x) => {
    const path = x.dataset.sub ? `${base}.${x.dataset.sub}` : base;
    if (x.classList.contains('field-error')) x.dataset.errorFor = path;
    else x.dataset.field = path;
  });
}

/** parentPath strips the last segment: "a[0].b" → "a[0]" → "a" → "". */
export function parentPath(path) {
  const m = /^(.*)(\.[^.[\]]+|\[\d+\])$/.exec(path);
  return m ? m[1] : '';
}

/** clearErrors removes every error shown in the form. */
export function clearErrors(form) {
  form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
  form.querySelectorAll('.field-error').forEach((el) => {
    el.hidden = true;
    el.textContent = '';
  });
  form.querySelectorAll('.has-error').forEach((el) => el.classList.remove('has-error'));
  const summary = form.querySelector('.form-error');
  if (summary) {
    summary.hidden = true;
    summary.replaceChildren();
  }
}

const esc = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s.replace(/["\\]/g, '\\$&'));

/**
 * showError places err ({field, message}) next to its field and focuses that field; errors
 * that name no field of the form go to the form's summary. It returns the element it marked.
 */
export function showError(form, err, extra) {
  let path = err.field || '';
  let target = null;
  while (path) {
    target = form.querySelector(`[data-field="${esc(path)}"]`) || form.querySelector(`[data-row="${esc(path)}"]`);
    if (target) break;
    path = parentPath(path);
  }
  const summary = form.querySelector('.form-error');
  let slot = null;
  if (target) {
    slot = form.querySelector(`.field-error[data-error-for="${esc(path)}"]`);
  }
  if (slot) {
    slot.textContent = err.message;
    slot.hidden = false;
    const control = target.matches('input, select, textarea') ? target : target.querySelector('input, select, textarea, button');
    target.classList.add('has-error');
    if (control) {
      // A field in a collapsed section (a location's policies) is opened to be seen.
      const closed = control.closest('details:not([open])');
      if (closed) closed.open = true;
      control.setAttribute('aria-invalid', 'true');
      control.focus();
    }
    if (summary) {
      summary.replaceChildren('Not saved: check the field marked below.');
      summary.hidden = false;
    }
    return slot;
  }
  if (summary) {
    summary.replaceChildren(err.message);
    if (extra) summary.append(' ', extra);
    summary.hidden = false;
    summary.focus();
  }
  return summary;
}

/** formError is the summary slot at the top of a form. */
export function formError() {
  return h('div', { class: 'form-error', role: 'alert', tabindex: '-1', hidden: true, testid: 'form-error' });
}

/** intOf reads a number input: blank is 0, anything else its integer value (NaN as is). */
export function intOf(el) {
  const v = el.value.trim();
  if (v === '') return 0;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : NaN;
}

/** reasonField is the required "why" of every write. */
export function reasonField(opts = {}) {
  const ta = h('textarea', { rows: '2', name: 'message', maxlength: '1000', required: true, testid: opts.testid || 'reason' });
  return field({
    label: opts.label || 'Reason for this change',
    input: ta,
    path: 'message',
    hint: opts.hint || 'Recorded in the history and the audit log with your name.',
    wide: true,
  });
}

/** needReason checks the reason client-side and shows the error next to it. */
export function needReason(form) {
  const ta = form.querySelector('[data-field="message"]');
  if (ta && !ta.value.trim()) {
    showError(form, { field: 'message', message: 'Say why you are making this change.' });
    return null;
  }
  return ta ? ta.value.trim() : '';
}
