package api

import "testing"

// TestAffinityValidates: each cookie attribute passes its own strict grammar, and the
// error names the field under affinity.
func TestAffinityValidates(t *testing.T) {
	for _, c := range []struct {
		name  string
		a     Affinity
		field string // "" when valid
	}{
		{"cookie only", Affinity{Cookie: "route"}, ""},
		{"everything", Affinity{Cookie: "route", Mode: AffinityBalanced, Path: "/shop", Domain: "shop.example.com",
			SameSite: SameSiteNone, ConditionalSameSiteNone: true, Expires: 172800, MaxAge: 3600, Secure: true, ChangeOnFailure: true}, ""},
		{"persistent", Affinity{Cookie: "route", Mode: AffinityPersistent}, ""},
		{"mode sticky", Affinity{Cookie: "route", Mode: "sticky"}, "affinity.mode"},
		{"cookie with space", Affinity{Cookie: "a b"}, "affinity.cookie"},
		{"samesite Sometimes", Affinity{Cookie: "c", SameSite: "Sometimes"}, "affinity.sameSite"},
		{"samesite lowercase", Affinity{Cookie: "c", SameSite: "lax"}, "affinity.sameSite"},
		{"conditional without None", Affinity{Cookie: "c", SameSite: SameSiteLax, ConditionalSameSiteNone: true}, "affinity.conditionalSameSiteNone"},
		{"path with space", Affinity{Cookie: "c", Path: "/a b"}, "affinity.path"},
		{"path with semicolon", Affinity{Cookie: "c", Path: "/a;Domain=evil.com"}, "affinity.path"},
		{"path relative", Affinity{Cookie: "c", Path: "shop"}, "affinity.path"},
		{"path with variable", Affinity{Cookie: "c", Path: "/$uri"}, "affinity.path"},
		{"domain with dollar", Affinity{Cookie: "c", Domain: "$host"}, "affinity.domain"},
		{"domain wildcard", Affinity{Cookie: "c", Domain: "*.example.com"}, "affinity.domain"},
		{"domain leading dot", Affinity{Cookie: "c", Domain: ".example.com"}, "affinity.domain"},
		{"domain with semicolon", Affinity{Cookie: "c", Domain: "a.com;Secure"}, "affinity.domain"},
		{"domain uppercase", Affinity{Cookie: "c", Domain: "Example.com"}, "affinity.domain"},
		{"expires negative", Affinity{Cookie: "c", Expires: -1}, "affinity.expires"},
		{"max-age too large", Affinity{Cookie: "c", MaxAge: MaxCookieSeconds + 1}, "affinity.maxAge"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := c.a
			b := Backend{Name: "web", Endpoints: []Endpoint{{Address: "10.0.0.1", Port: 80}}, Affinity: &a}
			err := b.Validate()
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case c.field != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error on %s", c.field)
			case c.field != "":
				if e, ok := err.(*Error); !ok || e.Field != c.field {
					t.Fatalf("Validate() = %v, want the field %s", err, c.field)
				}
			}
		})
	}
}

// TestAffinityNormalizes: an empty mode is persistent and an empty path is "/", so that
// the same intent is the same bytes in the history.
func TestAffinityNormalizes(t *testing.T) {
	b := Backend{Name: "web", Affinity: &Affinity{Cookie: "route"}}
	b.Normalize()
	if got, want := *b.Affinity, (Affinity{Cookie: "route", Mode: AffinityPersistent, Path: "/"}); got != want {
		t.Fatalf("normalized affinity = %+v, want %+v", got, want)
	}
}
