package nginx

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

func TestRefusedAddress(t *testing.T) {
	tests := []struct {
		addr string
		want string
	}{
		{"10.0.0.12", ""},
		{"203.0.113.7", ""},
		{"2001:db8::1", ""},
		{"127.0.0.1", "loopback"},
		{"127.1.2.3", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"169.254.169.254", "a metadata address"},
		{"fd00:ec2::254", "a metadata address"},
		{"100.100.100.200", "a metadata address"},
		{"169.254.10.1", "link-local"},
		{"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"ff02::1", "multicast"},
	}
	for _, tc := range tests {
		if got := refusedAddress(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("refusedAddress(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// fakeResolver answers from a table; a missing name does not resolve.
type fakeResolver map[string][]string

func (f fakeResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func TestResolveSkipsWhatCannotApplyAndCaps(t *testing.T) {
	var many []string
	for i := 40; i > 0; i-- {
		many = append(many, fmt.Sprintf("10.1.0.%d", i))
	}
	r := fakeResolver{
		"svc.example":  {"10.0.0.2", "127.0.0.1", "10.0.0.1"},
		"meta.example": {"169.254.169.254"},
		"many.example": many,
	}
	ep := func(a string) []api.Endpoint { return []api.Endpoint{{Address: a, Port: 80, Weight: 1}} }
	in := []api.Backend{
		{Name: "ip", Endpoints: ep("127.0.0.1")}, // a literal address is the writer's choice
		{Name: "svc", Endpoints: ep("svc.example")},
		{Name: "ghost", Endpoints: ep("ghost.invalid")},
		{Name: "meta", Endpoints: ep("meta.example")},
		{Name: "many", Endpoints: ep("many.example")},
	}
	out, skipped := resolve(context.Background(), r, in)
	got := map[string][]api.Endpoint{}
	for _, b := range out {
		got[b.Name] = b.Endpoints
	}
	if len(got["ip"]) != 1 || got["ip"][0].Address != "127.0.0.1" {
		t.Errorf("ip = %v, want the literal address kept", got["ip"])
	}
	if e := got["svc"]; len(e) != 2 || e[0].Address != "10.0.0.1" || e[1].Address != "10.0.0.2" {
		t.Errorf("svc = %v, want 10.0.0.1 and 10.0.0.2 without the loopback address", e)
	}
	if e := got["many"]; len(e) != render.MaxAddressesPerName || e[0].Address != "10.1.0.1" {
		t.Errorf("many = %d endpoints from %v, want the lowest %d", len(e), e, render.MaxAddressesPerName)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Name] = s.Reason
	}
	if len(skipped) != 2 || !strings.Contains(reasons["ghost"], "ghost.invalid") || !strings.Contains(reasons["meta"], "metadata") {
		t.Errorf("skipped = %v, want ghost (does not resolve) and meta (metadata address)", skipped)
	}
	if _, ok := got["ghost"]; ok {
		t.Error("ghost was pushed")
	}
}
