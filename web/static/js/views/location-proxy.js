// location-proxy.js is the body, retry and error page part of a location row in the server
// form (policies). Its inputs come after the row's own and its auth's, and carry
// data-pol, so that the server form reads them apart.
import { h } from '../dom.js';
import { field, input, select } from '../form.js';

const SWITCH = [['', 'Default'], ['on', 'on'], ['off', 'off']];
const SAME_PEER = [['', 'No: only endpoints not tried yet'], ['yes', 'Yes, once none is left']];

/** proxyFields returns the collapsible proxy, retry and errors fields for location l. */
export function proxyFields(l, backendNames) {
  const p = l.proxy || {};
  const r = l.retry || {};
  const e = l.errors || {};
  const on = Boolean(l.proxy || l.retry || l.errors);
  const text = (key, value, placeholder) => input({ value: value === undefined ? '' : String(value), placeholder, autocapitalize: 'none', dataset: { pol: key } });
  const current = e.backend || '';
  const errBackends = select([['', 'None'], ...backendNames.map((n) => [n, n]),
    ...(current && !backendNames.includes(current) ? [[current, `${current} (missing)`]] : [])], current, { dataset: { pol: 'errors.backend' } });
  return h('details', { class: 'location-proxy', open: on, testid: 'location-proxy' },
    h('summary', null, on ? 'Body, retries and errors (on)' : 'Body, retries and errors'),
    h('div', { class: 'field-grid' },
      field({ label: 'Max body size', input: text('proxy.bodySize', p.bodySize, 'settings (1m)'), sub: 'proxy.bodySize', testid: 'location-proxy-body-size', hint: 'Like 10m; 0 is no limit; a larger body gets 413.' }),
      field({ label: 'Body buffer size', input: text('proxy.clientBodyBufferSize', p.clientBodyBufferSize, '16k'), sub: 'proxy.clientBodyBufferSize', testid: 'location-proxy-body-buffer' }),
      field({ label: 'Buffer answers', input: select(SWITCH, p.buffering || '', { dataset: { pol: 'proxy.buffering' } }), sub: 'proxy.buffering', testid: 'location-proxy-buffering' }),
      field({ label: 'Buffer requests', input: select(SWITCH, p.requestBuffering || '', { dataset: { pol: 'proxy.requestBuffering' } }), sub: 'proxy.requestBuffering', testid: 'location-proxy-request-buffering' }),
      field({ label: 'Buffer size', input: text('proxy.bufferSize', p.bufferSize, '8k'), sub: 'proxy.bufferSize', testid: 'location-proxy-buffer-size' }),
      field({ label: 'Buffers', input: text('proxy.buffersNumber', p.buffersNumber, '4'), sub: 'proxy.buffersNumber', testid: 'location-proxy-buffers' }),
      field({ label: 'Max temp file size', input: text('proxy.maxTempFileSize', p.maxTempFileSize, '1024m'), sub: 'proxy.maxTempFileSize', testid: 'location-proxy-temp-file' })),
    h('div', { class: 'field-grid' },
      field({ label: 'Retry on', input: text('retry.nextUpstream', (r.nextUpstream || []).join(', '), 'error, timeout'), sub: 'retry.nextUpstream', testid: 'location-retry-on', hint: 'error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, http_429, non_idempotent, or off.' }),
      field({ label: 'Tries', input: text('retry.tries', r.tries, 'the backend’s retries'), sub: 'retry.tries', testid: 'location-retry-tries', hint: 'Endpoints a request may try, the first included; 1 is no retry.' }),
      field({ label: 'Retry time limit', input: text('retry.timeout', r.timeout, '10s'), sub: 'retry.timeout', testid: 'location-retry-timeout' }),
      field({ label: 'Retry the same endpoint', input: select(SAME_PEER, r.samePeer ? 'yes' : '', { dataset: { pol: 'retry.samePeer' } }), sub: 'retry.samePeer', testid: 'location-retry-same-peer', hint: 'Once every endpoint was tried, a retry may go to one again: a backend of one endpoint retries too. Needs tries of 2 or more.' })),
    h('div', { class: 'field-grid' },
      field({ label: 'Error codes', input: text('errors.codes', (e.codes || []).join(', '), '404, 503'), sub: 'errors.codes', testid: 'location-errors-codes', hint: 'Answers with these codes come from the error backend instead, told the code in X-Code.' }),
      field({ label: 'Error backend', input: errBackends, sub: 'errors.backend', testid: 'location-errors-backend' })));
}

/** readProxy sets or deletes l's proxy, retry and errors from the row's fields. */
export function readProxy(row, l) {
  const v = {};
  for (const el of row.querySelectorAll('[data-pol]')) v[el.dataset.pol] = el.value.trim();
  const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);
  // A number field that is not a number is sent as typed, so that the API names it.
  const num = (s) => (/^[0-9]+$/.test(s) ? Number(s) : s);
  const proxy = {};
  for (const k of ['bodySize', 'clientBodyBufferSize', 'buffering', 'requestBuffering', 'bufferSize', 'maxTempFileSize']) {
    if (v['proxy.' + k]) proxy[k] = v['proxy.' + k];
  }
  if (v['proxy.buffersNumber']) proxy.buffersNumber = num(v['proxy.buffersNumber']);
  const retry = {};
  if (v['retry.nextUpstream']) retry.nextUpstream = list(v['retry.nextUpstream']);
  if (v['retry.tries']) retry.tries = num(v['retry.tries']);
  if (v['retry.timeout']) retry.timeout = v['retry.timeout'];
  if (v['retry.samePeer'] === 'yes') retry.samePeer = true;
  const set = (key, obj) => {
    if (Object.keys(obj).length) l[key] = obj;
    else delete l[key];
  };
  set('proxy', proxy);
  set('retry', retry);
  if (v['errors.codes'] || v['errors.backend']) {
    const errors = { codes: list(v['errors.codes']).map(num), backend: v['errors.backend'] };
    if (l.errors && l.errors.origin) errors.origin = l.errors.origin;
    l.errors = errors;
  } else {
    delete l.errors;
  }
}
