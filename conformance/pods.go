package conformance

import (
	"context"
	"errors"
	"log"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

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

// podResync is how often every Pod is synced again without a change.
const podResync = 30 * time.Second

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
	// log is the file of the program's output, in the CRI format.
	log string
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
	// The periodic resync brings every Pod back to sync, which restarts a program that
	// exited, as a kubelet restarts a container.
	factory := informers.NewSharedInformerFactoryWithOptions(client, podResync, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
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
		logFile.Close()
		return nil, err
	}
	r.lister = inf.Lister()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
		cancel()
		logFile.Close()
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

// logOf returns the log file of the program of the Pod namespace/name, if it runs one.
func (r *podRunner) logOf(key string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pods[key]
	if p == nil || p.proc == nil {
		return "", false
	}
	return p.log, true
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
