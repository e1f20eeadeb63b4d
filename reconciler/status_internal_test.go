package reconciler

import (
	"context"
	"io"
	"log/slog"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestSetStatusRetriesFromFreshCopy checks the one-request path and its fallback: the status
// is written on the cached copy without a read, and only a conflict makes it read a fresh
// copy and write again. The fake clientset stands in for the API server here, because the
// point is which requests setStatus makes, not what the API server does with them.
func TestSetStatusRetriesFromFreshCopy(t *testing.T) {
	ing := &networkingv1.Ingress{}
	ing.Name, ing.Namespace, ing.UID = "web", "default", "uid-1"
	client := fake.NewSimpleClientset(ing.DeepCopy())
	var gets, updates int
	client.PrependReactor("get", "ingresses", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets++
		return false, nil, nil
	})
	client.PrependReactor("update", "ingresses", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		if updates++; updates == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}, "web", nil)
		}
		return false, nil, nil
	})
	p := &reporter{client: &clients{core: client.CoreV1(), networking: client.NetworkingV1()}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	want := []networkingv1.IngressLoadBalancerIngress{{IP: "127.0.0.1"}}
	if err := p.setStatus(context.Background(), ing, want); err != nil {
		t.Fatalf("setStatus: %v", err)
	}
	if gets != 1 || updates != 2 {
		t.Fatalf("%d gets and %d status updates, want 1 and 2 (cached copy, conflict, fresh copy)", gets, updates)
	}
	got, err := client.NetworkingV1().Ingresses("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil || len(got.Status.LoadBalancer.Ingress) != 1 || got.Status.LoadBalancer.Ingress[0].IP != "127.0.0.1" {
		t.Fatalf("status after setStatus: %+v, %v", got.Status.LoadBalancer, err)
	}
	if len(ing.Status.LoadBalancer.Ingress) != 0 {
		t.Fatal("setStatus modified the cached object")
	}
}
