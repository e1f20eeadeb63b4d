package openresty

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// maxTraced bounds the servers one step leaves out after nginx or the renderer refused
// them, one round each: past it, the head is rejected whole as before.
const maxTraced = 8

// badServer is a server version that nginx or the renderer refused, and why; noFallback
// says that the version that runs was refused too (it may name an object the head
// deleted), so the server is left out.
type badServer struct {
	version int64
	// uses is what the refused version presented of the objects nginx reads files of
	// (usesOf): a fix of one of them in place, the server unchanged, is tried again.
	uses       string
	reason     string
	noFallback bool
}

var (
	// confLineRe finds where in the candidate conf nginx -t met the error it reports.
	confLineRe = regexp.MustCompile(`\[emerg\][^\n]*? in [^\n]*?nginx\.conf:([0-9]+)`)
	// certFileRe finds the certificate file of an error nginx reports without a line
	// (SSL_CTX_use_PrivateKey("<conf dir>/certs/<name>.key") failed).
	certFileRe = regexp.MustCompile(`\[emerg\][^\n]*?/certs/([A-Za-z0-9._-]+)\.(?:key|crt)"`)
)

// tracedServers returns the servers of planned behind an apply's error: the one a render
// error names, those whose server block holds the line of conf that nginx -t refused, or
// those that present the certificate whose file it refused. None when the error lies
// outside every server (settings, upstream blocks): then the whole revision is rejected.
func tracedServers(err error, conf []byte, planned *api.State) []string {
	var se *render.ServerError
	if errors.As(err, &se) {
		return []string{se.Server}
	}
	if m := certFileRe.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		for _, s := range planned.Servers {
			if s.TLS != nil && s.TLS.Certificate == m[1] {
				names = append(names, s.Name)
			}
		}
		slices.Sort(names)
		return names
	}
	m := confLineRe.FindStringSubmatch(err.Error())
	if m == nil || conf == nil {
		return nil
	}
	line, _ := strconv.Atoi(m[1])
	return serversAtLine(conf, line)
}

// serversAtLine returns the servers whose block in conf holds line (1-based): the names
// the block's locations set in $rp_server. A block groups the servers that share its
// hostnames, and an error in its own directives is any of theirs.
func serversAtLine(conf []byte, line int) []string {
	var names []string
	start, n := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(conf))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
		text := sc.Bytes()
		switch {
		case bytes.Equal(text, []byte("    server {")):
			start, names = n, nil
		case start > 0 && bytes.HasPrefix(bytes.TrimLeft(text, " "), []byte("set $rp_server ")):
			name, err := strconv.Unquote(string(bytes.TrimSuffix(bytes.TrimPrefix(bytes.TrimLeft(text, " "), []byte("set $rp_server ")), []byte(";"))))
			if err == nil && !slices.Contains(names, name) {
				names = append(names, name)
			}
		case start > 0 && bytes.Equal(text, []byte("    }")):
			if line >= start && line <= n {
				return names
			}
			start, names = 0, nil
		}
	}
	return nil
}

// markBad remembers the servers of planned (the state an apply tried) that err traced
// to, so that later steps render without them instead of testing them again; it reports
// whether any was new, that is whether another round can make progress.
func (a *Applier) markBad(planned *api.State, names []string, err error) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bad == nil {
		a.bad = map[string]badServer{}
	}
	marked := false
	for _, n := range names {
		s := planned.Servers[n]
		if s == nil {
			continue
		}
		if b, ok := a.bad[n]; ok {
			// planned held the running version in place of the refused one.
			if !b.noFallback && s.Version != b.version {
				b.noFallback, marked = true, true
				a.bad[n] = b
			}
			continue
		}
		a.bad[n] = badServer{version: s.Version, uses: usesOf(planned, s), reason: err.Error()}
		marked = true
	}
	return marked
}

// effective returns head as the instance can serve it: each server whose version nginx
// refused is replaced by the version that runs, or left out when none runs, so that one
// tenant's server never holds back the others. It also returns the servers so treated,
// for the apply record. Entries of versions the head no longer holds are forgotten.
func (a *Applier) effective(head *api.State) (*api.State, []api.SkippedObject) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.bad) == 0 {
		return head, nil
	}
	var skipped []api.SkippedObject
	eff := *head
	eff.Servers = make(map[string]*api.Server, len(head.Servers))
	for n, s := range head.Servers {
		eff.Servers[n] = s
	}
	for _, n := range sortedBad(a.bad) {
		b := a.bad[n]
		s := head.Servers[n]
		if s == nil || s.Version != b.version || usesOf(head, s) != b.uses {
			delete(a.bad, n)
			continue
		}
		delete(eff.Servers, n)
		reason := b.reason
		if a.running != nil && !b.noFallback {
			if r := a.running.Servers[n]; r != nil && r.Version != b.version {
				eff.Servers[n] = r
				reason = fmt.Sprintf("%s; version %d keeps serving", reason, r.Version)
			}
		}
		skipped = append(skipped, api.SkippedObject{Kind: api.KindServer, Name: n, Reason: reason})
	}
	if len(skipped) == 0 {
		return head, nil
	}
	return &eff, skipped
}

func sortedBad(m map[string]badServer) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// usesOf spells the versions of the objects server s has nginx read files of: its
// certificate, its client CA bundle, and the CA bundles and client certificates of the
// backends its locations go to. nginx -t refuses a server for one of those as often as for
// the server itself (a key that does not match its certificate).
func usesOf(st *api.State, s *api.Server) string {
	var b strings.Builder
	cert := func(name string) {
		if c := st.Certificates[name]; c != nil {
			fmt.Fprintf(&b, "certificate %s@%d ", name, c.Version)
		}
	}
	ca := func(name string) {
		if c := st.CACertificates[name]; c != nil {
			fmt.Fprintf(&b, "ca %s@%d ", name, c.Version)
		}
	}
	if s.TLS != nil {
		cert(s.TLS.Certificate)
	}
	if s.ClientTLS != nil {
		ca(s.ClientTLS.CACertificate)
	}
	for _, l := range s.Locations {
		if be := st.Backends[l.Backend]; be != nil && be.UpstreamTLS != nil {
			ca(be.UpstreamTLS.CACertificate)
			cert(be.UpstreamTLS.ClientCertificate)
		}
	}
	return b.String()
}
