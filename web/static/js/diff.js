// diff.js compares two JSON bodies line by line and renders them side by side.
import { h } from './dom.js';
import { badge, plural } from './format.js';

// Beyond this many cells the LCS table costs too much memory; the middle is then shown as
// one replaced block, which is still correct, only less precise.
const MAX_CELLS = 4_000_000;

/**
 * lineDiff aligns two arrays of lines. It returns rows {type, left, right, ln, rn} where type
 * is "same", "del" (left only), "add" (right only) or "change" (a removed line paired with an
 * added one), and ln/rn are 1-based line numbers or 0 when a side is empty.
 */
export function lineDiff(a, b) {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);

  const ops = []; // 'eq' | 'del' | 'add', over the middle parts
  const n = am.length;
  const m = bm.length;
  if (n && m && (n + 1) * (m + 1) <= MAX_CELLS) {
    // lcs[i][j] is the LCS length of am[i:] and bm[j:], stored row-major.
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = am[i] === bm[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (am[i] === bm[j]) {
        ops.push('eq'); i++; j++;
      } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
        ops.push('del'); i++;
      } else {
        ops.push('add'); j++;
      }
    }
    while (i++ < n) ops.push('del');
    while (j++ < m) ops.push('add');
  } else {
    for (let i = 0; i < n; i++) ops.push('del');
    for (let j = 0; j < m; j++) ops.push('add');
  }

  const rows = [];
  let ln = 0;
  let rn = 0;
  const same = (count) => {
    for (let k = 0; k < count; k++) {
      rows.push({ type: 'same', left: a[ln], right: b[rn], ln: ln + 1, rn: rn + 1 });
      ln++; rn++;
    }
  };
  same(pre);
  // Walk the ops, pairing each run of deletions with the run of additions that follows it so
  // that an edited line shows next to its new version.
  for (let k = 0; k < ops.length;) {
    if (ops[k] === 'eq') {
      same(1);
      k++;
      continue;
    }
    const dels = [];
    const adds = [];
    while (k < ops.length && ops[k] !== 'eq') {
      if (ops[k] === 'del') dels.push(ln++);
      else adds.push(rn++);
      k++;
    }
    const pairs = Math.max(dels.length, adds.length);
    for (let p = 0; p < pairs; p++) {
      const l = p < dels.length ? dels[p] : -1;
      const r = p < adds.length ? adds[p] : -1;
      rows.push({
        type: l >= 0 && r >= 0 ? 'change' : l >= 0 ? 'del' : 'add',
        left: l >= 0 ? a[l] : '', right: r >= 0 ? b[r] : '',
        ln: l >= 0 ? l + 1 : 0, rn: r >= 0 ? r + 1 : 0,
      });
    }
  }
  same(suf);
  return rows;
}

/** pretty renders a JSON body as indented lines; an absent body has no lines. */
export function jsonLines(body) {
  if (body === undefined || body === null) return [];
  return JSON.stringify(body, null, 2).split('\n');
}

/** inlineParts splits a changed line into [prefix, changed middle, suffix]. */
function inlineParts(s, other) {
  let p = 0;
  while (p < s.length && p < other.length && s[p] === other[p]) p++;
  let q = 0;
  while (q < s.length - p && q < other.length - p && s[s.length - 1 - q] === other[other.length - 1 - q]) q++;
  return [s.slice(0, p), s.slice(p, s.length - q), s.slice(s.length - q)];
}

function codeCell(text, other, type, side) {
  const cls = ['code'];
  if (type === 'change') cls.push(side === 'left' ? 'code-del' : 'code-add');
  else if (type === 'del' && side === 'left') cls.push('code-del');
  else if (type === 'add' && side === 'right') cls.push('code-add');
  else if (type !== 'same') cls.push('code-empty');
  const td = h('td', { class: cls });
  if (type === 'change') {
    const [pre, mid, post] = inlineParts(text, other);
    td.append(pre, h('mark', { class: 'hl' }, mid), post);
  } else {
    td.textContent = text;
  }
  return td;
}

// Unchanged runs longer than this are folded, keeping CONTEXT lines around each change.
const CONTEXT = 3;

/** diffTable renders the rows of lineDiff as a two-column table. */
export function diffTable(rows, labels = ['Before', 'After']) {
  const body = h('tbody');
  const table = h('table', { class: 'diff-table', testid: 'diff-table' },
    h('caption', { class: 'visually-hidden' }, `${labels[0]} and ${labels[1]} side by side; changed lines are marked`),
    h('colgroup', null, h('col', { class: 'col-ln' }), h('col'), h('col', { class: 'col-ln' }), h('col')),
    h('thead', null, h('tr', null,
      h('th', { scope: 'col', colspan: '2' }, labels[0]),
      h('th', { scope: 'col', colspan: '2' }, labels[1]))),
    body);
  const keep = rows.map(() => false);
  rows.forEach((r, i) => {
    if (r.type === 'same') return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(rows.length - 1, i + CONTEXT); k++) keep[k] = true;
  });
  const anyChange = rows.some((r) => r.type !== 'same');
  const rowEl = (r) => {
    const tr = h('tr', { class: 'diff-row diff-' + r.type, dataset: { type: r.type } },
      h('td', { class: 'ln' }, r.ln ? String(r.ln) : ''),
      codeCell(r.left, r.right, r.type, 'left'),
      h('td', { class: 'ln' }, r.rn ? String(r.rn) : ''),
      codeCell(r.right, r.left, r.type, 'right'));
    if (r.type !== 'same') {
      tr.setAttribute('aria-label', { del: 'removed', add: 'added', change: 'changed' }[r.type]);
    }
    return tr;
  };
  for (let i = 0; i < rows.length;) {
    if (!anyChange || keep[i]) {
      body.append(rowEl(rows[i]));
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && !keep[j]) j++;
    const hidden = rows.slice(i, j);
    if (hidden.length <= 2) {
      hidden.forEach((r) => body.append(rowEl(r)));
    } else {
      const btn = h('button', { type: 'button', class: 'btn btn-link btn-small' }, `Show ${hidden.length} unchanged lines`);
      const fold = h('tr', { class: 'diff-fold' }, h('td', { colspan: '4' }, btn));
      btn.addEventListener('click', () => {
        const frag = document.createDocumentFragment();
        hidden.forEach((r) => frag.append(rowEl(r)));
        fold.replaceWith(frag);
      });
      body.append(fold);
    }
    i = j;
  }
  return table;
}

/** diffView renders an API Diff: a summary and one side-by-side table per object. */
export function diffView(diff, opts = {}) {
  const entries = diff.entries || [];
  const counts = { create: 0, update: 0, delete: 0 };
  entries.forEach((e) => { counts[e.op] = (counts[e.op] || 0) + 1; });
  const parts = [];
  if (counts.create) parts.push(`${counts.create} created`);
  if (counts.update) parts.push(`${counts.update} changed`);
  if (counts.delete) parts.push(`${counts.delete} deleted`);
  const fromLabel = opts.fromLabel || `Revision #${diff.from}`;
  const toLabel = opts.toLabel || `Revision #${diff.to}`;
  const summary = entries.length
    ? `${plural(entries.length, 'object')} ${entries.length === 1 ? 'differs' : 'differ'} between ${fromLabel} and ${toLabel}: ${parts.join(', ')}.`
    : `${fromLabel} and ${toLabel} have the same state.`;
  const wrap = h('div', { class: 'diff', testid: 'diff-view', dataset: { from: diff.from, to: diff.to } },
    h('p', { class: 'diff-summary', testid: 'diff-summary' }, summary));
  const headingTag = opts.headingLevel || 'h2';
  for (const e of entries) {
    const rows = lineDiff(jsonLines(e.before), jsonLines(e.after));
    wrap.append(h('section', { class: 'diff-entry', testid: 'diff-entry', dataset: { kind: e.kind, name: e.name, op: e.op } },
      h(headingTag, { class: 'diff-entry-title' }, h('span', { class: 'kind' }, e.kind), ' ', h('span', { class: 'mono' }, e.name), ' ', badge(e.op)),
      h('div', { class: 'diff-scroll' }, diffTable(rows, [fromLabel, toLabel]))));
  }
  return wrap;
}
