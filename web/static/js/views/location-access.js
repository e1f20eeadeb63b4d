// location-access.js is the access list and limits part of a location row in the server
// form (policies). Its inputs come after the row's own and the auth part's, and
// carry data-policy, so that the server form reads them apart. Lists take CIDRs or
// addresses separated by commas, spaces or new lines.
import { h } from '../dom.js';
import { field, input } from '../form.js';

const LIST = (v) => (v || []).join('\n');
const NUMBERS = ['rps', 'rpm', 'burstMultiplier', 'connections', 'status'];

/** accessFields returns the collapsible access list and limit fields for location l. */
export function accessFields(l) {
  const a = l.access || {};
  const m = l.limits || {};
  const on = Boolean(l.access || l.limits);
  const list = (key, value, placeholder) => h('textarea', { rows: 3, placeholder, spellcheck: 'false', autocapitalize: 'none', dataset: { policy: key } }, LIST(value));
  const num = (key, value, placeholder) => input({ type: 'number', min: 0, value: value ? String(value) : '', placeholder, dataset: { policy: key } });
  const text = (key, value, placeholder) => input({ value: value || '', placeholder, autocapitalize: 'none', dataset: { policy: key } });
  return h('details', { class: 'location-access', open: on, testid: 'location-access' },
    h('summary', null, on ? 'Access and limits (on)' : 'Access and limits'),
    h('div', { class: 'field-grid' },
      field({ label: 'Allow', input: list('access.allow', a.allow, '10.0.0.0/8\n2001:db8::/32'), sub: 'access.allow', testid: 'location-access-allow', hint: 'Only these addresses pass (403 for others). Empty: all but the denied.' }),
      field({ label: 'Deny', input: list('access.deny', a.deny, '10.0.0.66'), sub: 'access.deny', testid: 'location-access-deny', hint: 'Refused with 403; checked first.' })),
    h('div', { class: 'field-grid' },
      field({ label: 'Requests/s per address', input: num('rps', m.rps, 'none'), sub: 'limits.rps', testid: 'location-limit-rps' }),
      field({ label: 'Requests/min per address', input: num('rpm', m.rpm, 'none'), sub: 'limits.rpm', testid: 'location-limit-rpm' }),
      field({ label: 'Burst multiplier', input: num('burstMultiplier', m.burstMultiplier, '5'), sub: 'limits.burstMultiplier', testid: 'location-limit-burst', hint: 'Burst = rate × multiplier.' }),
      field({ label: 'Connections per address', input: num('connections', m.connections, 'none'), sub: 'limits.connections', testid: 'location-limit-connections' }),
      field({ label: 'Status past a limit', input: num('status', m.status, '429'), sub: 'limits.status', testid: 'location-limit-status' }),
      field({ label: 'Exempt', input: list('exempt', m.exempt, '10.1.0.0/16'), sub: 'limits.exempt', testid: 'location-limit-exempt', hint: 'Addresses no limit applies to.' }),
      field({ label: 'Bandwidth per request', input: text('rate', m.rate, 'e.g. 100k'), sub: 'limits.rate', testid: 'location-limit-rate', hint: 'Bytes a second; changing it reloads nginx.' }),
      field({ label: 'Full speed for the first', input: text('rateAfter', m.rateAfter, 'e.g. 1m'), sub: 'limits.rateAfter', testid: 'location-limit-rate-after' })));
}

const split = (s) => s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

/**
 * readAccess returns the access policy and limits the row's fields describe, each
 * undefined for none. A number field that is not a number is sent as it is, so that the
 * API names the field.
 */
export function readAccess(row) {
  const v = {};
  for (const el of row.querySelectorAll('[data-policy]')) v[el.dataset.policy] = el.value.trim();
  const access = {};
  const allow = split(v['access.allow']);
  const deny = split(v['access.deny']);
  if (allow.length) access.allow = allow;
  if (deny.length) access.deny = deny;
  const limits = {};
  for (const k of NUMBERS) {
    if (v[k] === '') continue;
    const n = Number(v[k]);
    limits[k] = Number.isInteger(n) ? n : v[k];
  }
  const exempt = split(v.exempt);
  if (exempt.length) limits.exempt = exempt;
  if (v.rate) limits.rate = v.rate;
  if (v.rateAfter) limits.rateAfter = v.rateAfter;
  return {
    access: allow.length || deny.length ? access : undefined,
    limits: Object.keys(limits).length ? limits : undefined,
  };
}
