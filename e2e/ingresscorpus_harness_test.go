package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// corpusDir holds real Ingress manifests taken from public repositories, one source file
// each, with the address of its source and its license in the first comment lines.
const corpusDir = "../testdata/ingress-corpus"

// corpusFile is one manifest of the corpus, its Ingresses moved into a namespace of their
// own (see moveIngress).
type corpusFile struct {
	file string // the file name without .yaml
	ns   string
	// published is the namespace the manifest gave its Ingresses ("default" when none).
	published map[string]string
	ingresses []*networkingv1.Ingress
}

// loadCorpus reads every manifest of the corpus and moves its Ingresses to restyplane's
// class, in namespaces corpus-001, corpus-002… in the order of the files.
func loadCorpus(t testing.TB) []*corpusFile {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(corpusDir, "*.yaml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus in %s: %v", corpusDir, err)
	}
	sort.Strings(names)
	var out []*corpusFile
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(name), ".yaml")
		number, _, _ := strings.Cut(base, "-")
		cf := &corpusFile{file: base, ns: "corpus-" + number, published: map[string]string{}}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			ing := &networkingv1.Ingress{}
			if err := dec.Decode(ing); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if ing.Kind == "" {
				continue // an empty document
			}
			if ing.Kind != "Ingress" || ing.APIVersion != "networking.k8s.io/v1" {
				t.Fatalf("%s holds a %s %s: the corpus holds networking.k8s.io/v1 Ingresses only", name, ing.APIVersion, ing.Kind)
			}
			published := ing.Namespace
			if published == "" {
				published = "default"
			}
			cf.published[ing.Name] = published
			moveIngress(ing, cf.ns, published)
			cf.ingresses = append(cf.ingresses, ing)
		}
		if len(cf.ingresses) == 0 {
			t.Fatalf("%s holds no Ingress", name)
		}
		out = append(out, cf)
	}
	return out
}

// Annotations whose value may name a Secret as "namespace/name".
var corpusSecretAnnotations = []string{"auth-secret", "auth-tls-secret", "proxy-ssl-secret"}

// moveIngress moves a published Ingress to restyplane's class and into namespace ns, as a
// team moving it to a test cluster would: the class is restyplane's, and the corpus's
// files, which come from unrelated repositories and often name the same hosts (or none),
// get hosts of their own: each host h becomes h.<ns>.test, a rule without host gets
// <ns>.test. A Secret that an annotation names in the Ingress's own published namespace
// (auth-tls-secret: argo-events/ca) follows it into ns. Everything else is as published.
func moveIngress(ing *networkingv1.Ingress, ns, published string) {
	ing.ObjectMeta = metav1.ObjectMeta{Name: ing.Name, Namespace: ns, Labels: ing.Labels, Annotations: ing.Annotations}
	class := ingressClass
	ing.Spec.IngressClassName = &class
	delete(ing.Annotations, "kubernetes.io/ingress.class")
	for i := range ing.Spec.Rules {
		ing.Spec.Rules[i].Host = corpusHost(ing.Spec.Rules[i].Host, ns)
	}
	for i := range ing.Spec.TLS {
		for j, h := range ing.Spec.TLS[i].Hosts {
			ing.Spec.TLS[i].Hosts[j] = corpusHost(h, ns)
		}
	}
	for _, a := range corpusSecretAnnotations {
		if v, ok := ing.Annotations[nginxAnn+a]; ok && strings.HasPrefix(v, published+"/") {
			ing.Annotations[nginxAnn+a] = ns + "/" + strings.TrimPrefix(v, published+"/")
		}
	}
}

// corpusHost is where a published host lives in the test: under the file's namespace.
func corpusHost(h, ns string) string {
	if h == "" {
		return ns + ".test"
	}
	return h + "." + ns + ".test"
}

// annotation returns an ingress-nginx annotation of the Ingress.
func annotation(ing *networkingv1.Ingress, name string) (string, bool) {
	v, ok := ing.Annotations[nginxAnn+name]
	return strings.TrimSpace(v), ok
}

// secretRef splits an annotation's "namespace/name" or "name"; the namespace is ns when
// the value names none.
func secretRef(v, ns string) (string, string) {
	if n, name, ok := strings.Cut(v, "/"); ok {
		return n, name
	}
	return ns, v
}
