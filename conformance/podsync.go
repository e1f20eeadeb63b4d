package conformance

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
)

// sync makes what runs for the Pod key match the Pod.
func (r *podRunner) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := r.lister.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || err == nil && pod.DeletionTimestamp != nil {
		r.teardown(key)
		return nil
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	cur := r.pods[key]
	r.mu.Unlock()
	if cur != nil && (cur.uid != pod.UID || cur.ip != pod.Status.PodIP) {
		r.teardown(key)
		cur = nil
	}
	if pod.Status.Phase != corev1.PodRunning || pod.Status.PodIP == "" {
		return nil
	}
	if cur != nil && cur.proc != nil {
		if done, err := cur.proc.exited(); done {
			r.log.Printf("%s: the program exited (%v): %s", key, err, cur.proc.tail(2000))
			r.teardown(key)
			cur = nil
		}
	}
	if cur == nil {
		if cur, err = r.start(ctx, key, pod); err != nil {
			return err
		}
	}
	if podReady(pod) {
		return nil
	}
	if cur.proc != nil {
		if err := answers(pod.Status.PodIP, probePort(pod.Spec.Containers[0]), 20*time.Second); err != nil {
			return err
		}
	}
	return r.markReady(ctx, pod)
}

// start runs the Pod's container in a new network namespace holding its IP.
func (r *podRunner) start(ctx context.Context, key string, pod *corev1.Pod) (*runningPod, error) {
	ip, err := netip.ParseAddr(pod.Status.PodIP)
	if err != nil {
		return nil, fmt.Errorf("pod IP %q: %w", pod.Status.PodIP, err)
	}
	if len(pod.Spec.Containers) != 1 {
		return nil, fmt.Errorf("the harness runs Pods of one container; this one has %d", len(pod.Spec.Containers))
	}
	// kwok gives a deleted Pod's IP to a new one: the old namespace must be gone first.
	r.mu.Lock()
	holder, held := r.ips[ip.String()]
	_, holderRuns := r.pods[holder]
	r.mu.Unlock()
	if held && holder != key {
		if !holderRuns {
			return nil, fmt.Errorf("IP %s is still being released by %s", ip, holder)
		}
		r.teardown(holder)
	}
	c := pod.Spec.Containers[0]
	dir := filepath.Join(r.dir, "pods", pod.Namespace+"_"+pod.Name+"_"+string(pod.UID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var l launch
	if echoImage(c.Image) {
		if l, err = resolveContainer(ctx, r.client, pod, c, dir); err != nil {
			return nil, err
		}
	} else {
		r.log.Printf("%s: image %s is not echo-basic: the Pod gets its network and is Ready, but runs no program", key, c.Image)
	}
	rp := &runningPod{uid: pod.UID, ip: ip.String(), log: filepath.Join(dir, "container.log")}
	if rp.netns, err = r.net.add(ip); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.pods[key], r.ips[rp.ip] = rp, key
	r.mu.Unlock()
	if echoImage(c.Image) {
		cmd := exec.Command("ip", append([]string{"netns", "exec", rp.netns, r.echo}, l.args...)...)
		cmd.Env = l.env
		if rp.proc, err = startProc(key, rp.log, cmd, true); err != nil {
			r.teardown(key)
			return nil, err
		}
	}
	r.log.Printf("%s: started at %s in %s (%s)", key, rp.ip, rp.netns, strings.Join(l.env, " "))
	return rp, nil
}

// teardown ends the Pod's program and removes its namespace, then frees its IP.
func (r *podRunner) teardown(key string) {
	r.mu.Lock()
	rp := r.pods[key]
	delete(r.pods, key)
	r.mu.Unlock()
	if rp == nil {
		return
	}
	if rp.proc != nil {
		rp.proc.stop(5 * time.Second)
	}
	if err := r.net.remove(rp.netns); err != nil {
		r.log.Printf("%s: %v", key, err)
	}
	r.mu.Lock()
	if r.ips[rp.ip] == key {
		delete(r.ips, rp.ip)
	}
	r.mu.Unlock()
	r.log.Printf("%s: stopped at %s", key, rp.ip)
}
