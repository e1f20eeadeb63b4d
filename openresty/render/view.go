package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// confView is what the template sees: every decision made, every value still raw so that
// the template quotes it at the point of use.
type confView struct {
	Options
	Paths      confPaths
	S          api.Settings
	Workers    string
	TLS        bool
	TLSPort    int
	HashBucket int
	Servers    []serverView
	// WWW are the www redirect blocks.
	WWW         []wwwView
	LuaPathFull string
	Upstream    string
	// Upstreams are the upstream blocks the locations pass to, one per protocol used (and
	// TLS policy, and retry to the same peer).
	Upstreams []upstreamBlock
	// RealIP is the trusted proxies and their header, nil without them.
	RealIP *realIPView
	// CatchAll says that one of Servers is the default server; without one, a block of
	// its own answers every Host no server names with 404. PlainHosts are the names of
	// the blocks that do not listen for HTTPS, which the catch-all refuses there.
	CatchAll   bool
	PlainHosts []string
	// HeaderAdds are the maps of the request headers locations add to.
	HeaderAdds []headerAdd
	// Cache says a location caches: the response cache is declared.
	Cache bool
	// Passthrough are the stream routes of TLS passthrough (policies). With any, a
	// router on TLSListen reads each connection's SNI: a passthrough name goes to its
	// backend, any other to the HTTPS listener on HTTPSSocket, with the client's address
	// in the PROXY protocol header. HTTPSListen is where the HTTPS servers listen.
	Passthrough []passthroughView
	HTTPSListen string
	HTTPSSocket string
	// LoadStream is the stream module to load, when passthrough or an h2c router needs it.
	LoadStream string
	// H2C are the routers of the plain ports where a block speaks gRPC (h2c.go), which
	// njs's module (LoadStreamJS) runs with the script H2CScript.
	H2C                     []h2cView
	LoadStreamJS, H2CScript string
	// Plain and PlainDefault are the listens of the blocks on the instance's own plain
	// port (the second as its default server): ProxyListen, or an h2c router's sockets.
	Plain, PlainDefault []listenView
	// BehindRouter says some http listener takes its connections from a stream router,
	// which names the client's address in the PROXY protocol header.
	BehindRouter bool
	// LoadModSecurity is the ModSecurity module to load, when a WAF policy needs it.
	LoadModSecurity string
	// Routes are the route tables of the blocks whose locations have conditions, as JSON
	// in pieces short enough for nginx's tokenizer (see route.go).
	Routes []string
	// RedirectPorts says a redirect's port depends on the request's scheme: the map of
	// $rp_redirect_port_suffix is declared.
	RedirectPorts bool
	// ForwardedRedirect says a block redirects plain HTTP to HTTPS with
	// useForwardedHeaders: the map of $rp_https_redirect is declared.
	ForwardedRedirect bool
	// PortDefaults are the sockets of servers on ports of their own that no catch-all
	// server holds, each with its listens (one, or an h2c router's two): a block answers
	// 404 there. HTTPSDefault says some block listens on
	// the instance's own HTTPS socket, where the 404 block then listens too.
	PortDefaults [][]listenView
	HTTPSDefault bool
}

// realIPView is the realip module's directives: From are CIDRs of api's grammar.
type realIPView struct {
	Header string
	From   []string
}

// newConfView settles every decision the template would otherwise have to make.
func newConfView(cfg api.Config, opts Options) (*confView, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	s := withDefaultSettings(cfg.Settings)
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	if opts.Dicts == (DictSizes{}) {
		opts.Dicts = sizeConfig(cfg)
	}
	l := Layout(opts.Prefix)
	paths := l.confPaths(opts.Workers())
	if opts.LogsToStdio {
		paths.ErrorLog, paths.AccessLog = "stderr", "/dev/stdout"
	}
	v := &confView{Options: opts, Paths: paths, S: s, Workers: "auto", HashBucket: 64, Upstream: upstreamName}
	if s.WorkerProcesses > 0 {
		v.Workers = fmt.Sprint(s.WorkerProcesses)
	}
	v.TLSPort, _ = listenPort(opts.TLSListen)
	v.LuaPathFull = l.LuaDir() + "/?.lua;"
	if opts.LuaPath != "" {
		v.LuaPathFull += opts.LuaPath + ";"
	}
	v.LuaPathFull += ";" // ";;" keeps the binary's default path
	if len(s.RealIPFrom) > 0 {
		v.RealIP = &realIPView{Header: s.RealIPHeader, From: s.RealIPFrom}
		if v.RealIP.Header == "" {
			v.RealIP.Header = "X-Forwarded-For"
		}
	}
	certs := map[string]bool{}
	for _, c := range cfg.Certificates {
		certs[c.Name] = true
	}
	proxyPort, _ := listenPort(opts.ProxyListen)
	servers := append([]api.Server(nil), cfg.Servers...)
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	for i := range servers {
		srv := &servers[i]
		srv.Normalize()
		if err := srv.Validate(); err != nil {
			return nil, &ServerError{srv.Name, err}
		}
		if srv.TLS != nil && !srv.TLS.DefaultCertificate && !certs[srv.TLS.Certificate] {
			return nil, &ServerError{srv.Name, fmt.Errorf("certificate %q is not in the config", srv.TLS.Certificate)}
		}
		if err := ownPorts(srv, opts, proxyPort, v.TLSPort); err != nil {
			return nil, &ServerError{srv.Name, err}
		}
		for _, h := range srv.Hostnames {
			for v.HashBucket < len(h)+32 {
				v.HashBucket *= 2
			}
		}
	}
	// Policies: the htpasswd files the locations' basic auth reads.
	files, err := HtpasswdFiles(opts.Workers(), cfg.Htpasswds)
	if err != nil {
		return nil, err
	}
	// Policies: how each backend that is not plain HTTP is spoken to.
	ups, err := upstreamsOf(l, cfg)
	if err != nil {
		return nil, err
	}
	blocks := map[string]bool{upstreamName: true}
	// Policies: the CA files of client certificate verification.
	cas, err := caFiles(l, cfg.CACertificates)
	if err != nil {
		return nil, err
	}
	caFile := func(name string) (string, bool) { f, ok := cas[name]; return f, ok }
	defs := proxyHeaders(s)
	reached := map[string]bool{}
	for _, g := range groupByHostnames(servers) {
		gdefs := defs
		if !contains(g.hostnames, api.CatchAllHostname) { // see markCatchAll
			gdefs = namedServerHeaders(defs)
		}
		sv, err := newServerView(g.servers, g.hostnames, ups, gdefs)
		if err != nil {
			return nil, &ServerError{g.servers[0].Name, err}
		}
		markCatchAll(&sv)
		for _, s := range g.servers {
			reached[s.Name] = reached[s.Name] || sv.reachable()
		}
		if err := resolveAuth(&sv, files, len(v.Servers)); err != nil {
			return nil, &ServerError{sv.Name, err}
		}
		for _, x := range sv.AuthLocations {
			addressAuth(x, opts.AuthAddrs)
		}
		resolveErrors(&sv, ups, gdefs) // policies
		if err := resolveClientTLS(&sv, caFile); err != nil {
			return nil, &ServerError{sv.Name, err}
		}
		v.TLS = v.TLS || sv.TLS != ""
		v.headerAdds(&sv)
		for _, l := range sv.Locations {
			v.Cache = v.Cache || l.Cache != nil
		}
		v.Servers = append(v.Servers, sv)
		for _, l := range sv.Locations {
			blocks[l.Up.Block] = true
		}
		for _, e := range sv.ErrorLocations { // policies
			blocks[e.Up.Up.Block] = true
		}
		for _, m := range sv.MirrorLocations {
			blocks[m.Up.Up.Block] = true
		}
	}
	if err := v.routeTables(); err != nil {
		return nil, err
	}
	v.Upstreams = sortedBlocks(blocks)
	v.WWW = wwwRedirects(servers)
	defaultCertFiles(v)
	v.catchAll()
	if err := v.passthrough(opts, servers, cfg); err != nil {
		return nil, err
	}
	v.resolveWAF(opts) // policies
	if err := v.h2cRouters(opts); err != nil {
		return nil, err
	}
	v.redirectPorts()
	for _, sv := range v.Servers {
		v.ForwardedRedirect = v.ForwardedRedirect || sv.Redirect && v.S.UseForwardedHeaders
	}
	if err := v.ownListens(); err != nil {
		return nil, err
	}
	v.h2cListens()
	if err := checkReachable(v, servers, reached); err != nil {
		return nil, err
	}
	return v, nil
}

// confPaths are the absolute paths nginx.conf names.
type confPaths struct {
	Pid, Lock, ErrorLog, AccessLog, Socket, DefaultCert, DefaultKey string
	ClientBody, Proxy, FastCGI, UWSGI, SCGI                         string
	// Cache is the response cache's directory.
	Cache string
}

// The temporary files and the logs live in the worker directory w, which the workers can
// reach: they open the logs again when nginx is told to (USR1, after a rotation), and a
// log they cannot open again is written on, rotated away, without end.
func (l Layout) confPaths(w Layout) confPaths {
	return confPaths{Pid: l.PidFile(), Lock: l.LockFile(), ErrorLog: w.ErrorLog(), AccessLog: w.AccessLog(),
		Socket: "unix:" + l.Socket(), DefaultCert: l.DefaultCert(), DefaultKey: l.DefaultKey(),
		ClientBody: w.Tmp("client_body"), Proxy: w.Tmp("proxy"), FastCGI: w.Tmp("fastcgi"),
		UWSGI: w.Tmp("uwsgi"), SCGI: w.Tmp("scgi"), Cache: w.Tmp("cache")}
}

// withDefaultSettings fills zero fields from api.DefaultSettings, as api documents. Booleans
// are taken as they are: false is a choice, not an absence.
func withDefaultSettings(s api.Settings) api.Settings {
	d := api.DefaultSettings()
	str := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	num := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	num(&s.WorkerConnections, d.WorkerConnections)
	num(&s.KeepaliveRequests, d.KeepaliveRequests)
	num(&s.UpstreamKeepalive, d.UpstreamKeepalive)
	num(&s.RollbackMinRequests, d.RollbackMinRequests)
	str(&s.KeepaliveTimeout, d.KeepaliveTimeout)
	str(&s.ClientMaxBodySize, d.ClientMaxBodySize)
	str(&s.ProxyConnectTimeout, d.ProxyConnectTimeout)
	str(&s.ProxyReadTimeout, d.ProxyReadTimeout)
	str(&s.ProxySendTimeout, d.ProxySendTimeout)
	str(&s.LogFormat, d.LogFormat)
	str(&s.RollbackWindow, d.RollbackWindow)
	str(&s.MinReloadInterval, d.MinReloadInterval)
	str(&s.CacheZoneSize, api.DefaultCacheZoneSize)
	str(&s.CacheMaxSize, api.DefaultCacheMaxSize)
	if len(s.GzipTypes) == 0 {
		s.GzipTypes = d.GzipTypes
	}
	return s
}

// serverGroup is a set of hostnames claimed by the same api servers. nginx gives a
// hostname to one server block only, while api lets servers share a hostname with
// different paths (as Ingresses do), so each distinct set of owners becomes one block.
// Servers on different ports of their own have blocks of their own.
// In the common case every api.Server is its own group.
type serverGroup struct {
	servers   []*api.Server
	hostnames []string
}

func groupByHostnames(servers []api.Server) []serverGroup {
	owners := map[string][]*api.Server{}
	for i := range servers {
		for _, h := range servers[i].Hostnames {
			owners[servers[i].ClaimHost(h)] = append(owners[servers[i].ClaimHost(h)], &servers[i])
		}
	}
	index := map[string]int{}
	var groups []serverGroup
	for i := range servers {
		for _, h := range servers[i].Hostnames {
			own := owners[servers[i].ClaimHost(h)]
			names := make([]string, len(own))
			for j, s := range own {
				names[j] = s.Name
			}
			key := strings.Join(names, " ")
			n, ok := index[key]
			if !ok {
				n = len(groups)
				index[key] = n
				groups = append(groups, serverGroup{servers: own})
			}
			if !contains(groups[n].hostnames, h) {
				groups[n].hostnames = append(groups[n].hostnames, h)
			}
		}
	}
	return groups
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
