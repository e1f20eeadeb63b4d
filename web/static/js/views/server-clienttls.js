// server-clienttls.js is the client certificate part of the server form's TLS fieldset
// (policies): the CA that client certificates must chain to, the verify mode,
// the depth, an error page and whether the certificate is passed upstream. nginx asks
// for the certificate in the TLS handshake, so it shows only when the server has TLS.
import { h } from '../dom.js';
import { field, input, select } from '../form.js';

const MODES = [
  ['on', 'on: refuse requests without a valid certificate (400)'],
  ['optional', 'optional: pass requests without one; refuse invalid ones'],
  ['optional_no_ca', 'optional_no_ca: pass every request; the upstream decides'],
  ['off', 'off: ask for no certificate'],
];

/** clientTLSFields returns the fields for server s's clientTLS and a read function. */
export function clientTLSFields(s, caNames) {
  const c = s.clientTLS || {};
  const current = c.caCertificate || '';
  const ca = select([['', 'None (no client certificates)'], ...caNames.map((n) => [n, n]),
    ...(current && !caNames.includes(current) ? [[current, `${current} (missing)`]] : [])], current);
  const verify = select(MODES, c.verify || 'on');
  const depth = input({ type: 'number', min: '1', max: '10', value: String(c.depth || 1) });
  const errorPage = input({ value: c.errorPage || '', placeholder: 'a full URL or a path such as /certificate-needed', autocapitalize: 'none' });
  const pass = h('input', { type: 'checkbox', id: 'clienttls-pass', checked: Boolean(c.passCertificateToUpstream), testid: 'server-clienttls-pass' });
  const details = h('div', { class: 'field-grid' },
    field({ label: 'Verify mode', input: verify, path: 'clientTLS.verify', testid: 'server-clienttls-verify' }),
    field({ label: 'Chain depth', input: depth, path: 'clientTLS.depth', testid: 'server-clienttls-depth', hint: 'Intermediate CAs allowed between a client certificate and the CA (1 by default).' }),
    field({ label: 'Error page', input: errorPage, path: 'clientTLS.errorPage', testid: 'server-clienttls-errorpage', hint: 'Optional: a failed verification redirects here (302) instead of answering 400.' }),
    h('div', { class: 'check' }, pass, h('label', { for: 'clienttls-pass' }, 'Pass the certificate upstream (ssl-client-cert)')));
  const el = h('div', { class: 'clienttls', testid: 'server-clienttls' },
    h('div', { class: 'field-grid' },
      field({ label: 'Client certificate CA', input: ca, path: 'clientTLS.caCertificate', testid: 'server-clienttls-ca',
        hint: caNames.length ? 'Ask clients for a certificate signed by this CA, in the TLS handshake. The upstream gets ssl-client-verify and the DNs.' : 'Add a CA certificate first to verify clients.' })),
    details);
  const sync = () => { details.hidden = !ca.value; };
  ca.addEventListener('change', sync);
  sync();
  /** read returns the clientTLS the fields describe, or undefined for none. */
  const read = () => {
    if (!ca.value) return undefined;
    const out = { caCertificate: ca.value, verify: verify.value, depth: Number(depth.value) || 1 };
    if (errorPage.value.trim()) out.errorPage = errorPage.value.trim();
    if (pass.checked) out.passCertificateToUpstream = true;
    return out;
  };
  return { el, read };
}
