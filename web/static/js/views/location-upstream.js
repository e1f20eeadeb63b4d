// location-upstream.js is the upstream part of a location row in the server form
// (policies): the Host header sent upstream and X-Forwarded-Prefix. Its inputs
// carry data-upstream, so that the server form reads them apart from the row's own.
import { h } from '../dom.js';
import { field, input } from '../form.js';

/** upstreamHostFields returns the collapsible upstream fields for location l. */
export function upstreamHostFields(l) {
  const text = (key, value, placeholder) => input({ value: value || '', placeholder, autocapitalize: 'none', dataset: { upstream: key } });
  const on = Boolean(l.upstreamHost || l.forwardedPrefix);
  return h('details', { class: 'location-upstream', open: on, testid: 'location-upstream' },
    h('summary', null, on ? 'Upstream host (set)' : 'Upstream host'),
    h('div', { class: 'field-grid' },
      field({ label: 'Host sent upstream', input: text('upstreamHost', l.upstreamHost, 'api.internal'), sub: 'upstreamHost', testid: 'location-upstream-host', hint: 'Replaces the request’s Host header; empty keeps it.' }),
      field({ label: 'X-Forwarded-Prefix', input: text('forwardedPrefix', l.forwardedPrefix, '/shop'), sub: 'forwardedPrefix', testid: 'location-forwarded-prefix', hint: 'Optional: tells the upstream the path it is mounted under.' })));
}

/** readUpstreamHost sets or clears the row's upstreamHost and forwardedPrefix on l. */
export function readUpstreamHost(row, l) {
  for (const el of row.querySelectorAll('[data-upstream]')) {
    const v = el.value.trim();
    if (v) l[el.dataset.upstream] = v;
    else delete l[el.dataset.upstream];
  }
}
