// Package kubetest runs a real kube-apiserver and etcd for tests (controller-runtime's
// envtest) and builds the cluster objects that the reconciler's tests create. It serves
// the reconciler's own tests and the end-to-end tests that put nginx behind it.
package kubetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
)

// missingHint says how to get the binaries a cluster needs.
const missingHint = "run `make test` or hack/install.sh, which installs etcd and builds kube-apiserver into ./bin (the first build takes a few minutes)"

// Cluster is a running kube-apiserver with its etcd.
type Cluster struct {
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	Client kubernetes.Interface
	// Gateway reaches Gateway API's resources; they are served when the cluster was
	// started by StartGatewayAPI.
	Gateway gatewayclient.Interface
	env     *envtest.Environment
	assets  string
}

// Start starts a cluster from ./bin/kube-apiserver (found by walking up to the module root)
// and the etcd on PATH. Stop it with Stop.
func Start() (*Cluster, error) { return start(nil) }

// start starts a cluster and installs the CRDs in crdDirs (directories or files).
func start(crdDirs []string) (*Cluster, error) {
	apiserver, etcd, err := binaries()
	if err != nil {
		return nil, err
	}
	// envtest looks for both binaries in one directory.
	assets, err := os.MkdirTemp("", "kubetest-assets-")
	if err != nil {
		return nil, fmt.Errorf("assets directory: %w", err)
	}
	for name, target := range map[string]string{"kube-apiserver": apiserver, "etcd": etcd} {
		if err := os.Symlink(target, filepath.Join(assets, name)); err != nil {
			os.RemoveAll(assets)
			return nil, fmt.Errorf("link %s: %w", name, err)
		}
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: time.Minute,
		CRDDirectoryPaths: crdDirs, ErrorIfCRDPathMissing: len(crdDirs) > 0}
	cfg, err := env.Start()
	if err != nil {
		os.RemoveAll(assets)
		return nil, fmt.Errorf("start kube-apiserver and etcd: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		_ = env.Stop()
		os.RemoveAll(assets)
		return nil, fmt.Errorf("client: %w", err)
	}
	gw, err := gatewayclient.NewForConfig(cfg)
	if err != nil {
		_ = env.Stop()
		os.RemoveAll(assets)
		return nil, fmt.Errorf("gateway client: %w", err)
	}
	return &Cluster{Config: cfg, Client: client, Gateway: gw, env: env, assets: assets}, nil
}

// StartT starts a cluster for one test and stops it when the test ends. A missing binary
// fails the test with what to run.
func StartT(tb testing.TB) *Cluster {
	tb.Helper()
	return startT(tb, Start)
}

// startT starts a cluster with start for one test and stops it when the test ends.
func startT(tb testing.TB, start func() (*Cluster, error)) *Cluster {
	tb.Helper()
	c, err := start()
	if err != nil {
		tb.Fatalf("kubetest: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Errorf("kubetest: stop: %v", err)
		}
	})
	return c
}

// Stop stops the API server and etcd and removes their data.
func (c *Cluster) Stop() error {
	err := c.env.Stop()
	os.RemoveAll(c.assets)
	return err
}

// binaries finds kube-apiserver and etcd, or says how to get them.
func binaries() (apiserver, etcd string, err error) {
	root, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	apiserver = filepath.Join(root, "bin", "kube-apiserver")
	if st, err := os.Stat(apiserver); err != nil || st.Mode()&0o111 == 0 {
		return "", "", fmt.Errorf("%s is missing: %s", apiserver, missingHint)
	}
	etcd, err = exec.LookPath("etcd")
	if err != nil {
		return "", "", fmt.Errorf("etcd is not on PATH: %s", missingHint)
	}
	return apiserver, etcd, nil
}

// moduleRoot walks up from the working directory to restyplane's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/restyplane/restyplane\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("restyplane's go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Namespace creates a namespace named name, or name-2, name-3, … when a run before it in
// the same process (go test -count=N shares one API server) took the name, and returns
// the name it made.
func (c *Cluster) Namespace(tb testing.TB, name string) string {
	tb.Helper()
	for i := 1; i <= 100; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s-%d", name, i)
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}
		_, err := c.Client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
		if err == nil {
			return n
		}
		if !apierrors.IsAlreadyExists(err) {
			tb.Fatalf("create namespace %s: %v", n, err)
		}
	}
	tb.Fatalf("create namespace %s: 100 namespaces of that name exist", name)
	return ""
}
