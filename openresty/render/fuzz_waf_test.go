package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/restyplane/restyplane/api"
)

// wafInput is every user value of a WAF policy: the mode, the Core Rule Set and its
// paranoia level, two excluded rule ids and the transaction id, on the server or the
// location. FuzzRenderWAF extends FuzzRender's proof to them.
type wafInput struct {
	mode, transactionID string
	coreRules, server   bool
	paranoia, a, b      int
}

// benign maps the input to placeholders that make the same decisions in the renderer:
// the mode, the Core Rule Set and the transaction id are enumerations it branches on.
func (in wafInput) benign() wafInput {
	b := wafInput{mode: in.mode, transactionID: in.transactionID, coreRules: in.coreRules, server: in.server, a: 1, b: 2}
	if in.paranoia != 0 {
		b.paranoia = 1
	}
	return b
}

func (in wafInput) policy() *api.WAF {
	return &api.WAF{Mode: in.mode, CoreRules: in.coreRules, ParanoiaLevel: in.paranoia, ExcludeRules: []int{in.a, in.b}, TransactionID: in.transactionID}
}

func (in wafInput) config() api.Config {
	srv := api.Server{Name: "s", Hostnames: []string{"h.example"},
		Locations: []api.Location{{Path: "/a", Match: api.MatchPrefix, Backend: "b"}, {Path: "/", Match: api.MatchPrefix, Backend: "b"}}}
	if in.server {
		srv.WAF = in.policy()
	} else {
		srv.Locations[0].WAF = in.policy()
	}
	return api.Config{Settings: api.DefaultSettings(), Servers: []api.Server{srv}, Backends: []api.Backend{{Name: "b"}}}
}

// checkWAFNoInjection fails if an accepted WAF policy changes the structure of nginx.conf
// or its rules do not come back from nginx's tokenizer as the lines the policy means.
func checkWAFNoInjection(t *testing.T, in wafInput) {
	cfg := in.config()
	if !valid(cfg) {
		return
	}
	got, real := sameStructure(t, in, cfg, in.benign().config())
	if in.mode == api.WAFOff {
		if strings.Contains(real, "modsecurity") {
			t.Fatalf("%+v: a policy that is off renders ModSecurity", in)
		}
		return
	}
	engine := "DetectionOnly"
	if in.mode == api.WAFBlock {
		engine = "On"
	}
	lo, hi := min(in.a, in.b), max(in.a, in.b)
	var rules []string
	for _, s := range got {
		if s.name == "modsecurity_rules" && len(s.args) == 1 {
			rules = append(rules, s.args[0])
		}
	}
	if len(rules) == 0 {
		t.Fatalf("%+v: no modsecurity_rules:\n%s", in, real)
	}
	for _, r := range rules {
		lines := strings.Split(r, "\n")
		if lines[0] != "Include /etc/nginx/modsecurity.conf" || lines[1] != "SecRuleEngine "+engine ||
			lines[len(lines)-1] != fmt.Sprintf("SecRuleRemoveById %d %d", lo, hi) {
			t.Fatalf("%+v: the rules do not come back from nginx's tokenizer as the policy means:\n%q", in, lines)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "Include ") && !cmp.Equal(l, "Include /etc/nginx/modsecurity.conf") &&
				l != "Include /etc/modsecurity/crs/crs-setup.conf" && l != "Include /usr/share/modsecurity-crs/rules/*.conf" {
				t.Fatalf("%+v: the rules include %q", in, l)
			}
		}
	}
}

var wafSeeds = []wafInput{
	{"block", "request_id", true, true, 2, 942100, 920350},
	{"detect", "", false, false, 0, 1, 99999999},
	{"off", "client_request_id", true, false, 4, 3, 4},
	{"block\nInclude /etc/passwd", "$host", true, true, 5, 0, -1},
	{`detect"; load_module x; #`, "request_id;", false, true, 1, 7, 7},
}

func FuzzRenderWAF(f *testing.F) {
	for _, s := range wafSeeds {
		f.Add(s.mode, s.transactionID, s.coreRules, s.server, s.paranoia, s.a, s.b)
	}
	f.Fuzz(func(t *testing.T, mode, transactionID string, coreRules, server bool, paranoia, a, b int) {
		checkWAFNoInjection(t, wafInput{mode, transactionID, coreRules, server, paranoia, a, b})
	})
}

// TestRenderWAFAddsNoDirective is FuzzRenderWAF's bounded sibling for every `go test`.
func TestRenderWAFAddsNoDirective(t *testing.T) {
	h := newHostile(17)
	modes := []string{"off", "detect", "block"}
	ids := []string{"", "request_id", "client_request_id"}
	soupTest[wafInput]{inputs: 2000, least: 300, seeds: wafSeeds, check: checkWAFNoInjection, next: func(int) wafInput {
		in := wafSeeds[0]
		in.mode = modes[h.Intn(len(modes))]
		in.transactionID = ids[h.Intn(len(ids))]
		in.coreRules, in.server = h.Intn(2) == 0, h.Intn(2) == 0
		in.paranoia = h.Intn(6) - 1
		switch h.Intn(4) {
		case 0:
			in.mode = h.word("b")
		case 1:
			in.transactionID = h.word("r")
		case 2:
			in.a = h.Intn(200000000) - 100
		case 3:
			in.b = h.Intn(20)
		}
		return in
	}}.run(t)
}
