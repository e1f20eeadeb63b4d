package conformance

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// podWorkers is how many Pods the runner starts at once: a start waits for the program to
// answer, and one slow Pod must not hold the others.
const podWorkers = 4

// podRunner plays the part of a kubelet that kwok leaves out, for the Pods on the
// harness's node: for each Running Pod with an IP it runs the container's program in a
// network namespace holding that IP, and marks the Pod Ready once the program answers;
// when the Pod goes, its program and namespace go. It is level-triggered: an informer's
// handlers only enqueue the Pod's key, and sync compares what runs with the Pod.
type podRunner struct {
	client kubernetes.Interface
	net    *podNetwork
	echo   string
	dir    string
	log    *log.Logger
	// logPath is the file of log, which says what the runner did and what failed.
	logPath string
	logFile *os.File

	queue  workqueue.TypedRateLimitingInterface[string]
	lister corelisters.PodLister
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	pods map[string]*runningPod // by namespace/name
	ips  map[string]string      // Pod IP -> the key of the Pod holding it, until its namespace is gone
}

// runningPod is what runs for one Pod.
type runningPod struct {
	uid   types.UID
	ip    string
	netns string
	// proc is the container's program; nil for an image the harness does not run.
	proc *proc
}

// startPodRunner watches the Pods of node and runs them until stop.
func startPodRunner(client kubernetes.Interface, node string, n *podNetwork, echo, dir string) (*podRunner, error) {
	logPath := filepath.Join(dir, "pods.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &podRunner{client: client, net: n, echo: echo, dir: dir, cancel: cancel,
		log: log.New(logFile, "", log.Ltime|log.Lmicroseconds), logPath: logPath, logFile: logFile,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](50*time.Millisecond, 2*time.Second)),
		pods:  map[string]*runningPod{}, ips: map[string]string{}}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "spec.nodeName=" + node
	}))
	inf := factory.Core().V1().Pods()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			r.queue.Add(key)
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue}); err != nil {
		cancel()
		return nil, err
	}
	r.lister = inf.Lister()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
		cancel()
		return nil, errors.New("the Pod informer did not sync")
	}
	r.wg.Add(podWorkers)
	for range podWorkers {
		go func() {
			defer r.wg.Done()
			for r.next(ctx) {
			}
		}()
	}
	return r, nil
}

// next syncs one Pod; it returns false once the queue shuts down.
func (r *podRunner) next(ctx context.Context) bool {
	key, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(key)
	if err := r.sync(ctx, key); err != nil {
		r.log.Printf("%s: %v (retrying)", key, err)
		r.queue.AddRateLimited(key)
		return true
	}
	r.queue.Forget(key)
	return true
}

// stop stops watching and ends every Pod's program and namespace.
func (r *podRunner) stop() {
	r.cancel()
	r.queue.ShutDown()
	r.wg.Wait()
	r.mu.Lock()
	keys := make([]string, 0, len(r.pods))
	for k := range r.pods {
		keys = append(keys, k)
	}
	r.mu.Unlock()
	for _, k := range keys {
		r.teardown(k)
	}
	r.logFile.Close()
}

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
	rp := &runningPod{uid: pod.UID, ip: ip.String()}
	if rp.netns, err = r.net.add(ip); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.pods[key], r.ips[rp.ip] = rp, key
	r.mu.Unlock()
	if echoImage(c.Image) {
		cmd := exec.Command("ip", append([]string{"netns", "exec", rp.netns, r.echo}, l.args...)...)
		cmd.Env = l.env
		if rp.proc, err = startProc(key, filepath.Join(dir, "echo-basic.log"), cmd); err != nil {
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

// running returns the Pods that have a program or a network, by key, with their IPs.
func (r *podRunner) running() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.pods))
	for k, p := range r.pods {
		out[k] = p.ip
	}
	return out
}

// procs returns the programs running for Pods, sorted by key.
func (r *podRunner) procs() []*proc {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*proc
	for _, p := range r.pods {
		if p.proc != nil {
			out = append(out, p.proc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
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
