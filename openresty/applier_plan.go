package openresty

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/openresty/render"
)

// plan is what one apply does to bring the instance from what it runs to the head.
type plan struct {
	mode    string
	push    render.Push
	conf    []byte // the candidate nginx.conf, stamped with the head's generation
	confKey []byte // the same without generation, to compare with what runs
	dicts   render.DictSizes
	certs   []api.Certificate // for a reload: nginx -t and the reload write them
	// resized is a reload that changes a shared dict's size, or may (nothing is known of
	// what runs): nginx starts such a zone empty, so the full dynamic state is pushed
	// after the reload. pushBefore is whether it is pushed before too: always but for a
	// known resize, so that the new workers find what they route to in a zone they keep.
	resized, pushBefore bool
	// skipped are objects the plan left out because nginx would refuse them.
	skipped []api.SkippedObject
	// deletedAfter are policies a reload removes from the conf: the workers
	// it replaces still look them up, so they are deleted once the reload is done.
	deletedAfter []string
}

// plan compares the head with what runs. The rendered nginx.conf decides between reload
// and not: rendering is deterministic, so equal bytes mean nginx sees nothing new, and a
// change to anything else (settings the applier alone reads, say) needs no reload.
// A plan with an error is one nginx must not see: the error says why.
func (a *Applier) plan(head *api.State, full bool) (*plan, error) {
	a.mu.Lock()
	running, runningCnf, runningDct := a.running, a.runningCnf, a.runningDct
	a.mu.Unlock()
	// The dicts are sized from the head's objects, which the rendered config leaves out.
	dicts := render.SizeDicts(head.Backends, head.Certificates)
	// The config to render, made only when something is rendered: copying and sorting
	// thousands of servers into it took an endpoint change 1.8 ms with 2,000 of them.
	var cfg *api.Config
	config := func() api.Config {
		if cfg == nil {
			// Backends are pushed, never rendered: leaving them out of the config spares
			// copying and sorting thousands of them.
			rendered := *head
			// Only the protocol and upstream TLS of the backends that have one.
			rendered.Backends = renderedBackends(head)
			c := rendered.Config(true)
			cfg = &c
		}
		return *cfg
	}
	// The conf depends only on the settings, the servers and the certificates' names. When
	// none of those changed it is the running one, and rendering a config of thousands of
	// servers just to find that out would cost every endpoint change a third of a second.
	key := runningCnf
	if running == nil || !sameStructure(running, head) || dicts != runningDct {
		var err error
		if key, err = a.proxy.RenderSized(config(), dicts, ""); err != nil {
			return nil, fmt.Errorf("render revision %d: %w", head.Revision, err)
		}
	}
	var err error
	known := true // whether runningDct is what runs
	p := &plan{mode: api.ModeNone, confKey: key, dicts: dicts}
	p.push = a.withSkipped(dynamicChanges(running, head, full || running == nil), head)
	switch {
	case running == nil && a.inPlace(config(), dicts):
		// The conf that runs is the head's, but the dynamic state is unknown: full push.
		p.mode = api.ModeFull
	case running == nil || !bytes.Equal(key, runningCnf):
		p.mode = api.ModeReload
		p.certs = config().Certificates // nginx -t and the reload write them
		if p.conf, err = a.proxy.RenderSized(config(), dicts, generation(head)); err != nil {
			return nil, fmt.Errorf("render revision %d: %w", head.Revision, err)
		}
		if running == nil {
			runningDct, known = a.dictsInPlace(dicts)
		}
		if p.resized = !known || dicts != runningDct; p.resized {
			p.push = a.withSkipped(dynamicChanges(running, head, true), head)
		}
	case p.push.Full:
		p.mode = api.ModeFull
	case !p.push.Empty():
		p.mode = api.ModeDynamic
	}
	if p.mode == api.ModeReload && !p.push.Full {
		p.deletedAfter, p.push.DeletedPolicies = p.push.DeletedPolicies, nil
	}
	// nginx -t checks the key of every certificate a server names, and says so in its own
	// words; a certificate that goes only into shared memory has no such check, so the
	// applier makes it here, and leaves such a certificate out, reported, while the rest
	// applies.
	kept := make([]api.Certificate, 0, len(p.push.Certificates))
	for _, c := range p.push.Certificates {
		if !c.KeyMatches && (p.mode != api.ModeReload || !named(head, c.Name)) {
			p.skipped = append(p.skipped, api.SkippedObject{Kind: api.KindCertificate, Name: c.Name,
				Reason: "the private key does not belong to the certificate"})
			continue
		}
		kept = append(kept, c)
	}
	p.push.Certificates = kept
	if p.mode == api.ModeDynamic && p.push.Empty() {
		p.mode = api.ModeNone
	}
	p.pushBefore = !p.push.Empty() && (!p.resized || !known)
	return p, nil
}

// ConfInPlacer is what a Proxy may also tell: the nginx.conf in place and the generation
// that runs, nil when unknown. Instance does.
type ConfInPlacer interface {
	ConfInPlace() (conf []byte, generation string)
}

var _ ConfInPlacer = (*nginx.Instance)(nil)

// inPlace reports whether the proxy runs the conf cfg renders to: the head's render,
// stamped with the running generation, equals the conf in place byte for byte. Then the
// first apply, after restyplane started or adopted nginx, needs no reload.
func (a *Applier) inPlace(cfg api.Config, dicts render.DictSizes) bool {
	ip, ok := a.proxy.(ConfInPlacer)
	if !ok {
		return false
	}
	conf, gen := ip.ConfInPlace()
	if conf == nil {
		return false
	}
	want, err := a.proxy.RenderSized(cfg, dicts, gen)
	return err == nil && bytes.Equal(want, conf)
}

// dictsInPlace returns the dict sizes of the conf in place, before the first apply, and
// whether they are known. A proxy that cannot tell is taken to keep head's sizes.
func (a *Applier) dictsInPlace(head render.DictSizes) (render.DictSizes, bool) {
	ip, ok := a.proxy.(ConfInPlacer)
	if !ok {
		return head, true
	}
	conf, _ := ip.ConfInPlace()
	return render.ConfDicts(conf)
}

// sameStructure reports whether two states render the same nginx.conf: the same settings
// and server versions (a version is the revision that wrote the object) and the same
// certificate names (the conf names certificate files, not their contents).
func sameStructure(a, b *api.State) bool {
	if a.Settings.Version != b.Settings.Version || len(a.Servers) != len(b.Servers) || len(a.Certificates) != len(b.Certificates) {
		return false
	}
	for name, s := range b.Servers {
		if r := a.Servers[name]; r == nil || r.Version != s.Version {
			return false
		}
	}
	for name := range b.Certificates {
		if a.Certificates[name] == nil {
			return false
		}
	}
	// Policies: the conf names htpasswd files by their content.
	return sameHtpasswds(a, b) && sameCACertificates(a, b) && sameUpstreams(a, b)
}

// named reports whether a server presents the certificate.
func named(s *api.State, cert string) bool {
	for _, srv := range s.Servers {
		if srv.TLS != nil && srv.TLS.Certificate == cert {
			return true
		}
	}
	return false
}

// dynamicChanges lists the backends and certificates that differ between what runs and
// the head. An object's version is the revision that wrote it, so equal versions mean
// equal objects and nothing needs comparing byte by byte. Only the names found are sorted,
// so that one change among thousands of backends costs a walk of the map, not a sort.
func dynamicChanges(running, head *api.State, full bool) render.Push {
	var runBackends map[string]*api.Backend
	var runCerts map[string]*api.Certificate
	if running != nil {
		runBackends, runCerts = running.Backends, running.Certificates
	}
	p := render.Push{Full: full}
	for _, name := range changedNames(runBackends, head.Backends, func(b *api.Backend) int64 { return b.Version }, full) {
		p.Backends = append(p.Backends, *head.Backends[name])
	}
	for _, name := range changedNames(runCerts, head.Certificates, func(c *api.Certificate) int64 { return c.Version }, full) {
		p.Certificates = append(p.Certificates, *head.Certificates[name])
	}
	// Policies: access lists and limits go with their servers' versions.
	p.Policies, p.DeletedPolicies = policyChanges(running, head, full)
	if full {
		return p
	}
	p.DeletedBackends = goneNames(runBackends, head.Backends)
	p.DeletedCerts = goneNames(runCerts, head.Certificates)
	return p
}

// changedNames returns, sorted, the names in head that running lacks or holds at another
// version; every name in head when all is set.
func changedNames[T any](running, head map[string]*T, version func(*T) int64, all bool) []string {
	var names []string
	for name, obj := range head {
		if r := running[name]; all || r == nil || version(r) != version(obj) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// goneNames returns, sorted, the names in running that head no longer has.
func goneNames[T any](running, head map[string]*T) []string {
	var names []string
	for name := range running {
		if head[name] == nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// DryRun says what applying candidate would do: the mode, and for a reload whether the
// rendered config passes nginx -t ("ok" or nginx's error text).
func (a *Applier) DryRun(ctx context.Context, candidate *api.State) (mode, validation string, err error) {
	p, err := a.plan(candidate, false)
	if p == nil {
		return api.ModeNone, "", err
	}
	if err != nil {
		return p.mode, err.Error(), nil
	}
	if p.mode != api.ModeReload {
		return p.mode, "ok", nil
	}
	if err := a.proxy.Test(ctx, p.conf, p.certs); err != nil {
		return p.mode, err.Error(), nil
	}
	return p.mode, "ok", nil
}

func generation(s *api.State) string { return strconv.FormatInt(s.Revision, 10) }

// ParseDuration reads a duration in nginx notation ("500ms", "30s", "5m", "1h"), the form
// api validates.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w", s, err)
	}
	return d, nil
}
