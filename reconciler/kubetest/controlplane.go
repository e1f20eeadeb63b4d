package kubetest

import (
	"fmt"
	"os"
	"path/filepath"
)

// saSigningKey is the file envtest writes, in the API server's certificate directory, with
// the key the API server signs and verifies service account tokens with.
const saSigningKey = "sa-signer.key"

// ServiceAccountSigningKey returns the file of the private key that the API server's
// service account tokens are signed with, for the --service-account-private-key-file of
// a kube-controller-manager that runs against c: its token controller then mints tokens
// the API server accepts.
func (c *Cluster) ServiceAccountSigningKey() (string, error) {
	dir := c.env.ControlPlane.APIServer.CertDir
	path := filepath.Join(dir, saSigningKey)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("the API server's service account signing key: %w", err)
	}
	return path, nil
}

// Bin returns the program that hack/install.sh builds into restyplane's ./bin (found by
// walking up to the module root), or says how to get it.
func Bin(name string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, "bin", name)
	if st, err := os.Stat(path); err != nil || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is missing: run `make test` or `hack/install.sh test`, which builds it into ./bin", path)
	}
	return path, nil
}
