package reconciler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// wafGroup: the web application firewall (policies), ModSecurity with Debian's
// recommended configuration and the OWASP Core Rule Set. As in ingress-nginx,
// enable-modsecurity only detects until modsecurity-snippet sets "SecRuleEngine On".
var wafGroup = annotationGroup{name: "waf", scope: scopeLocation, parse: parseWAF, rules: map[string]annotationRule{
	"enable-modsecurity":      honoured("true inspects the Ingress's requests with ModSecurity and Debian's recommended configuration, logging what it finds (detect) unless modsecurity-snippet sets SecRuleEngine On (block, 403)"),
	"enable-owasp-core-rules": honoured("true adds the OWASP Core Rule Set (Debian's modsecurity-crs), and inspects even without enable-modsecurity"),
	"modsecurity-transaction-id": {verdict: api.VerdictHonoured, why: "$request_id (nginx's request id) or $http_x_request_id (the client's X-Request-ID, else nginx's)",
		refuseValue: func(v string) string {
			if _, ok := wafTransactionIDs[strings.TrimSpace(v)]; !ok {
				return "only $request_id or $http_x_request_id name a request; other nginx text is not accepted"
			}
			return ""
		}},
	"modsecurity-snippet": {verdict: api.VerdictHonoured, why: "translated when it only sets the engine (SecRuleEngine On, DetectionOnly or Off), excludes rules (SecRuleRemoveById with rule ids) or keeps request bodies inspected (SecRequestBodyAccess On); refused naming any other directive",
		refuseValue: func(v string) string {
			if _, err := translateModSecuritySnippet(v); err != nil {
				return err.Error()
			}
			return ""
		}},
}}

// wafTransactionIDs maps modsecurity-transaction-id's values to the policy's.
var wafTransactionIDs = map[string]string{"$request_id": api.WAFIDRequest, "$http_x_request_id": api.WAFIDClientRequest}

// parseWAF reads the WAF annotations into the policy of the Ingress's locations; none
// when they ask for no inspection.
func parseWAF(get func(string) (string, bool), a *annotations) error {
	on := func(name string) (bool, error) {
		v, ok := get(name)
		if !ok {
			return false, nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("annotation %s: %q is not true or false", name, printableValue(v))
		}
		return b, nil
	}
	enabled, err := on("enable-modsecurity")
	if err != nil {
		return err
	}
	crs, err := on("enable-owasp-core-rules")
	if err != nil {
		return err
	}
	w := &api.WAF{Mode: api.WAFDetect, CoreRules: crs}
	if v, ok := get("modsecurity-transaction-id"); ok {
		if w.TransactionID, ok = wafTransactionIDs[v]; !ok {
			return fmt.Errorf("annotation modsecurity-transaction-id: %q is not $request_id or $http_x_request_id", printableValue(v))
		}
	}
	snippet, hasSnippet := get("modsecurity-snippet")
	if hasSnippet {
		t, err := translateModSecuritySnippet(snippet)
		if err != nil {
			return fmt.Errorf("%w: modsecurity-snippet: %v", errRefusedAnnotation, err)
		}
		if t.mode != "" {
			w.Mode = t.mode
		}
		w.ExcludeRules = t.exclude
	}
	if !enabled && !crs && (!hasSnippet || w.Mode == api.WAFDetect && len(w.ExcludeRules) == 0) {
		return nil // nothing asks for inspection
	}
	// The same checks as a REST location's, with the annotations' names.
	probe := api.Server{Name: "x", Hostnames: []string{"x"}, WAF: w}
	probe.Normalize()
	if err := probe.Validate(); err != nil {
		return fmt.Errorf("modsecurity annotations: %w", err)
	}
	if w.Mode == api.WAFOff {
		w = &api.WAF{Mode: api.WAFOff} // the engine is off: nothing else applies
	}
	a.waf = w
	return nil
}

// modSecuritySnippet is what a modsecurity-snippet says in typed terms.
type modSecuritySnippet struct {
	mode    string // "" when it does not set the engine
	exclude []int
}

// translateModSecuritySnippet reads a modsecurity-snippet line by line: SecRuleEngine
// becomes the mode, SecRuleRemoveById the excluded rule ids, SecRequestBodyAccess On is
// what the policy does already; comments and blank lines are skipped. Any other line is
// refused, naming its directive: rules, includes and logs are never taken as text.
func translateModSecuritySnippet(s string) (modSecuritySnippet, error) {
	var out modSecuritySnippet
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		switch {
		case strings.EqualFold(f[0], "SecRuleEngine") && len(f) == 2:
			switch strings.ToLower(f[1]) {
			case "on":
				out.mode = api.WAFBlock
			case "detectiononly":
				out.mode = api.WAFDetect
			case "off":
				out.mode = api.WAFOff
			default:
				return out, fmt.Errorf("SecRuleEngine %q: want On, DetectionOnly or Off", printableValue(f[1]))
			}
		case strings.EqualFold(f[0], "SecRuleRemoveById") && len(f) > 1:
			for _, id := range f[1:] {
				n, err := strconv.Atoi(id)
				if err != nil || n < 1 || n > api.MaxWAFRuleID {
					return out, fmt.Errorf("SecRuleRemoveById %q: only single rule ids 1-%d are translated", printableValue(id), api.MaxWAFRuleID)
				}
				out.exclude = append(out.exclude, n)
			}
		case strings.EqualFold(f[0], "SecRequestBodyAccess") && len(f) == 2 && strings.EqualFold(f[1], "on"):
		default:
			return out, fmt.Errorf("directive %s has no typed equivalent (only SecRuleEngine, SecRuleRemoveById and SecRequestBodyAccess On are translated)", printableValue(f[0]))
		}
	}
	return out, nil
}
