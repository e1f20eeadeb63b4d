package conformance

import (
	"context"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// markReady sets the Pod's Ready and ContainersReady conditions, and its containers'
// readiness, as a kubelet does once its readiness probe passes.
func (r *podRunner) markReady(ctx context.Context, pod *corev1.Pod) error {
	p := pod.DeepCopy()
	now := metav1.Now()
	for _, t := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		setCondition(&p.Status, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	for i := range p.Status.ContainerStatuses {
		started := true
		p.Status.ContainerStatuses[i].Ready, p.Status.ContainerStatuses[i].Started = true, &started
	}
	_, err := r.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		// kwok or Kubernetes wrote the Pod meanwhile; the informer brings the new one back.
		return fmt.Errorf("mark Ready: %w", err)
	}
	if err == nil {
		r.log.Printf("%s/%s: Ready at %s", p.Namespace, p.Name, p.Status.PodIP)
	}
	return err
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func setCondition(st *corev1.PodStatus, c corev1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// probePort is the port the container's program answers on: echo-basic's HTTP (or TCP)
// port, 3000 unless its environment says otherwise.
func probePort(c corev1.Container) string {
	for _, e := range c.Env {
		if (e.Name == "HTTP_PORT" || e.Name == "TCP_PORT") && e.Value != "" {
			return e.Value
		}
	}
	return "3000"
}

// answers waits until a TCP connection to ip:port succeeds.
func answers(ip, port string, within time.Duration) error {
	addr := net.JoinHostPort(ip, port)
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing answers on %s after %v: %w", addr, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
