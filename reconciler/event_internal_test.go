package reconciler

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// TestEventWriterKeepsWhatItIsGiven: Events said faster than the API server takes them
// wait for it, past the 1,000 that client-go's recorder holds before it drops the rest,
// and all of them reach the API server.
func TestEventWriterKeepsWhatItIsGiven(t *testing.T) {
	c := kubetest.StartT(t)
	ns := c.Namespace(t, "events")
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = 500, 500
	cl, err := newClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var dropped atomic.Int64
	w := &eventWriter{sink: cl.core, log: slog.New(slog.DiscardHandler), wake: make(chan struct{}, 1),
		dropped: func() { dropped.Add(1) }}
	const n = 1500
	ref := &corev1.ObjectReference{Kind: "Ingress", APIVersion: "networking.k8s.io/v1", Namespace: ns, Name: "web", UID: "u-1"}
	for i := range n {
		w.post(ref, 1, corev1.EventTypeNormal, "Test", fmt.Sprintf("event %04d", i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.run(ctx)

	var got []corev1.Event
	deadline := time.Now().Add(90 * time.Second)
	for len(got) < n && time.Now().Before(deadline) && dropped.Load() == 0 {
		time.Sleep(200 * time.Millisecond)
		l, err := c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got = l.Items
	}
	if len(got) != n || dropped.Load() != 0 {
		t.Fatalf("%d Events posted, %d dropped, want %d posted and none dropped", len(got), dropped.Load(), n)
	}
	messages := map[string]bool{}
	for _, e := range got {
		messages[e.Message] = true
		if e.Annotations[generationAnnotation] != "1" || e.Source.Component != eventComponent {
			t.Fatalf("event %q: annotations %v, source %+v: want generation 1 from %s", e.Message, e.Annotations, e.Source, eventComponent)
		}
	}
	if len(messages) != n {
		t.Fatalf("%d distinct messages, want %d", len(messages), n)
	}
}
