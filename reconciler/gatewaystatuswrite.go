package reconciler

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// statusTries bounds the writes of one status that meet a newer version of their object
// (409 Conflict); each after the first starts from the object read fresh.
const statusTries = 5

// statusObject is a Gateway API object whose status the reporter writes.
type statusObject[T any] interface {
	metav1.Object
	DeepCopy() T
}

// writeStatus brings the status of cached, the informer's copy of an object, to what set
// makes of it, and reports whether it wrote. set changes an object's status in place and
// reports whether that changed anything.
//
// It writes a copy of cached, with its resourceVersion, so that bringing a route's status
// up to date costs one request and a status already right costs none. The API server
// refuses a copy older than what it holds (409 Conflict): only then is the object read
// fresh, and written again, at most statusTries times. The informer's copy is trusted to
// be already right only when it holds the reporter's own last write of the object (or
// there was none): otherwise it may show an older status that happens to be the wanted
// one (a Gateway Programmed at an earlier revision and Pending since, whose copy still
// shows it Programmed), and the object is read fresh to compare.
func writeStatus[T statusObject[T]](ctx context.Context, p *gatewayReporter, key string, cached T,
	get func(context.Context, string, metav1.GetOptions) (T, error),
	update func(context.Context, T, metav1.UpdateOptions) (T, error),
	set func(T) bool) (bool, error) {
	cur, current := cached.DeepCopy(), p.holdsLastWrite(key, cached.GetResourceVersion())
	backoff := retry.DefaultRetry
	for try := 1; ; try++ {
		if set(cur) {
			out, err := update(ctx, cur, metav1.UpdateOptions{})
			switch {
			case err == nil:
				p.wroteVersion(key, out.GetResourceVersion())
				return true, nil
			case apierrors.IsNotFound(err):
				return false, nil // deleted: the next report no longer holds it
			case !apierrors.IsConflict(err) || try == statusTries:
				p.wroteVersion(key, "") // it may have been written: trust no copy until the next write
				return false, err
			}
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(backoff.Step()):
			}
		} else if current {
			return false, nil
		}
		fresh, err := get(ctx, cached.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if fresh.GetUID() != cached.GetUID() {
			return false, nil // made again under the same name: a report of its own follows
		}
		cur, current = fresh, true
	}
}

// holdsLastWrite reports whether an informer's copy of resourceVersion rv holds the
// reporter's last write of key, or the reporter has not written key since it started.
func (p *gatewayReporter) holdsLastWrite(key, rv string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.versions[key]
	return !ok || v == rv
}

// wroteVersion records the resourceVersion of the reporter's last write of key; "" when
// the write's outcome is unknown.
func (p *gatewayReporter) wroteVersion(key, rv string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.versions[key] = rv
}
