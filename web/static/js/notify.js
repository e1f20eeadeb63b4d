// notify.js shows short status messages in the page's live regions: #status (polite) for
// what went well and #alert (assertive) for errors.

/** Notifier owns the two live regions and hides each message after a while. */
export class Notifier {
  constructor(statusEl, alertEl) {
    this.statusEl = statusEl;
    this.alertEl = alertEl;
    this.timers = new Map();
  }

  show(el, text, ttl) {
    clearTimeout(this.timers.get(el));
    el.textContent = text;
    el.hidden = false;
    this.timers.set(el, setTimeout(() => {
      el.hidden = true;
      el.textContent = '';
    }, ttl));
  }

  /** ok announces a success. */
  ok(text) {
    this.show(this.statusEl, text, 7000);
  }

  /** error announces a failure. */
  error(text) {
    this.show(this.alertEl, text, 12000);
  }

  /** clear hides both messages, e.g. when signing out. */
  clear() {
    for (const el of [this.statusEl, this.alertEl]) {
      clearTimeout(this.timers.get(el));
      el.hidden = true;
      el.textContent = '';
    }
  }
}
