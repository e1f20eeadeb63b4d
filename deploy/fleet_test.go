package deploy_test

import (
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// imageUID is the user that image/build.sh creates; the pods must run as it.
const imageUID = 10001

// fleet is the typed view of the manifests' workloads.
type fleet struct {
	deployments map[string]*appsv1.Deployment
	services    map[string]*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
}

func readFleet(t *testing.T) fleet {
	t.Helper()
	f := fleet{deployments: map[string]*appsv1.Deployment{}, services: map[string]*corev1.Service{}}
	for _, o := range objects(t) {
		var into any
		switch o.GetKind() {
		case "Deployment":
			d := &appsv1.Deployment{}
			f.deployments[o.GetName()], into = d, d
		case "Service":
			s := &corev1.Service{}
			f.services[o.GetName()], into = s, s
		case "PodDisruptionBudget":
			p := &policyv1.PodDisruptionBudget{}
			f.pdbs, into = append(f.pdbs, p), p
		default:
			continue
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
			t.Fatalf("convert %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	return f
}

// TestFleetShape checks what the dry run cannot: one control plane on its volume, several
// data planes under a PodDisruptionBudget, and each role's command.
func TestFleetShape(t *testing.T) {
	f := readFleet(t)
	cp, dp := f.deployments["restyplane"], f.deployments["restyplane-dataplane"]
	if cp == nil || dp == nil {
		t.Fatalf("want Deployments restyplane and restyplane-dataplane, got %v", keys(f.deployments))
	}
	if got, want := *cp.Spec.Replicas, int32(1); got != want {
		t.Errorf("control plane replicas = %d, want %d (one SQLite writer)", got, want)
	}
	if got, want := cp.Spec.Strategy.Type, appsv1.RecreateDeploymentStrategyType; got != want {
		t.Errorf("control plane strategy = %s, want %s", got, want)
	}
	if !hasPVC(cp.Spec.Template.Spec, "/var/lib/restyplane") {
		t.Error("the control plane's /var/lib/restyplane is not a PersistentVolumeClaim")
	}
	if got := *dp.Spec.Replicas; got < 3 {
		t.Errorf("data plane replicas = %d, want at least 3", got)
	}
	if got, want := dp.Spec.Template.Spec.Containers[0].Args, []string{"agent"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("data plane args = %q, want %q", got, want)
	}
	if got, want := cp.Spec.Template.Spec.Containers[0].Args, []string{"serve"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("control plane args = %q, want %q", got, want)
	}
	if len(f.pdbs) != 1 {
		t.Fatalf("want one PodDisruptionBudget, got %d", len(f.pdbs))
	}
	pdb := f.pdbs[0]
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() < 1 || pdb.Spec.MinAvailable.IntValue() >= int(*dp.Spec.Replicas) {
		t.Errorf("PDB minAvailable = %v, want between 1 and the %d replicas", pdb.Spec.MinAvailable, *dp.Spec.Replicas)
	}
	if !selects(t, pdb.Spec.Selector, dp) || selects(t, pdb.Spec.Selector, cp) {
		t.Errorf("PDB selector %v must select the data-plane pods and not the control plane's", pdb.Spec.Selector)
	}
}

// TestServicesAndProbes checks that each Service selects exactly one Deployment's pods and
// targets ports they declare, and that every probe points at a declared port.
func TestServicesAndProbes(t *testing.T) {
	f := readFleet(t)
	want := map[string]string{"restyplane": "restyplane-dataplane", "restyplane-api": "restyplane"}
	for name, target := range want {
		s := f.services[name]
		if s == nil {
			t.Fatalf("Service %s missing", name)
		}
		var matched []string
		for dn, d := range f.deployments {
			if labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				matched = append(matched, dn)
			}
		}
		if len(matched) != 1 || matched[0] != target {
			t.Errorf("Service %s selects %v, want only %s", name, matched, target)
			continue
		}
		for _, p := range s.Spec.Ports {
			if !declared(f.deployments[target].Spec.Template.Spec.Containers[0], p.TargetPort.String()) {
				t.Errorf("Service %s port %s targets %s, which %s does not declare", name, p.Name, p.TargetPort.String(), target)
			}
		}
	}
	for dn, d := range f.deployments {
		c := d.Spec.Template.Spec.Containers[0]
		for kind, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Errorf("%s: no HTTP %s probe", dn, kind)
				continue
			}
			if !declared(c, p.HTTPGet.Port.String()) {
				t.Errorf("%s: %s probe on port %s, which the container does not declare", dn, kind, p.HTTPGet.Port.String())
			}
			if got, want := p.HTTPGet.Path, map[string]string{"readiness": "/readyz", "liveness": "/healthz"}[kind]; got != want {
				t.Errorf("%s: %s probe path = %s, want %s", dn, kind, got, want)
			}
		}
	}
}

// TestPodsAreLockedDown checks that every pod runs as the image's unprivileged user on a
// read-only root filesystem, and that no token is written into a manifest: tokens come
// from a Secret, so restyplane never generates and prints one into the pod log.
func TestPodsAreLockedDown(t *testing.T) {
	for dn, d := range readFleet(t).deployments {
		ps := d.Spec.Template.Spec
		if sc := ps.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != imageUID {
			t.Errorf("%s: pod securityContext %+v, want runAsNonRoot and runAsUser %d", dn, sc, imageUID)
		}
		for _, c := range ps.Containers {
			sc := c.SecurityContext
			if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Errorf("%s/%s: container securityContext %+v, want readOnlyRootFilesystem and no privilege escalation", dn, c.Name, sc)
			}
			for _, e := range c.Env {
				if strings.Contains(e.Name, "TOKEN") && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
					t.Errorf("%s/%s: %s is not taken from a Secret", dn, c.Name, e.Name)
				}
			}
		}
	}
	cp := readFleet(t).deployments["restyplane"]
	if !hasEnv(cp.Spec.Template.Spec.Containers[0], "RESTYPLANE_ADMIN_TOKEN") {
		t.Error("the control plane has no RESTYPLANE_ADMIN_TOKEN: it would print a generated admin token into its log")
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func selects(t *testing.T, sel *metav1.LabelSelector, d *appsv1.Deployment) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector %v: %v", sel, err)
	}
	return s.Matches(labels.Set(d.Spec.Template.Labels))
}

// declared reports whether the container declares the port, by name or number.
func declared(c corev1.Container, port string) bool {
	for _, p := range c.Ports {
		if p.Name == port || strconv.Itoa(int(p.ContainerPort)) == port {
			return true
		}
	}
	return false
}

func hasPVC(ps corev1.PodSpec, path string) bool {
	for _, c := range ps.Containers {
		for _, m := range c.VolumeMounts {
			if m.MountPath != path {
				continue
			}
			for _, v := range ps.Volumes {
				if v.Name == m.Name && v.PersistentVolumeClaim != nil {
					return true
				}
			}
		}
	}
	return false
}

func hasEnv(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}
