// session.js keeps the signed-in token for this tab only: sessionStorage is cleared when the
// tab closes and is never shared with other tabs or sent to the server by the browser.

const KEY = 'restyplane.session';

/** load returns the stored {token, name, role} or null. */
export function load() {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    return s && typeof s.token === 'string' ? s : null;
  } catch {
    return null;
  }
}

/** save stores the session for this tab. */
export function save(s) {
  sessionStorage.setItem(KEY, JSON.stringify({ token: s.token, name: s.name, role: s.role }));
}

/** clear forgets the session. */
export function clear() {
  sessionStorage.removeItem(KEY);
}

const RANK = { viewer: 1, editor: 2, admin: 3 };

/** can reports whether role reaches need (viewer < editor < admin). */
export function can(role, need) {
  return (RANK[role] || 0) >= (RANK[need] || 99);
}
