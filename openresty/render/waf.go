package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// The rule files a WAF loads: Debian's own, at its packages' paths. Nothing else is ever
// loaded, and no rule text comes from a user: the policy's mode, paranoia level and rule
// ids are written here from typed values.
const (
	// wafBase is libnginx-mod-http-modsecurity's recommended configuration.
	wafBase = "/etc/nginx/modsecurity.conf"
	// crsSetup and crsRules are modsecurity-crs's setup and rules.
	crsSetup = "/etc/modsecurity/crs/crs-setup.conf"
	crsRules = "/usr/share/modsecurity-crs/rules/*.conf"
)

// wafView is a location's web application firewall: Rules are the lines of its one
// modsecurity_rules directive (one directive, since ModSecurity merges the Core Rule
// Set's skip markers wrongly across several), TransactionID the nginx variable, from a
// fixed table, that names each request in ModSecurity's log.
type wafView struct {
	policy        *api.WAF
	Rules         []string
	TransactionID string
}

// wafTransactionIDs are the variables a policy's transactionID may name.
var wafTransactionIDs = map[string]string{
	api.WAFIDRequest:       "$request_id",
	api.WAFIDClientRequest: "$req_id",
}

// newWAFView carries the policy that applies to a location; its rules are written by
// resolveWAF, which knows where the audit log goes.
func newWAFView(w *api.WAF) *wafView {
	if w == nil {
		return nil
	}
	return &wafView{policy: w, TransactionID: wafTransactionIDs[w.TransactionID]}
}

// resolveWAF writes every WAF location's rules, with audit as ModSecurity's audit log,
// and loads the module when a location needs it.
func (v *confView) resolveWAF(opts Options) {
	audit := Layout(opts.Prefix).WAFAuditLog()
	if opts.LogsToStdio {
		audit = "/dev/stderr"
	}
	for i := range v.Servers {
		for j := range v.Servers[i].Locations {
			if w := v.Servers[i].Locations[j].WAF; w != nil {
				w.Rules = wafRules(w.policy, audit)
				v.LoadModSecurity = opts.ModSecurityModule
			}
		}
	}
}

// wafRules are the lines of a policy's modsecurity_rules: Debian's recommended
// configuration, the mode, an audit log of what the rules found (the log a detect
// policy is read in), and the Core Rule Set at its paranoia level, less the excluded
// rules. A body past the base configuration's limit is inspected in part, never
// refused: client_max_body_size decides what is too large.
func wafRules(w *api.WAF, audit string) []string {
	engine := "DetectionOnly"
	if w.Mode == api.WAFBlock {
		engine = "On"
	}
	lines := []string{
		"Include " + wafBase,
		"SecRuleEngine " + engine,
		"SecRequestBodyLimitAction ProcessPartial",
		"SecResponseBodyAccess Off",
		"SecAuditEngine RelevantOnly",
		"SecAuditLogParts ABHZ",
		"SecAuditLogType Serial",
		"SecAuditLog " + audit,
	}
	if w.CoreRules {
		level := max(w.ParanoiaLevel, 1)
		lines = append(lines,
			fmt.Sprintf(`SecAction "id:900000,phase:1,nolog,pass,t:none,setvar:tx.paranoia_level=%d"`, level),
			"Include "+crsSetup,
			"Include "+crsRules)
	}
	if len(w.ExcludeRules) > 0 {
		ids := make([]string, len(w.ExcludeRules))
		for i, id := range w.ExcludeRules {
			ids[i] = strconv.Itoa(id)
		}
		lines = append(lines, "SecRuleRemoveById "+strings.Join(ids, " "))
	}
	return lines
}

// wafQuote writes the rules as one double-quoted nginx token whose lines nginx's
// tokenizer joins with the newlines ModSecurity reads them by ("\n" inside quotes).
func wafQuote(lines []string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for i, l := range lines {
		for j := 0; j < len(l); j++ {
			if c := l[j]; c < 0x20 || c == 0x7f || c == '\\' || c == '$' {
				return "", fmt.Errorf("waf rule line %q holds a control character, '\\' or '$'", l)
			}
		}
		if i > 0 {
			b.WriteString(`\n`)
		}
		b.WriteString(strings.ReplaceAll(l, `"`, `\"`))
	}
	b.WriteByte('"')
	return b.String(), nil
}
