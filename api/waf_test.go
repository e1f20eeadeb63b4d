package api

import (
	"errors"
	"testing"
)

func TestWAFValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		waf     WAF
		wantErr string // the field named; "" for valid
	}{
		{"detect", WAF{Mode: WAFDetect}, ""},
		{"block with the core rules", WAF{Mode: WAFBlock, CoreRules: true, ParanoiaLevel: 4, ExcludeRules: []int{942100, 920350}, TransactionID: WAFIDRequest}, ""},
		{"off", WAF{Mode: WAFOff}, ""},
		{"no mode", WAF{}, "waf.mode"},
		{"engine spelling", WAF{Mode: "On"}, "waf.mode"},
		{"mode with a directive", WAF{Mode: "block\nInclude /etc/passwd"}, "waf.mode"},
		{"paranoia without the core rules", WAF{Mode: WAFBlock, ParanoiaLevel: 2}, "waf.paranoiaLevel"},
		{"paranoia too high", WAF{Mode: WAFBlock, CoreRules: true, ParanoiaLevel: 5}, "waf.paranoiaLevel"},
		{"rule id zero", WAF{Mode: WAFBlock, ExcludeRules: []int{0}}, "waf.excludeRules[0]"},
		{"rule id too large", WAF{Mode: WAFBlock, ExcludeRules: []int{1, MaxWAFRuleID + 1}}, "waf.excludeRules[1]"},
		{"rule listed twice", WAF{Mode: WAFBlock, ExcludeRules: []int{7, 7}}, "waf.excludeRules[1]"},
		{"nginx variable as id", WAF{Mode: WAFBlock, TransactionID: "$host"}, "waf.transactionID"},
	} {
		for _, where := range []string{"server", "location"} {
			s := &Server{Name: "s", Hostnames: []string{"s.test"}, Locations: []Location{{Path: "/", Backend: "web"}}}
			w := tc.waf
			if where == "server" {
				s.WAF = &w
			} else {
				s.Locations[0].WAF = &w
			}
			s.Normalize()
			err := s.Validate()
			want := tc.wantErr
			if want != "" && where == "location" {
				want = "locations[0]." + want
			}
			if want == "" {
				if err != nil {
					t.Errorf("%s on the %s: Validate = %v, want nil", tc.name, where, err)
				}
				continue
			}
			var e *Error
			if err == nil || !errors.As(err, &e) || e.Field != want {
				t.Errorf("%s on the %s: Validate = %v, want an error on %s", tc.name, where, err, want)
			}
		}
	}
}

// TestEffectiveWAF: a location's own policy wins over its server's; off opts out.
func TestEffectiveWAF(t *testing.T) {
	block, detect := &WAF{Mode: WAFBlock}, &WAF{Mode: WAFDetect}
	s := &Server{WAF: block, Locations: []Location{{Path: "/a"}, {Path: "/b", WAF: detect}, {Path: "/c", WAF: &WAF{Mode: WAFOff}}}}
	for i, want := range []*WAF{block, detect, nil} {
		if got := s.EffectiveWAF(&s.Locations[i]); got != want {
			t.Errorf("location %s: %+v, want %+v", s.Locations[i].Path, got, want)
		}
	}
	s.Normalize()
	w := &WAF{Mode: WAFBlock, CoreRules: true, ExcludeRules: []int{3, 1, 2}}
	w.normalize()
	if w.ParanoiaLevel != 1 || w.ExcludeRules[0] != 1 || w.ExcludeRules[2] != 3 {
		t.Errorf("normalize: %+v, want paranoia 1 and sorted exclusions", w)
	}
}
