// dom.js builds DOM nodes. Everything from the API reaches the page as text nodes or
// attribute values through these helpers, never as HTML, so no response can inject markup.

// Properties set as DOM properties rather than attributes, because their attribute only
// holds the initial value (value, checked) or because they are booleans.
const PROPS = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'required', 'readOnly', 'multiple', 'open', 'indeterminate']);

/**
 * h creates an element. props: class (string or array), testid, text, on<Event> handlers,
 * DOM properties from PROPS, and any other attribute. Children are nodes, strings, numbers,
 * arrays of those, or null/false (skipped).
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') {
        el.className = Array.isArray(v) ? v.filter(Boolean).join(' ') : v;
      } else if (k === 'testid') {
        el.dataset.testid = v;
      } else if (k === 'text') {
        el.textContent = String(v);
      } else if (k === 'dataset') {
        for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) el.dataset[dk] = String(dv);
      } else if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2).toLowerCase(), v);
      } else if (k === 'style') {
        throw new Error('h: set styles with classes or element.style, never a style attribute');
      } else if (PROPS.has(k)) {
        el[k] = v;
      } else {
        el.setAttribute(k, v === true ? '' : String(v));
      }
    }
  }
  append(el, children);
  return el;
}

/** append adds children (nodes, strings, nested arrays; null and false are skipped). */
export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

/** replace empties el and appends children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** setText changes an element's text only when it differs, so live regions stay quiet. */
export function setText(el, text) {
  const t = String(text);
  if (el.textContent !== t) el.textContent = t;
}

/** link is an anchor to a hash route built from path segments, each URI-encoded. */
export function link(text, segments, props = {}) {
  return h('a', { href: route(segments), ...props }, text);
}

/** route builds a hash route from segments and an optional query object. */
export function route(segments, query) {
  const path = '#/' + segments.map((s) => encodeURIComponent(String(s))).join('/');
  const qs = query ? new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '' && v !== undefined && v !== null)).toString() : '';
  return qs ? path + '?' + qs : path;
}

let idCounter = 0;

/** uid returns a page-unique id for label/aria wiring. */
export function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
