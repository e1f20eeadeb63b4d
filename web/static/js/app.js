// app.js starts the UI: it restores the tab's session, draws the shell for the token's role
// and routes hash URLs (#/backends/shop-api) to views. Each view renders into <main> and
// gets an AbortSignal that fires when the user navigates away, so late answers of an old
// view never draw over the new one and its timers stop.
import { h, replace } from './dom.js';
import { Client, ApiError } from './api.js';
import * as session from './session.js';
import { Notifier } from './notify.js';
import { routes } from './routes.js';
import { renderSignIn } from './views/signin.js';
import { notAllowed, errorPanel } from './views/common.js';

class App {
  constructor() {
    this.main = document.getElementById('main');
    this.nav = document.getElementById('main-nav');
    this.navToggle = document.getElementById('nav-toggle');
    this.notify = new Notifier(document.getElementById('status'), document.getElementById('alert'));
    this.session = null;
    this.api = null;
    this.current = null; // {controller, cleanups}
    this.rendered = 0;
    this.renders = 0;
    this.cspViolations = [];
  }

  start() {
    // Violations are kept for the browser tests, which assert that the UI never needs more
    // than the strict policy allows.
    document.addEventListener('securitypolicyviolation', (e) => {
      this.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
      document.documentElement.dataset.cspViolations = String(this.cspViolations.length);
    });
    document.getElementById('signout').addEventListener('click', () => this.signOut('You are signed out.'));
    document.getElementById('skip-link').addEventListener('click', (e) => {
      e.preventDefault();
      this.main.focus();
    });
    this.navToggle.addEventListener('click', () => this.toggleNav());
    this.nav.addEventListener('click', (e) => {
      if (e.target.closest('a')) this.toggleNav(false);
    });
    window.addEventListener('hashchange', () => this.route());
    const s = session.load();
    if (s) {
      this.useSession(s);
      // Refresh the role: an admin may have replaced the token meanwhile.
      this.api.get('/whoami').then((who) => {
        if (who && (who.role !== s.role || who.name !== s.name)) {
          this.useSession({ token: s.token, name: who.name, role: who.role });
          this.route();
        }
      }).catch(() => {});
    }
    this.route();
  }

  useSession(s) {
    session.save(s);
    this.session = s;
    this.api = new Client(s.token, () => this.signOut('Your token was not accepted any more. Sign in again.'));
    document.getElementById('whoami').textContent = `${s.name} · ${s.role}`;
    document.getElementById('whoami').dataset.role = s.role;
    document.body.dataset.role = s.role;
    for (const a of this.nav.querySelectorAll('a[data-role]')) {
      a.parentElement.hidden = !session.can(s.role, a.dataset.role);
    }
    this.nav.hidden = false;
    this.navToggle.hidden = false;
    document.getElementById('session').hidden = false;
  }

  /** signIn is called by the sign-in view with a checked token. */
  signIn(token, who) {
    this.useSession({ token, name: who.name, role: who.role });
    this.notify.ok(`Signed in as ${who.name} (${who.role}).`);
    const next = sessionStorage.getItem('restyplane.next');
    sessionStorage.removeItem('restyplane.next');
    if (next && next !== location.hash) location.hash = next;
    else this.route();
  }

  signOut(message) {
    session.clear();
    this.session = null;
    this.api = null;
    delete document.body.dataset.role;
    this.nav.hidden = true;
    this.navToggle.hidden = true;
    document.getElementById('session').hidden = true;
    this.notify.clear();
    if (message) this.notify.ok(message);
    this.route();
  }

  toggleNav(force) {
    const open = force ?? this.navToggle.getAttribute('aria-expanded') !== 'true';
    this.navToggle.setAttribute('aria-expanded', String(open));
    this.nav.classList.toggle('open', open);
  }

  /** navigate changes the route; the hashchange listener renders it. */
  navigate(hash) {
    if (location.hash === hash) this.route();
    else location.hash = hash;
  }

  stopCurrent() {
    if (!this.current) return;
    this.current.controller.abort();
    for (const fn of this.current.cleanups) {
      try { fn(); } catch { /* a cleanup must not stop the others */ }
    }
    this.current = null;
  }

  async route() {
    const raw = location.hash.startsWith('#/') ? location.hash.slice(1) : '/';
    if (location.hash && !location.hash.startsWith('#/')) {
      return; // an in-page anchor such as the skip link, not a route
    }
    const [pathPart, queryPart = ''] = raw.split('?');
    const query = Object.fromEntries(new URLSearchParams(queryPart));
    this.stopCurrent();
    const controller = new AbortController();
    const cleanups = [];
    this.current = { controller, cleanups };
    const focus = this.rendered > 0;
    this.rendered++;

    if (!this.session) {
      if (raw !== '/' && raw !== '/signin') sessionStorage.setItem('restyplane.next', '#' + raw);
      this.setNavCurrent('');
      document.title = 'Sign in · restyplane';
      replace(this.main, renderSignIn(this, controller.signal));
      this.afterRender(focus);
      return;
    }

    const match = matchRoute(pathPart);
    const ctx = {
      app: this,
      api: this.api,
      session: this.session,
      params: match ? match.params : {},
      query,
      signal: controller.signal,
      onCleanup: (fn) => cleanups.push(fn),
      navigate: (hash) => this.navigate(hash),
      notify: this.notify,
      can: (need) => session.can(this.session.role, need),
      setTitle: (t) => { document.title = `${t} · restyplane`; },
    };
    if (!match) {
      this.setNavCurrent('');
      ctx.setTitle('Not found');
      replace(this.main, errorPanel('Page not found', 'There is no page at this address.', h('a', { href: '#/' }, 'Go to the overview')));
      this.afterRender(focus);
      return;
    }
    this.setNavCurrent(match.route.nav);
    if (match.route.role && !ctx.can(match.route.role)) {
      ctx.setTitle('Not allowed');
      replace(this.main, notAllowed(this.session.role, match.route.role));
      this.afterRender(focus);
      return;
    }
    this.main.setAttribute('aria-busy', 'true');
    try {
      const node = await match.route.view(ctx);
      if (controller.signal.aborted) return;
      replace(this.main, node);
    } catch (err) {
      if (controller.signal.aborted || (err && err.name === 'AbortError')) return;
      if (err instanceof ApiError && err.status === 401) return; // signOut already re-routed
      replace(this.main, errorPanel(err instanceof ApiError && err.status === 404 ? 'Not found' : 'Something went wrong', err.message || String(err)));
    } finally {
      if (!controller.signal.aborted) this.main.removeAttribute('aria-busy');
    }
    this.afterRender(focus);
  }

  afterRender(focus) {
    // A counter of finished renders lets browser tests wait for a view that replaced one
    // with the same content.
    this.renders += 1;
    this.main.dataset.renders = String(this.renders);
    window.scrollTo(0, 0);
    if (!focus) return;
    // Moving focus to the new page's heading tells screen-reader users that the page
    // changed, and puts keyboard users at the top of the new content.
    const heading = this.main.querySelector('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  }

  setNavCurrent(name) {
    for (const a of this.nav.querySelectorAll('a[data-nav]')) {
      if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }
}

function matchRoute(path) {
  const segs = path.split('/').filter(Boolean);
  for (const r of routes) {
    const pat = r.path.split('/').filter(Boolean);
    if (pat.length !== segs.length) continue;
    const params = {};
    let ok = true;
    for (let i = 0; i < pat.length; i++) {
      if (pat[i].startsWith(':')) {
        try {
          params[pat[i].slice(1)] = decodeURIComponent(segs[i]);
        } catch {
          ok = false;
        }
      } else if (pat[i] !== segs[i]) {
        ok = false;
      }
      if (!ok) break;
    }
    if (ok) return { route: r, params };
  }
  return null;
}

const app = new App();
window.restyplane = { cspViolations: app.cspViolations };
app.start();
