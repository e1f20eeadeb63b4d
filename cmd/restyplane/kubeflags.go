package main

import (
	"flag"
	"net"
	"os"
	"strconv"
)

// defaultController is reconciler.DefaultController, written out so that a build without
// the reconciler (kube_off.go) takes the same flags; a test keeps the two equal.
const defaultController = "restyplane.io/ingress"

// defaultGatewayController is reconciler.DefaultGatewayController, written out likewise.
const defaultGatewayController = "restyplane.io/gateway-controller"

// kubeConfig is the Kubernetes part of `restyplane serve`. The reconciler runs when a
// kubeconfig is given or restyplane runs in a pod; otherwise restyplane needs no cluster.
type kubeConfig struct {
	kubeconfig     string
	controller     string
	statusAddress  string
	leaseNamespace string
	identity       string
	allowExternal  bool
	// defaultBackend is namespace/service:port, "" for none.
	defaultBackend string
	// The per-namespace budgets; 0 takes the reconciler's default.
	maxIngresses, maxLocations, maxCertBytes int
	// gatewayController and gatewayAddress are the Gateway API ones (see their flags).
	gatewayController, gatewayAddress string
	// gatewayAddresses is the pool of Gateways' own addresses, "" for none, and
	// gatewayRequested the part of it given only to a Gateway that asks.
	gatewayAddresses, gatewayRequested string
	// httpPort and httpsPort are the proxy's own ports, from --proxy-listen and
	// --tls-listen: a Gateway listener on one of them is served there.
	httpPort, httpsPort int32
	// proxyHosts are the hosts of --proxy-listen and --tls-listen, which the pool never
	// gives to a Gateway.
	proxyHosts []string
}

func (c *kubeConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", env("RESTYPLANE_KUBECONFIG", ""),
		"kubeconfig of the cluster whose Ingresses to serve; in a pod the in-cluster config is used (env RESTYPLANE_KUBECONFIG)")
	fs.StringVar(&c.controller, "ingress-controller", env("RESTYPLANE_INGRESS_CONTROLLER", defaultController),
		"IngressClass controller name to answer to (env RESTYPLANE_INGRESS_CONTROLLER)")
	fs.StringVar(&c.statusAddress, "ingress-status-address", env("RESTYPLANE_INGRESS_STATUS_ADDRESS", ""),
		"address written to applied Ingresses' status.loadBalancer (env RESTYPLANE_INGRESS_STATUS_ADDRESS)")
	fs.StringVar(&c.leaseNamespace, "lease-namespace", env("RESTYPLANE_LEASE_NAMESPACE", ""),
		"namespace of the leader-election Lease (the pod's namespace) (env RESTYPLANE_LEASE_NAMESPACE)")
	fs.StringVar(&c.identity, "lease-identity", env("RESTYPLANE_LEASE_IDENTITY", ""),
		"this replica's name in the Lease (host name and a random suffix) (env RESTYPLANE_LEASE_IDENTITY)")
	fs.BoolVar(&c.allowExternal, "allow-external-name", env("RESTYPLANE_ALLOW_EXTERNAL_NAME", "") == "true",
		"route Ingresses to ExternalName Services, refused otherwise; names of this machine, link-local or metadata addresses stay refused (env RESTYPLANE_ALLOW_EXTERNAL_NAME=true)")
	fs.StringVar(&c.defaultBackend, "default-backend", env("RESTYPLANE_DEFAULT_BACKEND", ""),
		"namespace/service:port of a Service that answers what no Ingress routes (every host's / where no path claims it, unknown hosts) and the custom-http-errors of Ingresses without a default-backend annotation (env RESTYPLANE_DEFAULT_BACKEND)")
	fs.StringVar(&c.gatewayController, "gateway-controller", env("RESTYPLANE_GATEWAY_CONTROLLER", defaultGatewayController),
		"GatewayClass controllerName to answer to (env RESTYPLANE_GATEWAY_CONTROLLER)")
	fs.StringVar(&c.gatewayAddress, "gateway-address", env("RESTYPLANE_GATEWAY_ADDRESS", ""),
		"IP address or hostname written to the status.addresses of Gateways, where the proxy serves them; empty takes --ingress-status-address (env RESTYPLANE_GATEWAY_ADDRESS)")
	fs.StringVar(&c.gatewayAddresses, "gateway-addresses", env("RESTYPLANE_GATEWAY_ADDRESSES", ""),
		"comma-separated IP addresses and CIDR prefixes the proxy may listen on (\"192.0.2.0/28\"), from which each Gateway gets an address of its own, kept while it lives; a Gateway's spec.addresses may ask for one of them. Empty: every Gateway is served at the proxy's own address and --gateway-address (env RESTYPLANE_GATEWAY_ADDRESSES)")
	fs.StringVar(&c.gatewayRequested, "gateway-requested-addresses", env("RESTYPLANE_GATEWAY_REQUESTED_ADDRESSES", ""),
		"IP addresses and CIDR prefixes, as --gateway-addresses, given only to a Gateway whose spec.addresses asks for one of them, never picked for another (env RESTYPLANE_GATEWAY_REQUESTED_ADDRESSES)")
	fs.IntVar(&c.maxIngresses, "namespace-max-ingresses", envInt("RESTYPLANE_NAMESPACE_MAX_INGRESSES"),
		"Ingresses served per namespace, the newest refused past it; 0: 1000 (env RESTYPLANE_NAMESPACE_MAX_INGRESSES)")
	fs.IntVar(&c.maxLocations, "namespace-max-locations", envInt("RESTYPLANE_NAMESPACE_MAX_LOCATIONS"),
		"locations (paths, default backends) per namespace; 0: 5000 (env RESTYPLANE_NAMESPACE_MAX_LOCATIONS)")
	fs.IntVar(&c.maxCertBytes, "namespace-max-certificate-bytes", envInt("RESTYPLANE_NAMESPACE_MAX_CERTIFICATE_BYTES"),
		"bytes of certificates and keys per namespace; 0: 8 MiB, a quarter of the proxy's 32 MiB (env RESTYPLANE_NAMESPACE_MAX_CERTIFICATE_BYTES)")
}

// listenPort is the port of a listen address ("127.0.0.1:8080"), 0 when it has none.
func listenPort(addr string) int32 {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return int32(n)
}

// listenHosts are the hosts of listen addresses.
func listenHosts(addrs ...string) []string {
	var out []string
	for _, a := range addrs {
		if h, _, err := net.SplitHostPort(a); err == nil {
			out = append(out, h)
		}
	}
	return out
}

// envInt reads an integer environment variable, 0 when unset or not a number (the flag
// parser then reports nothing: 0 means the default).
func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

// enabled says whether there is a cluster to reconcile.
func (c *kubeConfig) enabled() bool {
	return c.kubeconfig != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != ""
}
