// backend-upstream.js is the backend form's protocol and upstream TLS (policies):
// what the endpoints speak, and for https and grpcs whether their certificate is verified,
// against which CA bundle and name, with SNI, and the client certificate presented.
import { h } from '../dom.js';
import { field, input, select, errorSlot } from '../form.js';

/** upstreamFields returns the fieldset for backend b and apply(out), which adds its values
 * to the backend's body. cas and certs are the names to choose from. */
export function upstreamFields(b, cas, certs) {
  const t = b.upstreamTLS || {};
  const protocol = select([['http', 'HTTP'], ['https', 'HTTPS'], ['grpc', 'gRPC (h2c)'], ['grpcs', 'gRPC over TLS']], b.protocol || 'http', { name: 'protocol', testid: 'backend-protocol' });
  const verify = h('input', { type: 'checkbox', id: 'upstream-verify', checked: Boolean(t.verify), testid: 'upstream-verify' });
  const sni = h('input', { type: 'checkbox', id: 'upstream-sni', checked: Boolean(t.sni), testid: 'upstream-sni' });
  const keep = (list, v) => (v && !list.includes(v) ? [...list, v] : list);
  const ca = select([['', cas.length ? 'None' : 'No CA bundle exists yet'], ...keep(cas, t.caCertificate).map((n) => [n, n])], t.caCertificate || '', { testid: 'upstream-ca' });
  const client = select([['', 'None'], ...keep(certs, t.clientCertificate).map((n) => [n, n])], t.clientCertificate || '', { testid: 'upstream-client-cert' });
  const serverName = input({ value: t.serverName || '', placeholder: 'api.internal', autocapitalize: 'none', testid: 'upstream-server-name' });
  const tlsFields = h('div', null,
    h('div', { class: 'check' }, verify, h('label', { for: 'upstream-verify' }, 'Verify the endpoints’ certificate (a failed check answers 502)')),
    h('div', { class: 'check' }, sni, h('label', { for: 'upstream-sni' }, 'Send the server name in the TLS handshake (SNI)')),
    h('div', { class: 'field-grid' },
      field({ label: 'CA bundle', input: ca, path: 'upstreamTLS.caCertificate', hint: 'The CA certificates the endpoints’ certificate must chain to.' }),
      field({ label: 'Server name', input: serverName, path: 'upstreamTLS.serverName', hint: 'The name the certificate must hold; empty: the Host sent upstream.' }),
      field({ label: 'Client certificate', input: client, path: 'upstreamTLS.clientCertificate', hint: 'Presented to endpoints that ask for one (mutual TLS).' })));
  const sync = () => { tlsFields.hidden = protocol.value !== 'https' && protocol.value !== 'grpcs'; };
  protocol.addEventListener('change', sync);
  sync();
  const el = h('fieldset', { class: 'fieldset', dataset: { field: 'upstream' } },
    h('legend', null, 'Protocol'),
    h('p', { class: 'field-hint' }, 'Changing the protocol or its TLS reloads OpenResty; endpoints and balancing stay dynamic.'),
    errorSlot('upstreamTLS'),
    h('div', { class: 'field-grid' }, field({ label: 'Endpoints speak', input: protocol, path: 'protocol' })),
    tlsFields);
  const apply = (out) => {
    if (protocol.value !== 'http') out.protocol = protocol.value;
    if (tlsFields.hidden) return;
    const tls = { verify: verify.checked, sni: sni.checked };
    if (ca.value) tls.caCertificate = ca.value;
    if (serverName.value.trim()) tls.serverName = serverName.value.trim();
    if (client.value) tls.clientCertificate = client.value;
    if (tls.verify || tls.sni || tls.caCertificate || tls.serverName || tls.clientCertificate) out.upstreamTLS = tls;
  };
  return { el, apply };
}
