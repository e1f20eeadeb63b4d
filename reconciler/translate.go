package reconciler

import (
	"errors"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// Translation is the kubernetes-owned part of the desired state, and what each Ingress is
// to be told about it.
type Translation struct {
	Backends     map[string]*api.Backend
	Servers      map[string]*api.Server
	Certificates map[string]*api.Certificate
	// Htpasswds are the users of basic auth from auth Secrets.
	Htpasswds map[string]*api.Htpasswd
	// CACertificates are the CA bundles of Secrets' ca.crt.
	CACertificates map[string]*api.CACertificate
	// Reports has one entry per Ingress of the snapshot, keyed "namespace/name".
	Reports map[string]*Report
	// DefaultBackendProblem says why the controller-wide default backend is not served,
	// "" when it is or there is none.
	DefaultBackendProblem string
	// Claims and Releases are the hostname claims to store before the objects are written.
	Claims, Releases []api.HostnameClaim
	// Gateway is what the Gateway API objects are to be told, nil without Gateway API.
	Gateway *GatewayReport
	// gw is the plan the routes were translated by, for endpointsOnly's comparisons.
	gw *gatewayPlan
	// refPorts are the endpoints of the Service ports the routes' backendRefs resolve
	// to, which a held rule's backend follows (followSplit).
	refPorts map[refPort][]api.Endpoint
}

// Translate turns the snapshot into backends, servers and certificates. It is a pure
// function of the snapshot and the REST-owned objects of head, so the same cluster always
// gives the same objects. The rules, each reported as a Warning on the Ingress that loses:
//
//   - An Ingress that cannot be translated (a bad annotation, a snippet, a missing TLS
//     Secret, a port its Service lacks) is skipped whole; the others go on. Its paths
//     stay its own and answer 503 (holdPlan), so that a refused Ingress that asked for
//     protection never falls through to another Ingress's broader path.
//   - A REST-owned object wins over any Ingress: a host+path that a REST server holds, or a
//     name a REST object has, is not taken.
//   - A hostname belongs to one namespace, or to the REST API, as hostOwners says; an
//     Ingress naming a hostname held by another is skipped whole.
//   - An Ingress over a limit on its own (paths on a host, hosts) is skipped whole; one
//     that would take a host's server over the locations limit loses that host.
//   - An Ingress that would take its namespace over a budget (Ingresses, locations,
//     certificate bytes), or the proxy over its certificate budget, is skipped whole,
//     the newest first: one namespace can neither grow the proxy without bound nor make
//     the store refuse every namespace's sync.
//   - A TLS entry naming a host outside the Ingress's rules, or one its certificate does
//     not cover, is skipped.
//   - Two Ingresses (of one namespace) claiming one host+path: the older Ingress (creationTimestamp;
//     within one second, the one whose server the head serves; then namespace/name) keeps
//     it; the younger one's other paths still apply.
//   - A backend (one per Service port) shared by several Ingresses is balanced as the oldest
//     of them says; a younger one whose annotations differ is told so.
//   - A host's TLS certificate and ssl-redirect come from the oldest Ingress with a TLS
//     entry for the host.
//   - A default backend serves "/" on its Ingress's hosts (and on the catch-all server for
//     an Ingress without rules) only where no path claims "/", the oldest one first.
//   - The controller-wide default backend (Snapshot.DefaultBackend) serves "/" on every
//     host, the catch-all included, where nothing else does, after every Ingress.
//   - A canary Ingress attaches its backend to the backend that routes the same host+path
//     (which, being one per Service port, splits that Service port's traffic everywhere).
//   - Gateway API routes join the servers after the Ingresses' paths, under the same
//     hostname claims (claimGatewayRoutes says how).
func Translate(snap *Snapshot, head *api.State) *Translation {
	if head == nil {
		head = api.NewState()
	}
	t := &Translation{
		Backends:       map[string]*api.Backend{},
		Servers:        map[string]*api.Server{},
		Certificates:   map[string]*api.Certificate{},
		Htpasswds:      map[string]*api.Htpasswd{},
		CACertificates: map[string]*api.CACertificate{},
		Reports:        map[string]*Report{},
	}
	ings := append([]*networkingv1.Ingress(nil), snap.Ingresses...)
	served := servedIngresses(head)
	sort.Slice(ings, func(i, j int) bool { return older(ings[i], ings[j], served) })
	m := &merge{t: t, head: head, res: reservedBy(head), claims: map[string]*claim{}, hosts: map[string]*hostBuild{},
		balancedBy: map[string]*networkingv1.Ingress{}, canaryBy: map[string]*networkingv1.Ingress{}}
	gw := planGateways(snap, head)
	owners := ownHosts(ings, snap.Claims, head, gw.claimants()...)
	spend := newSpending(snap.Budgets, head)
	m.owners = owners
	t.Claims, t.Releases = owners.claims, owners.releases
	var mains, canaries []*plan
	for _, ing := range ings {
		rep := &Report{Ingress: ing, Ours: true}
		t.Reports[ingressKey(ing)] = rep
		if why := owners.refusal(ing); why != "" {
			rep.warn(ReasonHostClaimed, "not applied: %s", why)
			continue
		}
		p, err := planFor(ing, snap)
		if err != nil {
			reason := ReasonSkipped
			switch {
			case errors.Is(err, errSnippet):
				reason = ReasonRefusedSnippet
			case errors.Is(err, errRefusedAnnotation):
				reason = ReasonRefusedAnnotation
			case errors.Is(err, errExternalName):
				reason = ReasonRefusedExternalName
			case errors.Is(err, errLimit):
				reason = ReasonLimitExceeded
			}
			rep.warn(reason, "not applied: %v", err)
			if !errors.Is(err, errLimit) {
				mains = append(mains, holdPlan(ing)) // its paths fail closed, never to another route
			}
			continue
		}
		if why := passthroughRefusal(p, head); why != "" {
			rep.warn(ReasonRefusedAnnotation, "not applied: %s", why)
			mains = append(mains, holdPlan(ing))
			continue
		}
		for _, w := range p.warnings {
			rep.warn(ReasonDegraded, "%s", w)
		}
		for _, n := range p.ann.ignored {
			rep.note(ReasonIgnoredAnnotation, "served without %s", n)
		}
		for _, n := range p.ann.unknown {
			rep.warn(ReasonUnknownAnnotation, "served without %s", n)
		}
		for _, w := range p.tlsRefusals {
			rep.warn(ReasonTLSRefused, "%s", w)
		}
		if name := m.takenName(p); name != "" {
			rep.warn(ReasonConflict, "not applied: %s is owned by the REST API, and the REST object wins", name)
			continue
		}
		if why := spend.charge(p); why != "" {
			rep.warn(ReasonLimitExceeded, "not applied: %s", why)
			continue
		}
		if p.ann.canary != nil {
			canaries = append(canaries, p)
		} else {
			mains = append(mains, p)
		}
	}
	for _, p := range mains {
		m.claimRoutes(p, p.routes, false)
	}
	m.claimGatewayRoutes(gw, spend)
	for _, p := range mains {
		m.claimRoutes(p, p.fallbacks, true)
	}
	for _, p := range canaries {
		m.attachCanary(p)
	}
	m.addDefaultBackend(snap)
	m.addAliases(mains, owners) // policies
	m.chooseTLS(mains)
	m.gatewayCatchAll(gw)
	m.gatewayTLS()
	m.buildServers()
	m.addHtpasswds(mains) // policies
	m.addCACertificates(mains)
	for _, rep := range t.Reports {
		if !rep.Applied && len(rep.Problems) == 0 {
			rep.warn(ReasonSkipped, "not applied: the Ingress routes no path to a Service")
		}
	}
	t.Gateway, t.gw, t.refPorts = gw.report(), gw, gw.refPorts()
	return t
}
