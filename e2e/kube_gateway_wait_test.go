package e2e

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restyplane/restyplane/reconciler"
)

// waitFor polls cond until it holds, failing the test with what after timeout.
func (ki *kubeInstance) waitUntil(what string, timeout time.Duration, cond func() (bool, string)) {
	ki.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			ki.t.Fatalf("%s: not within %v; last: %s", what, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hasCondition reports whether conds hold a condition of the type with the status and
// reason, at generation gen; it says what it found.
func hasCondition(conds []metav1.Condition, typ string, status metav1.ConditionStatus, reason string, gen int64) (bool, string) {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status == status && c.Reason == reason && c.ObservedGeneration == gen,
				fmt.Sprintf("%s=%s/%s (generation %d): %s", c.Type, c.Status, c.Reason, c.ObservedGeneration, c.Message)
		}
	}
	return false, fmt.Sprintf("no %s condition in %v", typ, conds)
}

// routeCondition waits until the HTTPRoute's status for restyplane's controller has the
// condition, and returns its message.
func (ki *kubeInstance) routeCondition(ns, name, typ string, status metav1.ConditionStatus, reason string) string {
	ki.t.Helper()
	msg := ""
	ki.waitUntil(fmt.Sprintf("HTTPRoute %s/%s %s=%s/%s", ns, name, typ, status, reason), 20*time.Second, func() (bool, string) {
		r := ki.httpRoute(ns, name)
		for _, p := range r.Status.Parents {
			if p.ControllerName != reconciler.DefaultGatewayController {
				continue
			}
			ok, last := hasCondition(p.Conditions, typ, status, reason, r.Generation)
			msg = last
			return ok, last
		}
		return false, fmt.Sprintf("no parent status of restyplane's in %+v", r.Status.Parents)
	})
	return msg
}

// waitAnswer waits until GET host path through the proxy, with the header pairs,
// answers code with a body starting with prefix.
func (ki *kubeInstance) waitAnswer(host, path string, code int, prefix string, hdr ...string) {
	ki.t.Helper()
	ki.waitUntil(fmt.Sprintf("GET %s%s %v = %d %q...", host, path, hdr, code, prefix), 30*time.Second, func() (bool, string) {
		c, body := ki.get(host, path, hdr...)
		return c == code && len(body) >= len(prefix) && body[:len(prefix)] == prefix, fmt.Sprintf("%d %q", c, body)
	})
}
