package e2e

import (
	"fmt"
	"regexp"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// redirectOf is where a probe of path is redirected when the Ingress's rewrite-target is
// a URL: nginx's rewrite answers such a target with a 302 there, its $1-$9 the groups of
// the path's regex, published (anchored at the path's start, as ingress-nginx writes it);
// "" for any other Ingress.
func redirectOf(ing *networkingv1.Ingress, published, path string) string {
	target, _ := annotation(ing, "rewrite-target")
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		return ""
	}
	re, err := regexp.Compile("^" + strings.TrimPrefix(published, "^"))
	if err != nil {
		return ""
	}
	groups := re.FindStringSubmatch(path)
	return regexp.MustCompile(`\$[1-9]`).ReplaceAllStringFunc(target, func(ref string) string {
		if n := int(ref[1] - '0'); n < len(groups) {
			return groups[n]
		}
		return ""
	})
}

// redirectAnswer says what is wrong with the answer to a probe that must be redirected,
// "" when it is the 302 to p.redirect.
func (ki *kubeInstance) redirectAnswer(p corpusProbe) string {
	a := p.once(ki.instance)
	if a.err == nil && a.code == 302 && a.location == p.redirect {
		return ""
	}
	return fmt.Sprintf("GET %s%s (TLS %t): %d location %q %v, want 302 to %s", p.host, p.path, p.tls, a.code, a.location, a.err, p.redirect)
}
