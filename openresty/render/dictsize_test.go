package render_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

func TestSizeDictsHasAFloorStepsAndHeadroom(t *testing.T) {
	empty := render.SizeDicts(nil, nil)
	if empty.Backends < 1 || empty.Certificates < 1 {
		t.Fatalf("empty state: %+v, want a floor of at least 1 MiB", empty)
	}
	backends := map[string]*api.Backend{}
	var size []int
	for i := 0; i < 4000; i++ {
		name := fmt.Sprintf("backend-%04d", i)
		b := &api.Backend{Name: name}
		for p := 0; p < 10; p++ {
			b.Endpoints = append(b.Endpoints, api.Endpoint{Address: "10.0.0.1", Port: 8000 + p})
		}
		backends[name] = b
		if i%20 == 0 {
			size = append(size, render.SizeDicts(backends, nil).Backends)
		}
	}
	if size[0] != empty.Backends { // one backend
		t.Errorf("one backend: %d MiB, want the floor %d", size[0], empty.Backends)
	}
	steps := 0
	for i := 1; i < len(size); i++ {
		if size[i] < size[i-1] {
			t.Fatalf("size shrank from %d to %d MiB by backend %d", size[i-1], size[i], 20*i)
		}
		if size[i] != size[i-1] {
			steps++
			if size[i] != 2*size[i-1] {
				t.Errorf("size went from %d to %d MiB: want power-of-two steps", size[i-1], size[i])
			}
		}
	}
	if steps == 0 || steps > 6 {
		t.Errorf("%d size steps over 4000 backends: want a few", steps)
	}
	// Headroom: the dict is at least four times the JSON the Lua side stores.
	encoded := 0
	for _, b := range backends {
		j, _ := json.Marshal(b)
		encoded += len(j)
	}
	if got := size[len(size)-1] << 20; got < 4*encoded {
		t.Errorf("dict of %d bytes for %d bytes of JSON: want at least 4 times", got, encoded)
	}
	// Certificates are sized apart from backends, from their PEM.
	certs := map[string]*api.Certificate{"big": {Name: "big", Cert: strings.Repeat("c", 8<<20), Key: "k"}}
	if got := render.SizeDicts(backends, certs); got.Certificates < 32 || got.Backends != size[len(size)-1] {
		t.Errorf("8 MiB of PEM: %+v, want certificates at least 32 MiB and backends unchanged", got)
	}
	// Same state, same sizes, and the same rendered conf.
	cfg := api.Config{Settings: api.DefaultSettings(), Certificates: []api.Certificate{*certs["big"]}}
	o := render.Options{Prefix: "/tmp/rp", ProxyListen: "127.0.0.1:80", TLSListen: "127.0.0.1:443"}
	a, err := render.Conf(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := render.Conf(cfg, o)
	if string(a) != string(b) || !strings.Contains(string(a), fmt.Sprintf("lua_shared_dict restyplane_certificates %dm;", got(render.SizeDicts(nil, certs)))) {
		t.Errorf("conf is not deterministic or does not name the certificates' size")
	}
}

func got(d render.DictSizes) int { return d.Certificates }

// TestSizeDictsCountsSplits: the split of a Gateway API rule's backend is stored with it
// (the Lua side stores a backend's whole JSON), and counts as its endpoints do.
func TestSizeDictsCountsSplits(t *testing.T) {
	backends := map[string]*api.Backend{}
	encoded := 0
	for i := 0; i < 2000; i++ {
		name := fmt.Sprintf("k8s.httproute.shop.web-%04d.rule0", i)
		b := &api.Backend{Name: name, Endpoints: []api.Endpoint{{Address: "10.0.0.1", Port: 8080}, {Address: "10.0.0.2", Port: 8080}},
			Split: &api.Split{UnresolvedWeight: api.MaxSplitWeight}}
		for p := 0; p < api.MaxSplitParts; p++ {
			b.Split.Parts = append(b.Split.Parts, api.SplitPart{Namespace: fmt.Sprintf("n%062d", p), Service: fmt.Sprintf("s%062d", p),
				Port: 65535, Weight: api.MaxSplitWeight})
		}
		backends[name] = b
		j, _ := json.Marshal(b)
		encoded += len(j)
	}
	if got := render.SizeDicts(backends, nil).Backends << 20; got < 4*encoded {
		t.Errorf("dict of %d bytes for %d bytes of JSON: want at least 4 times", got, encoded)
	}
}
