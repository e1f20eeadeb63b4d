package reconciler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

// eventComponent is the source component and reporting controller of restyplane's Events,
// by which a new reporter finds what the ones before it said (recall).
const eventComponent = "restyplane"

// generationAnnotation carries, on each Event, the generation of the object it speaks of.
const generationAnnotation = "restyplane.io/generation"

// maxEventMessage bounds an Event's message.
const maxEventMessage = 1000

// maxQueuedEvents bounds the Events waiting to be posted. A sync says a few things about
// each object whose verdict changed, a first start a few about each of thousands; the
// bound is far above that, and an Event past it is dropped, logged and counted.
const maxQueuedEvents = 100_000

// eventTries is how often an Event is posted while the API server cannot be reached.
const eventTries = 5

// eventWriter posts Events in the order they are said, one at a time, through the reconciler's
// rate-limited client. client-go's recorder queues 1,000 and drops the rest, which a first
// start of 1,000 objects reaches; this queue waits for the rate limiter instead.
type eventWriter struct {
	sink    typedcorev1.EventsGetter
	log     *slog.Logger
	dropped func() // counts an Event that was not posted

	mu    sync.Mutex
	queue []*corev1.Event
	wake  chan struct{}
}

// newEventWriter returns a writer of r's Events that counts those it drops in its Stats.
func (r *Reconciler) newEventWriter() *eventWriter {
	return &eventWriter{sink: r.client.core, log: r.log, wake: make(chan struct{}, 1),
		dropped: func() { r.update(func(s *Stats) { s.EventsDropped++ }) }}
}

// post queues an Event about ref, whose object is at generation gen.
func (w *eventWriter) post(ref *corev1.ObjectReference, gen int64, typ, reason, msg string) {
	now := metav1.Now()
	e := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", ref.Name, now.UnixNano()), Namespace: ref.Namespace,
			Annotations: map[string]string{generationAnnotation: strconv.FormatInt(gen, 10)}},
		InvolvedObject: *ref, Type: typ, Reason: reason, Message: msg, Count: 1,
		FirstTimestamp: now, LastTimestamp: now,
		Source: corev1.EventSource{Component: eventComponent}, ReportingController: eventComponent}
	w.mu.Lock()
	full := len(w.queue) >= maxQueuedEvents
	if !full {
		w.queue = append(w.queue, e)
	}
	w.mu.Unlock()
	if full {
		w.drop(e, "the queue is full")
		return
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run posts the queued Events until ctx ends; those still queued then are dropped.
func (w *eventWriter) run(ctx context.Context) {
	for {
		w.mu.Lock()
		var e *corev1.Event
		if len(w.queue) > 0 {
			e = w.queue[0]
			w.queue[0] = nil
			w.queue = w.queue[1:]
		}
		w.mu.Unlock()
		if e != nil {
			w.create(ctx, e)
			continue
		}
		select {
		case <-ctx.Done():
			w.mu.Lock()
			left := w.queue
			w.queue = nil
			w.mu.Unlock()
			for range left {
				w.dropped()
			}
			if len(left) > 0 {
				w.log.Warn("events not posted: the reporter stopped", "events", len(left))
			}
			return
		case <-w.wake:
		}
	}
}

// create posts e, and again after a pause while the API server cannot be reached.
func (w *eventWriter) create(ctx context.Context, e *corev1.Event) {
	for try := 1; ; try++ {
		_, err := w.sink.Events(e.Namespace).Create(ctx, e, metav1.CreateOptions{})
		if err == nil {
			return
		}
		if ctx.Err() != nil || try == eventTries || !passing(err) {
			w.drop(e, err.Error())
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(try) * time.Second):
		}
	}
}

// passing is whether err may pass by itself: the API server could not be reached, or it
// asked to come back later. Anything else it refused is refused again.
func passing(err error) bool {
	var status apierrors.APIStatus
	return !errors.As(err, &status) || apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTimeout(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err)
}

func (w *eventWriter) drop(e *corev1.Event, why string) {
	w.dropped()
	w.log.Warn("event not posted", "object", e.InvolvedObject.Kind+" "+e.Namespace+"/"+e.InvolvedObject.Name,
		"reason", e.Reason, "message", e.Message, "why", why)
}
