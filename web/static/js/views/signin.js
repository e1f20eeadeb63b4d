// signin.js asks for an API token, checks it with /whoami, and keeps it for this tab.
import { h } from '../dom.js';
import { whoami, ApiError } from '../api.js';

/** renderSignIn draws the sign-in form; app.signIn takes over once the token is accepted. */
export function renderSignIn(app, signal) {
  const token = h('input', {
    type: 'password', id: 'signin-token', name: 'token', autocomplete: 'off', spellcheck: 'false',
    required: true, testid: 'signin-token', 'aria-describedby': 'signin-hint signin-error',
  });
  const error = h('p', { class: 'field-error', id: 'signin-error', role: 'alert', testid: 'signin-error', hidden: true });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary btn-block', testid: 'signin-submit' }, 'Sign in');
  const form = h('form', { class: 'signin-form', novalidate: true, testid: 'signin-form' },
    h('div', { class: 'field' },
      h('label', { for: 'signin-token' }, 'API token'),
      token,
      h('p', { class: 'field-hint', id: 'signin-hint' }, 'Kept for this browser tab only and forgotten when you close it. restyplane prints an admin token at its first start; admins create more under Tokens.'),
      error),
    submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const secret = token.value.trim();
    error.hidden = true;
    token.removeAttribute('aria-invalid');
    if (!secret) {
      fail('Enter your API token.');
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    try {
      const who = await whoami(secret, signal);
      app.signIn(secret, who);
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      fail(err instanceof ApiError && err.status === 401 ? 'That token is not valid. Check it and try again.' : err.message);
      submit.disabled = false;
      submit.textContent = 'Sign in';
    }
  });
  function fail(msg) {
    error.textContent = msg;
    error.hidden = false;
    token.setAttribute('aria-invalid', 'true');
    token.focus();
  }
  const view = h('div', { class: 'signin' },
    h('div', { class: 'signin-card panel' },
      h('h1', null, 'Sign in to restyplane'),
      h('p', { class: 'subtitle' }, 'The control plane for your OpenResty proxy.'),
      form));
  queueMicrotask(() => token.focus());
  return view;
}
