package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseCIDR(t *testing.T) {
	good := map[string]string{
		"10.0.0.0/8": "10.0.0.0/8", "192.168.1.7": "192.168.1.7/32", "0.0.0.0/0": "0.0.0.0/0",
		"2001:db8::/32": "2001:db8::/32", "::1": "::1/128", "::/0": "::/0",
	}
	for in, want := range good {
		p, err := ParseCIDR(in)
		if err != nil || p.String() != want {
			t.Errorf("ParseCIDR(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	for _, in := range []string{"", " 10.0.0.0/8", "10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0",
		"fe80::1%eth0", "::ffff:10.0.0.1", "::ffff:10.0.0.0/104", "10.0.0.0/8;", "10.0.0.0/8 deny",
		"2001:db8::1/32", "example.com", "01.2.3.4"} {
		if _, err := ParseCIDR(in); err == nil {
			t.Errorf("ParseCIDR(%q) = nil error, want one", in)
		}
	}
}

func TestLocationAccessAndLimitsValidate(t *testing.T) {
	many := make([]string, MaxCIDRs+1)
	for i := range many {
		many[i] = fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)
	}
	for _, tc := range []struct {
		name  string
		loc   Location
		field string // "" for valid
	}{
		{"allow", Location{Access: &AccessPolicy{Allow: []string{"10.0.0.0/8", "::1"}}}, ""},
		{"empty access", Location{Access: &AccessPolicy{}}, "access"},
		{"bad allow", Location{Access: &AccessPolicy{Allow: []string{"10.0.0.0/8", "nope"}}}, "access.allow[1]"},
		{"twice", Location{Access: &AccessPolicy{Deny: []string{"::1", "::1/128"}}}, "access.deny[1]"},
		{"too many", Location{Access: &AccessPolicy{Allow: many}}, "access.allow"},
		{"max", Location{Access: &AccessPolicy{Allow: many[:MaxCIDRs]}}, ""},
		{"rps", Location{Limits: &LocationLimits{RPS: 5, Exempt: []string{"127.0.0.1"}}}, ""},
		{"empty limits", Location{Limits: &LocationLimits{BurstMultiplier: 3}}, "limits"},
		{"negative", Location{Limits: &LocationLimits{RPS: -1}}, "limits.rps"},
		{"status", Location{Limits: &LocationLimits{RPM: 5, Status: 302}}, "limits.status"},
		{"rate", Location{Limits: &LocationLimits{Rate: "100k", RateAfter: "1m"}}, ""},
		{"rate junk", Location{Limits: &LocationLimits{Rate: "100k; return 200"}}, "limits.rate"},
		{"after alone", Location{Limits: &LocationLimits{RPS: 1, RateAfter: "1m"}}, "limits.rateAfter"},
		{"bad exempt", Location{Limits: &LocationLimits{RPS: 1, Exempt: []string{"10.0.0.1/8"}}}, "limits.exempt[0]"},
	} {
		l := tc.loc
		l.Path, l.Backend = "/", "b"
		err := l.validate()
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v, want valid", tc.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != EInvalid || e.Field != tc.field {
			t.Errorf("%s: %v, want an invalid error naming %s", tc.name, err, tc.field)
		}
	}
}

func TestSettingsRealIP(t *testing.T) {
	s := DefaultSettings()
	s.RealIPHeader = "X-Real-IP"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "realIPHeader") {
		t.Errorf("a header without trusted proxies: %v, want an error", err)
	}
	s.RealIPFrom = []string{"127.0.0.1", "10.0.0.0/8"}
	if err := s.Validate(); err != nil {
		t.Errorf("valid real IP settings: %v", err)
	}
	s.RealIPHeader = "X-Real-IP\r\nX"
	if err := s.Validate(); err == nil {
		t.Errorf("a header name with CRLF was taken")
	}
}
