package conformance

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// slicesMatchPods checks that the EndpointSlices of each Service of the namespace list
// exactly the IPs of the Ready Pods its selector picks, all ready, on the Service's
// target ports.
func slicesMatchPods(t *testing.T, c *Cluster, ns string) {
	t.Helper()
	ctx := context.Background()
	svcs, err := c.Client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods := podsOf(t, c, ns)
	for _, svc := range svcs.Items {
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		var want []string
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		for _, p := range pods {
			if sel.Matches(labels.Set(p.Labels)) && podReady(&p) {
				want = append(want, p.Status.PodIP)
			}
		}
		slices.Sort(want)
		// The EndpointSlice controller writes after the Pods' readiness: wait for it.
		var got []string
		var ports []int32
		deadline := time.Now().Add(time.Minute)
		for {
			got, ports = sliceIPs(t, c, ns, svc.Name)
			if slices.Equal(got, want) || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("Service %s/%s: EndpointSlices list ready %v, want the Ready Pods' %v", ns, svc.Name, got, want)
		}
		for _, sp := range svc.Spec.Ports {
			if !slices.Contains(ports, sp.TargetPort.IntVal) {
				t.Errorf("Service %s/%s: EndpointSlices have ports %v, want target port %d", ns, svc.Name, ports, sp.TargetPort.IntVal)
			}
		}
	}
}

// sliceIPs returns the sorted ready addresses of the Service's EndpointSlices and their
// ports.
func sliceIPs(t *testing.T, c *Cluster, ns, svc string) ([]string, []int32) {
	t.Helper()
	list, err := c.Client.DiscoveryV1().EndpointSlices(ns).List(context.Background(),
		metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc})
	if err != nil {
		t.Fatal(err)
	}
	var ips []string
	var ports []int32
	for _, s := range list.Items {
		for _, p := range s.Ports {
			if p.Port != nil {
				ports = append(ports, *p.Port)
			}
		}
		for _, e := range s.Endpoints {
			if e.Conditions.Ready != nil && *e.Conditions.Ready {
				ips = append(ips, e.Addresses...)
			}
		}
	}
	slices.Sort(ips)
	return ips, ports
}

// replacedPodAnswers deletes one Pod of the Deployment and checks that the harness stops
// its program, and that the Pod the ReplicaSet makes instead answers as itself.
func replacedPodAnswers(t *testing.T, c *Cluster, ns, deployment string) {
	t.Helper()
	before := map[string]bool{}
	var victim string
	for _, p := range podsOf(t, c, ns) {
		if p.Labels["app"] == deployment {
			before[p.Name], victim = true, p.Name
		}
	}
	if victim == "" {
		t.Fatalf("no Pod of %s/%s", ns, deployment)
	}
	if err := c.Client.CoreV1().Pods(ns).Delete(context.Background(), victim, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	key := ns + "/" + victim
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var fresh []corev1.Pod
		gone := true
		for _, p := range podsOf(t, c, ns) {
			gone = gone && p.Name != victim
			if p.Labels["app"] == deployment && !before[p.Name] && podReady(&p) {
				fresh = append(fresh, p)
			}
		}
		_, runs := c.PodIPs()[key]
		if gone && !runs && len(fresh) == 1 {
			p := fresh[0]
			if pod, _, err := httpWhoami("http", p.Status.PodIP, "3000"); err != nil || pod != p.Name {
				t.Errorf("Pod %s/%s at %s replacing %s: %q, %v", ns, p.Name, p.Status.PodIP, victim, pod, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after deleting Pod %s: gone from the API %v, its program stopped %v, new Ready Pods %d, within 2m", key, gone, !runs, len(fresh))
		}
		time.Sleep(50 * time.Millisecond)
	}
	deploymentsReady(t, c, []string{ns}, 2*time.Minute)
	slicesMatchPods(t, c, ns)
}
