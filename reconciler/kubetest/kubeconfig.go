package kubetest

import (
	"net/url"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig writes a kubeconfig file that reaches the API server as c.Config does, for
// a command's --kubeconfig, and returns its path.
func (c *Cluster) Kubeconfig(tb testing.TB) string {
	tb.Helper()
	cfg := c.Config
	u, err := url.Parse(cfg.Host)
	if err != nil || u.Host == "" {
		tb.Fatalf("the API server address %q is not a URL: %v", cfg.Host, err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["kubetest"] = &clientcmdapi.Cluster{Server: "https://" + u.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["kubetest"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		Token: cfg.BearerToken, Username: cfg.Username, Password: cfg.Password}
	kc.Contexts["kubetest"] = &clientcmdapi.Context{Cluster: "kubetest", AuthInfo: "kubetest"}
	kc.CurrentContext = "kubetest"
	path := filepath.Join(tb.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		tb.Fatalf("write kubeconfig: %v", err)
	}
	return path
}
