package reconciler

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// Object names. Every kubernetes-owned object is named "k8s." and a path that Kubernetes
// makes unique: namespaces, Service names and port names hold no dots, so the dots between
// them cannot be confused, and "_" (never part of a hostname) stands for a wildcard label.
const (
	namePrefix    = "k8s."
	catchAllName  = namePrefix + "_default"
	maxNameLength = 128
)

// backendName names the backend of one Service port, given by number or by name.
func backendName(namespace, service, port string) string {
	return objectName(namespace + "." + service + "." + port)
}

// serverName names the server of one host.
func serverName(host string) string {
	if host == api.CatchAllHostname {
		return catchAllName
	}
	return objectName(strings.ReplaceAll(host, "*", "_"))
}

// portServerName names the server of one host on a Gateway listener's port of its own
// (port 0 is the proxy's own: serverName). "_" is no part of a hostname but for a
// wildcard's label, which serverName turns into "_.": "_8080" at the end is unambiguous.
func portServerName(host string, port int) string {
	if port == 0 {
		return serverName(host)
	}
	if host == api.CatchAllHostname {
		return objectName("_default_" + strconv.Itoa(port))
	}
	return objectName(strings.ReplaceAll(host, "*", "_") + "_" + strconv.Itoa(port))
}

// gatewayServerName names the server of one host on a listener's port (0 for the
// proxy's own) at a Gateway's own address ("" for the proxy's): "_at_" and the address,
// its IPv6 colons as "-", follows portServerName's, which ends in no "_at_" of its own.
func gatewayServerName(host, address string, port int) string {
	if address == "" {
		return portServerName(host, port)
	}
	n := strings.TrimPrefix(portServerName(host, port), namePrefix)
	return objectName(n + "_at_" + strings.ReplaceAll(address, ":", "-"))
}

// certificateName names the certificate of one TLS Secret.
func certificateName(namespace, secret string) string {
	return objectName(namespace + "." + secret)
}

// objectName prefixes a name and, when it would be longer than api.ValidName allows,
// shortens it to a readable head and a hash of the whole, so that it stays unique and
// stable across syncs.
func objectName(s string) string {
	n := namePrefix + strings.ToLower(s)
	if len(n) <= maxNameLength {
		return n
	}
	sum := sha256.Sum256([]byte(n))
	return n[:maxNameLength-17] + "-" + hex.EncodeToString(sum[:8])
}
