// format.js turns API values into readable text and status badges.
import { h } from './dom.js';

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const dtf = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** isZeroTime reports Go's zero time and missing values. */
export function isZeroTime(t) {
  return !t || t.startsWith('0001-01-01');
}

/** relative says how long ago (or until) an ISO time is, e.g. "3 minutes ago". */
export function relative(iso, now = Date.now()) {
  const d = new Date(iso).getTime();
  if (Number.isNaN(d)) return '';
  const s = Math.round((d - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return rtf.format(s, 'second');
  if (abs < 2700) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 64800) return rtf.format(Math.round(s / 3600), 'hour');
  if (abs < 86400 * 45) return rtf.format(Math.round(s / 86400), 'day');
  if (abs < 86400 * 400) return rtf.format(Math.round(s / (86400 * 30)), 'month');
  return rtf.format(Math.round(s / (86400 * 365)), 'year');
}

/** absolute formats an ISO time in the reader's locale and zone. */
export function absolute(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : dtf.format(d);
}

/** time renders a <time> showing the absolute time, with the relative one as its title. */
export function timeEl(iso, props = {}) {
  if (isZeroTime(iso)) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: relative(iso), ...props }, absolute(iso));
}

/** ago renders a <time> showing the relative time, with the absolute one as its title. */
export function agoEl(iso, props = {}) {
  if (isZeroTime(iso)) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: iso, title: absolute(iso), ...props }, relative(iso));
}

const TONES = {
  success: 'ok', running: 'ok', attached: 'ok', in_sync: 'ok', admin: 'accent',
  rejected: 'bad', failed: 'bad', failure: 'bad', stopped: 'bad', expired: 'bad',
  rolled_back: 'warn', starting: 'warn', pending: 'warn', expiring: 'warn', out_of_sync: 'warn', editor: 'info',
  reload: 'info', dynamic: 'info', full: 'info',
  create: 'ok', update: 'info', delete: 'bad',
};

/** badge renders a status pill; tone defaults from the value (ok, warn, bad, info, muted). */
export function badge(text, tone, props = {}) {
  const t = tone || TONES[text] || 'muted';
  return h('span', { class: ['badge', 'badge-' + t], ...props }, humanize(text));
}

/** humanize turns an identifier such as "rolled_back" into "rolled back". */
export function humanize(s) {
  return String(s ?? '').replaceAll('_', ' ');
}

/** ms formats a duration in milliseconds. */
export function ms(v) {
  if (typeof v !== 'number' || Number.isNaN(v)) return '—';
  if (v < 1) return '<1 ms';
  if (v < 1000) return `${Math.round(v)} ms`;
  return `${(v / 1000).toFixed(v < 10000 ? 2 : 1)} s`;
}

/** daysUntil returns whole days from now until an ISO time (negative when past). */
export function daysUntil(iso, now = Date.now()) {
  return Math.floor((new Date(iso).getTime() - now) / 86400000);
}

/** expiryBadge says whether a certificate is valid, expiring within 30 days, or expired. */
export function expiryBadge(iso, props = {}) {
  if (isZeroTime(iso)) return badge('unknown', 'muted', props);
  const d = daysUntil(iso);
  if (d < 0) return h('span', { class: 'badge badge-bad', ...props }, 'expired');
  if (d < 30) return h('span', { class: 'badge badge-warn', ...props }, `expires in ${d} ${d === 1 ? 'day' : 'days'}`);
  return h('span', { class: 'badge badge-ok', ...props }, `valid ${d} days`);
}

/** sourceBadge shows who owns an object. */
export function sourceBadge(source) {
  if (source && source.kind === 'kubernetes') {
    return h('span', { class: 'badge badge-info', title: `Kubernetes ${source.namespace}/${source.name}` }, `kubernetes ${source.namespace}/${source.name}`);
  }
  return h('span', { class: 'badge badge-muted' }, 'api');
}

/** isKubernetes reports whether the cluster owns an object (the API refuses REST writes). */
export function isKubernetes(obj) {
  return Boolean(obj && obj.source && obj.source.kind === 'kubernetes');
}

/** plural formats a count with its noun. */
export function plural(n, one, many = one + 's') {
  return `${n} ${n === 1 ? one : many}`;
}
