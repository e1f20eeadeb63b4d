package reconciler

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Options configure a Reconciler. The zero value runs in-cluster with the defaults below.
type Options struct {
	// Kubeconfig is the path of a kubeconfig file; empty means the in-cluster configuration.
	Kubeconfig string
	// Config, when set, is used instead of Kubeconfig.
	Config *rest.Config
	// Controller is the IngressClass controller name to answer to (DefaultController).
	Controller string
	// StatusAddress is the IP address or hostname written to applied Ingresses'
	// status.loadBalancer; empty leaves their status alone.
	StatusAddress string
	// LeaseNamespace and LeaseName name the Lease that elects the one replica that writes
	// (the pod's namespace, or "default"; "restyplane-reconciler").
	LeaseNamespace string
	LeaseName      string
	// Identity names this replica in the Lease (host name and a random suffix).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod tune the election (15s, 10s, 2s).
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// AllowExternalName lets Ingresses route to ExternalName Services, which are refused
	// otherwise: their name is resolved by the proxy, and could reach what the proxy's
	// network reaches.
	AllowExternalName bool
	// DefaultBackend, when set, answers what no Ingress routes, and the codes of
	// custom-http-errors on Ingresses without a default-backend of their own.
	DefaultBackend *DefaultBackend
	// Budgets bound what each namespace's Ingresses may put on the proxy; zero fields
	// take DefaultBudgets.
	Budgets Budgets
	// GatewayController is the GatewayClass controllerName to answer to
	// (DefaultGatewayController).
	GatewayController string
	// GatewayAddress is the IP address or hostname written to the status.addresses of
	// Gateways; empty takes StatusAddress, and with neither their addresses stay empty.
	GatewayAddress string
	// GatewayAddresses, when set, gives each Gateway an address of its own from it, at
	// which its listeners are served and which its status.addresses says (see
	// assignAddresses); GatewayAddress is then not used.
	GatewayAddresses *AddressPool
	// HTTPPort and HTTPSPort are the ports the proxy's instances listen on for plain HTTP
	// and HTTPS (--proxy-listen and --tls-listen): a Gateway listener on one of them is
	// served on the instances' own listen (Server.Port 0), any other port on its own.
	HTTPPort, HTTPSPort int32
	// GatewaySchemaPeriod is how often the reconciler asks whether the cluster's Gateway
	// API CRDs changed what they keep of the objects (HTTPRoute's rules[].retry) since it
	// last read them (30s).
	GatewaySchemaPeriod time.Duration
	// Logger receives the reconciler's logs (slog.Default()).
	Logger *slog.Logger
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Controller == "" {
		o.Controller = DefaultController
	}
	if o.GatewayController == "" {
		o.GatewayController = DefaultGatewayController
	}
	if o.GatewayAddress == "" {
		o.GatewayAddress = o.StatusAddress
	}
	if o.LeaseNamespace == "" {
		o.LeaseNamespace = "default"
		if b, err := os.ReadFile(serviceAccountNamespace); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			o.LeaseNamespace = strings.TrimSpace(string(b))
		}
	}
	if o.LeaseName == "" {
		o.LeaseName = "restyplane-reconciler"
	}
	if o.Identity == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.Identity = host + "_" + hex.EncodeToString(b[:])
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = 15 * time.Second
	}
	if o.RenewDeadline == 0 {
		o.RenewDeadline = 10 * time.Second
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = 2 * time.Second
	}
	if o.GatewaySchemaPeriod == 0 {
		o.GatewaySchemaPeriod = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
