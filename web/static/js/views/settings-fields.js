// settings-fields.js describes the proxy-wide settings (GET/PUT /api/v1/settings) in groups,
// draws their inputs and reads them back into a settings object. Each group says whether a
// change reloads nginx: all but the rollback thresholds and the reload spacing are nginx.conf
// directives, and those two are read by restyplane's applier alone.
import { h } from '../dom.js';
import { field, input, select } from '../form.js';

const RELOADS = 'Changing any of these reloads nginx (after nginx -t accepts the new config).';
const NO_RELOAD = 'Read by restyplane’s applier, not by nginx: changing them makes a revision but no reload.';
// VARIABLES are the nginx variables a proxySetHeaders value may name (api.ProxyHeaderVariables).
const VARIABLES = '$host, $http_host, $realip_remote_addr, $remote_addr, $remote_port, $request_id, $request_method, $request_uri, $scheme, $server_port, $ssl_cipher, $ssl_protocol';

/** GROUPS are the settings by fieldset; kind is int, number, text, choice, bool, list or headers. */
export const GROUPS = [
  { legend: 'Workers and connections', hint: RELOADS, fields: [
    { key: 'workerProcesses', kind: 'int', label: 'Worker processes', hint: '0: one per CPU core (auto); at most 64.' },
    { key: 'workerConnections', kind: 'int', label: 'Connections per worker', hint: '64–65536.' },
    { key: 'keepaliveTimeout', kind: 'text', label: 'Client keepalive timeout', hint: 'A duration such as 75s.' },
    { key: 'keepaliveRequests', kind: 'int', label: 'Requests per client connection', hint: '1–100000.' },
    { key: 'upstreamKeepalive', kind: 'int', label: 'Idle upstream connections per worker', hint: '0–10000.' },
    { key: 'upstreamKeepaliveTimeout', kind: 'text', label: 'Idle upstream connection timeout', placeholder: '60s', hint: 'A duration; empty: 60s.' },
    { key: 'upstreamKeepaliveRequests', kind: 'int', label: 'Requests per upstream connection', hint: '0: 1000.' },
  ] },
  { legend: 'Requests and proxying', hint: RELOADS, fields: [
    { key: 'clientMaxBodySize', kind: 'text', label: 'Largest request body', hint: 'A size such as 1m or 512k.' },
    { key: 'proxyConnectTimeout', kind: 'text', label: 'Upstream connect timeout' },
    { key: 'proxyReadTimeout', kind: 'text', label: 'Upstream read timeout' },
    { key: 'proxySendTimeout', kind: 'text', label: 'Upstream send timeout' },
    { key: 'http2', kind: 'bool', label: 'HTTP/2 on TLS listeners' },
  ] },
  { legend: 'Logging and compression', hint: RELOADS, fields: [
    { key: 'logFormat', kind: 'choice', label: 'Access log format', options: ['json', 'combined'] },
    { key: 'gzipTypes', kind: 'list', label: 'Gzip types', hint: 'MIME types, one per line or separated by commas; at most 50.' },
    { key: 'accessLog', kind: 'bool', label: 'Write an access log (buffered: a line reaches the file within a second)' },
    { key: 'gzip', kind: 'bool', label: 'Compress responses with gzip' },
  ] },
  { legend: 'Trusted proxies', hint: 'The client address, which access lists, limits and logs see, is taken from the header only for requests whose connection comes from one of these CIDRs; every other request keeps its connection’s address. ' + RELOADS, fields: [
    { key: 'realIPFrom', kind: 'list', label: 'Trusted proxies (CIDRs)', placeholder: '10.0.0.0/8\n2001:db8::/32', hint: 'CIDRs or addresses, one per line or separated by commas. Empty: the connection’s address, always.' },
    { key: 'realIPHeader', kind: 'text', label: 'Client address header', placeholder: 'X-Forwarded-For', hint: 'Empty: X-Forwarded-For. Its last address that is not itself trusted is taken.' },
  ] },
  { legend: 'Headers sent upstream', hint: RELOADS, fields: [
    { key: 'proxySetHeaders', kind: 'headers', label: 'Request headers on every proxied request', placeholder: 'X-Request-ID: $request_id\nX-Team: checkout', hint: 'One “Name: value” a line. A value is literal text in which $ starts one of ' + VARIABLES + '. A location’s own headers win.' },
    { key: 'useForwardedHeaders', kind: 'bool', label: 'Pass on the X-Forwarded-For, -Proto, -Host and -Port clients send (behind another proxy that sets them); off, they say what this proxy sees' },
  ] },
  { legend: 'Automatic rollback and reloads', hint: NO_RELOAD, fields: [
    { key: 'rollbackErrorRatio', kind: 'number', label: 'Roll back at 5xx share', hint: 'Of the affected servers’ requests within the window after an apply, 0–1; 0 turns automatic rollback off.' },
    { key: 'rollbackWindow', kind: 'text', label: 'Watch window', hint: 'How long after an apply errors are counted, e.g. 30s.' },
    { key: 'rollbackMinRequests', kind: 'int', label: 'Requests needed in the window', hint: '1–1000000.' },
    { key: 'rollbackMinClients', kind: 'int', label: 'Distinct failing clients needed', hint: '0 means 3. Behind a proxy that hides client addresses, lower it.' },
    { key: 'minReloadInterval', kind: 'text', label: 'Least time between reloads', hint: 'Changes that arrive meanwhile are merged into one reload, e.g. 1s.' },
  ] },
];

const shown = (v) => (Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? `${x.name}: ${x.value}` : x)).join('\n') : v === undefined || v === null ? '' : String(v));

function control(f, v, readOnly) {
  const data = { dataset: { setting: f.key, kind: f.kind } };
  // Checkboxes and selects have no read-only state, so they are disabled instead.
  if (f.kind === 'bool') return h('input', { type: 'checkbox', checked: Boolean(v), disabled: readOnly, ...data });
  if (f.kind === 'choice') return select(f.options, v || f.options[0], { disabled: readOnly, ...data });
  const common = { placeholder: f.placeholder, autocapitalize: 'none', spellcheck: 'false', readOnly, ...data };
  if (f.kind === 'list' || f.kind === 'headers') return h('textarea', { rows: 3, class: 'mono', ...common }, shown(v));
  return input({ type: f.kind === 'text' ? 'text' : 'number', step: f.kind === 'number' ? 'any' : undefined, value: shown(v), ...common });
}

/** settingsFields draws one fieldset per group with s's values; readOnly for non-admins. */
export function settingsFields(s, readOnly) {
  return GROUPS.map((g) => {
    const plain = g.fields.filter((f) => f.kind !== 'bool');
    const checks = g.fields.filter((f) => f.kind === 'bool').map((f) => {
      const el = control(f, s[f.key], readOnly);
      el.id = 'setting-' + f.key;
      el.dataset.field = f.key;
      el.dataset.testid = 'setting-' + f.key;
      return h('div', { class: 'check' }, el, h('label', { for: el.id }, f.label));
    });
    return h('fieldset', { class: 'fieldset' },
      h('legend', null, g.legend),
      h('p', { class: 'field-hint' }, g.hint),
      h('div', { class: 'field-grid' }, plain.map((f) => field({ label: f.label, input: control(f, s[f.key], readOnly), path: f.key, hint: f.hint, testid: 'setting-' + f.key }))),
      checks);
  });
}

const split = (s) => s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

// headers reads "Name: value" lines; a line without ':' is sent as a name with no value,
// so that the API names it.
const headers = (s) => s.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
  const i = l.indexOf(':');
  return i < 0 ? { name: l, value: '' } : { name: l.slice(0, i).trim(), value: l.slice(i + 1).trim() };
});

function num(v, kind) {
  if (v === '') return 0;
  const n = Number(v);
  return Number.isFinite(n) && (kind === 'number' || Number.isInteger(n)) ? n : v;
}

/**
 * readSettings returns the settings the form describes. A number field that is not a
 * number is sent as the text it holds, so that the API names the field; a blank one is 0,
 * which means the default.
 */
export function readSettings(form) {
  const out = {};
  for (const el of form.querySelectorAll('[data-setting]')) {
    const { setting: key, kind } = el.dataset;
    if (kind === 'bool') out[key] = el.checked;
    else if (el.validity && el.validity.badInput) out[key] = 'not a number'; // the API names the field
    else if (kind === 'list') out[key] = split(el.value);
    else if (kind === 'headers') out[key] = headers(el.value);
    else if (kind === 'int' || kind === 'number') out[key] = num(el.value.trim(), kind);
    else out[key] = el.value.trim();
  }
  return out;
}
