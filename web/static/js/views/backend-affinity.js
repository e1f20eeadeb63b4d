// backend-affinity.js is the backend form's session affinity: the cookie that pins each
// client to one endpoint, how sticky it is (persistent or balanced), its attributes and
// whether a client moves to another endpoint when its own fails. Its changes are dynamic.
import { h } from '../dom.js';
import { field, input, select, intOf, errorSlot } from '../form.js';

const check = (id, checked, label) => {
  const el = h('input', { type: 'checkbox', id, checked: Boolean(checked), testid: id });
  return { el, row: h('div', { class: 'check' }, el, h('label', { for: id }, label)) };
};

/** affinityFields returns the fieldset for backend b and apply(out), which adds the
 * affinity to the backend's body when a cookie is named. */
export function affinityFields(b) {
  const a = b.affinity || {};
  const cookie = input({ value: a.cookie || '', placeholder: 'route', autocapitalize: 'none', testid: 'backend-affinity' });
  const mode = select([['persistent', 'Persistent: a client keeps its endpoint'], ['balanced', 'Balanced: some clients move to new endpoints']], a.mode || 'persistent', { testid: 'affinity-mode' });
  const path = input({ value: a.path && a.path !== '/' ? a.path : '', placeholder: '/', autocapitalize: 'none', testid: 'affinity-path' });
  const domain = input({ value: a.domain || '', placeholder: 'shop.example.com', autocapitalize: 'none', testid: 'affinity-domain' });
  const sameSite = select([['', 'Not set'], ['Lax', 'Lax'], ['Strict', 'Strict'], ['None', 'None']], a.sameSite || '', { testid: 'affinity-samesite' });
  const num = (v, testid) => input({ type: 'number', inputmode: 'numeric', min: '0', value: v ? String(v) : '', placeholder: '0', class: 'input-short', testid });
  const expires = num(a.expires, 'affinity-expires');
  const maxAge = num(a.maxAge, 'affinity-max-age');
  const conditional = check('affinity-conditional', a.conditionalSameSiteNone, 'Leave SameSite=None out for browsers that reject or misread it');
  const secure = check('affinity-secure', a.secure, 'Secure on plain HTTP too (it is always on HTTPS)');
  const change = check('affinity-change', a.changeOnFailure, 'Move the client to another endpoint when its own fails');
  const details = h('div', null,
    h('div', { class: 'field-grid' },
      field({ label: 'Stickiness', input: mode, path: 'affinity.mode' }),
      field({ label: 'Cookie path', input: path, path: 'affinity.path', hint: 'Empty: /.' }),
      field({ label: 'Cookie domain', input: domain, path: 'affinity.domain', hint: 'Empty: only the host that set it.' }),
      field({ label: 'SameSite', input: sameSite, path: 'affinity.sameSite' }),
      field({ label: 'Expires after (seconds)', input: expires, path: 'affinity.expires', hint: '0: a session cookie.' }),
      field({ label: 'Max-Age (seconds)', input: maxAge, path: 'affinity.maxAge', hint: '0: not sent.' })),
    conditional.row, secure.row, change.row);
  const sync = () => { details.hidden = !cookie.value.trim(); };
  cookie.addEventListener('input', sync);
  sync();
  const el = h('fieldset', { class: 'fieldset', dataset: { field: 'affinity' } },
    h('legend', null, 'Session affinity'),
    h('p', { class: 'field-hint' }, 'Pins each client to one endpoint with a cookie the proxy sets (HttpOnly). Applied without a reload.'),
    errorSlot('affinity'),
    h('div', { class: 'field-grid' }, field({ label: 'Cookie name', input: cookie, path: 'affinity.cookie', hint: 'Empty: no affinity.' })),
    details);
  const apply = (out) => {
    if (!cookie.value.trim()) return;
    const aff = { cookie: cookie.value.trim(), mode: mode.value };
    if (path.value.trim()) aff.path = path.value.trim();
    if (domain.value.trim()) aff.domain = domain.value.trim();
    if (sameSite.value) aff.sameSite = sameSite.value;
    const e = intOf(expires);
    if (e) aff.expires = e;
    const m = intOf(maxAge);
    if (m) aff.maxAge = m;
    if (conditional.el.checked) aff.conditionalSameSiteNone = true;
    if (secure.el.checked) aff.secure = true;
    if (change.el.checked) aff.changeOnFailure = true;
    out.affinity = aff;
  };
  return { el, apply };
}

/** affinityText spells a backend's affinity for its detail page. */
export function affinityText(a) {
  if (!a) return 'off';
  const parts = [`cookie ${a.cookie}`, a.mode || 'persistent'];
  if (a.path && a.path !== '/') parts.push(`path ${a.path}`);
  if (a.domain) parts.push(`domain ${a.domain}`);
  if (a.sameSite) parts.push(`SameSite=${a.sameSite}${a.conditionalSameSiteNone ? ' (conditional)' : ''}`);
  if (a.expires) parts.push(`expires after ${a.expires}s`);
  if (a.maxAge) parts.push(`Max-Age ${a.maxAge}s`);
  if (a.secure) parts.push('Secure');
  if (a.changeOnFailure) parts.push('changes on failure');
  return parts.join(', ');
}
