package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// withUpstream sets how a location speaks to its backend (policies): the module
// and scheme of its protocol, and the Host and X-Forwarded-Prefix headers it sends.
func withUpstream(v *locationView, l *api.Location, u upstreamView) {
	if u.Block == "" {
		u = upstreamView{Scheme: api.ProtocolHTTP, Block: upstreamName}
	}
	v.Mod = "proxy"
	if u.GRPC {
		v.Mod = "grpc"
	}
	if u.TLS && u.Name == "" {
		// Verify and send as SNI the name the upstream is asked for: upstreamHost, or
		// (written by the template as $host) the request's host.
		u.Name = l.UpstreamHost
	}
	if u.TLS {
		u.Block += "_" + tlsPolicyKey(u)
	}
	if l.Retry != nil && l.Retry.SamePeer {
		u.Block += againSuffix
	}
	v.Up = u
	var extra []api.Header
	if l.UpstreamHost != "" {
		extra = append(extra, api.Header{Name: "Host", Value: l.UpstreamHost})
	}
	if l.ForwardedPrefix != "" {
		extra = append(extra, api.Header{Name: "X-Forwarded-Prefix", Value: l.ForwardedPrefix})
	}
	if len(extra) > 0 {
		// A new slice: l.SetHeaders belongs to the config.
		v.Headers = append(append([]api.Header(nil), l.SetHeaders...), extra...)
		v.DefaultHeaders = headersWithout(v.DefaultHeaders, v.Headers)
	}
	if u.GRPC {
		// HTTP/2 has no connection upgrade, and forbids the Connection header.
		var hs []defaultHeader
		for _, h := range v.DefaultHeaders {
			if h.Name != "Upgrade" && h.Name != "Connection" {
				hs = append(hs, h)
			}
		}
		v.DefaultHeaders = hs
	}
	v.Pass = u.Scheme + "://" + u.Block
}

// rootURI puts the root location's URI part into its *_pass, or, for gRPC, whose
// grpc_pass takes no URI, into a rewrite of what follows the "/".
func rootURI(v *locationView) {
	if v.URI == "" {
		return
	}
	if v.Mod == "grpc" {
		v.Rewrite = &rewriteView{RestRe: "(?s)^/(.*)", RestTo: v.URI, Exact: v.URI}
		v.URI = ""
		return
	}
	v.Pass += v.URI
}

// tlsPolicyKey tells TLS policies apart in the name of their upstream block. nginx checks
// an upstream's certificate only in the handshake and then keeps the connection for any
// request to the same address through the same block: a connection verified for one CA
// and name, or made with one client certificate, must not serve a location whose policy
// differs (or that verifies nothing).
func tlsPolicyKey(u upstreamView) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%t|%t|%s|%s|%s|%s", u.Verify, u.SNI, u.Trusted, u.Cert, u.Key, u.Name)))
	return hex.EncodeToString(sum[:6])
}

// againSuffix ends the name of the upstream block of locations whose retry policy lets
// a retry go to a peer already tried (samePeer): its balancer is told so as an argument,
// so that no other request pays a variable read to learn it.
const againSuffix = "_again"

// upstreamBlock is one upstream block: its name, and whether its balancer lets a retry
// go to a peer already tried.
type upstreamBlock struct {
	Name  string
	Again bool
}

func sortedBlocks(m map[string]bool) []upstreamBlock {
	out := make([]upstreamBlock, 0, len(m))
	for b := range m {
		out = append(out, upstreamBlock{Name: b, Again: strings.HasSuffix(b, againSuffix)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
