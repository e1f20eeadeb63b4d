package reconciler

import (
	"context"
	"log/slog"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/restyplane/restyplane/api"
)

// told is what the Events of one object said of one generation of it: whether it was
// applied, and its problems and notes, each as "reason: message" as the Event has it.
type told struct {
	uid     types.UID
	gen     int64
	applied bool
	said    map[string]bool
}

// telling is what a verdict on generation gen of the object uid says.
func telling(uid types.UID, gen int64, applied bool, problems, notes []Problem) told {
	t := told{uid: uid, gen: gen, applied: applied, said: map[string]bool{}}
	for _, pb := range append(append([]Problem(nil), problems...), notes...) {
		t.said[saidKey(pb.Reason, eventMessage(pb.Message))] = true
	}
	return t
}

// news is what now says that before, told by this reporter or one before it, did not
// say: Applied when the object became applied, and the problems and notes not said. Each
// generation is told afresh.
func news(before, now told) (applied bool, said map[string]bool) {
	if before.uid != now.uid || before.gen != now.gen {
		before = told{}
	}
	return now.applied && !before.applied, before.said
}

func saidKey(reason, msg string) string { return reason + ": " + msg }

// eventMessage is msg as an Event carries it.
func eventMessage(msg string) string { return api.Truncate(msg, maxEventMessage, "…") }

// maxRecalled bounds the Events recall reads, 500 at a time.
const maxRecalled, recallPage = 200_000, 500

// recalled is what restyplane's Events said of one object, as recall read them back.
type recalled struct {
	kind, namespace, name string
	told
}

// recall reads back, by object UID, what restyplane's Events still in the cluster said of
// the newest generation they speak of. A reporter that starts (after a restart, or on a
// new leader) with it does not say again what was said. The cluster keeps Events for an
// hour by default: what was said before is said again, and was gone from `kubectl get
// events` anyway. When the Events cannot be read, nothing is recalled, and what the
// cluster still holds is said once more.
func recall(ctx context.Context, client *clients, log *slog.Logger) map[types.UID]recalled {
	out := map[types.UID]recalled{}
	opts := metav1.ListOptions{FieldSelector: "source=" + eventComponent, Limit: recallPage}
	for n := 0; n < maxRecalled; n += recallPage {
		l, err := client.core.Events("").List(ctx, opts)
		if err != nil {
			log.Warn("read back restyplane's events; what they said may be said again", "err", err)
			return out
		}
		for i := range l.Items {
			remember(out, &l.Items[i])
		}
		if opts.Continue = l.Continue; opts.Continue == "" {
			break
		}
	}
	return out
}

// remember adds what e said to out, unless it speaks of an older generation than others.
func remember(out map[types.UID]recalled, e *corev1.Event) {
	gen, err := strconv.ParseInt(e.Annotations[generationAnnotation], 10, 64)
	o := e.InvolvedObject
	if err != nil || gen <= 0 || o.UID == "" {
		return // not a verdict on a generation (NotServed, or an Event of an older restyplane)
	}
	r, ok := out[o.UID]
	if ok && r.gen > gen {
		return
	}
	if !ok || r.gen < gen {
		r = recalled{kind: o.Kind, namespace: o.Namespace, name: o.Name,
			told: told{uid: o.UID, gen: gen, said: map[string]bool{}}}
	}
	if e.Reason == ReasonApplied {
		r.applied = true
	} else {
		r.said[saidKey(e.Reason, e.Message)] = true
	}
	out[o.UID] = r
}
