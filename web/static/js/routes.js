// routes.js maps hash paths to views. role is the least role that may open the view; nav
// names the menu entry to mark as current.
import { renderOverview } from './views/overview.js';
import { renderBackendList, renderBackendDetail } from './views/backends.js';
import { renderBackendForm } from './views/backend-form.js';
import { renderServerList, renderServerDetail } from './views/servers.js';
import { renderServerForm } from './views/server-form.js';
import { renderCertificateList, renderCertificateDetail } from './views/certificates.js';
import { renderCertificateForm } from './views/certificate-form.js';
import { renderHistory, renderRevision } from './views/history.js';
import { renderDiff } from './views/diff.js';
import { renderAudit } from './views/audit.js';
import { renderTokens } from './views/tokens.js';
import { renderInstances } from './views/instances.js';
import { renderIngresses } from './views/ingresses.js';
// Policies: htpasswd objects.
import { renderHtpasswdList, renderHtpasswdDetail } from './views/htpasswds.js';
import { renderHtpasswdForm } from './views/htpasswd-form.js';
// Policies: CA certificate bundles.
import { renderCACertificateList, renderCACertificateDetail } from './views/cacertificates.js';
import { renderCACertificateForm } from './views/cacertificate-form.js';
// Proxy-wide settings and, for admins, the history's retention policy.
import { renderSettings } from './views/settings.js';

export const routes = [
  { path: '/', view: renderOverview, nav: 'overview' },
  { path: '/overview', view: renderOverview, nav: 'overview' },
  { path: '/signin', view: renderOverview, nav: 'overview' },
  { path: '/backends', view: renderBackendList, nav: 'backends' },
  { path: '/backends/new', view: renderBackendForm, nav: 'backends', role: 'editor' },
  { path: '/backends/:name', view: renderBackendDetail, nav: 'backends' },
  { path: '/backends/:name/edit', view: renderBackendForm, nav: 'backends', role: 'editor' },
  { path: '/servers', view: renderServerList, nav: 'servers' },
  { path: '/servers/new', view: renderServerForm, nav: 'servers', role: 'editor' },
  { path: '/servers/:name', view: renderServerDetail, nav: 'servers' },
  { path: '/servers/:name/edit', view: renderServerForm, nav: 'servers', role: 'editor' },
  { path: '/certificates', view: renderCertificateList, nav: 'certificates' },
  { path: '/certificates/new', view: renderCertificateForm, nav: 'certificates', role: 'editor' },
  { path: '/certificates/:name', view: renderCertificateDetail, nav: 'certificates' },
  { path: '/certificates/:name/edit', view: renderCertificateForm, nav: 'certificates', role: 'editor' },
  // Policies: htpasswd objects.
  { path: '/htpasswds', view: renderHtpasswdList, nav: 'htpasswds' },
  { path: '/htpasswds/new', view: renderHtpasswdForm, nav: 'htpasswds', role: 'editor' },
  { path: '/htpasswds/:name', view: renderHtpasswdDetail, nav: 'htpasswds' },
  { path: '/htpasswds/:name/edit', view: renderHtpasswdForm, nav: 'htpasswds', role: 'editor' },
  // Policies: CA certificate bundles.
  { path: '/caCertificates', view: renderCACertificateList, nav: 'caCertificates' },
  { path: '/caCertificates/new', view: renderCACertificateForm, nav: 'caCertificates', role: 'editor' },
  { path: '/caCertificates/:name', view: renderCACertificateDetail, nav: 'caCertificates' },
  { path: '/caCertificates/:name/edit', view: renderCACertificateForm, nav: 'caCertificates', role: 'editor' },
  { path: '/history', view: renderHistory, nav: 'history' },
  { path: '/history/:id', view: renderRevision, nav: 'history' },
  { path: '/diff', view: renderDiff, nav: 'history' },
  { path: '/instances', view: renderInstances, nav: 'instances' },
  { path: '/ingresses', view: renderIngresses, nav: 'ingresses' },
  { path: '/settings', view: renderSettings, nav: 'settings' },
  { path: '/audit', view: renderAudit, nav: 'audit', role: 'editor' },
  { path: '/tokens', view: renderTokens, nav: 'tokens', role: 'admin' },
];
