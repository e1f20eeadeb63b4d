package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// AuditHoldRelease is the release of a hold: by the reconciler when the cluster asks for
// something else than what a rollback undid, or by an editor.
const AuditHoldRelease = "hold_release"

// Hold is an object that a rollback took back from what Kubernetes had written. Without
// it the reconciler's next sync would write the cluster's content again, and a change that
// an automatic rollback undid would go live again, and be rolled back, in a loop. The
// reconciler writes anything for the object but the rejected content: a hold lasts until
// the cluster asks for something else (its Ingress or route edited or deleted) or an
// editor releases it.
type Hold struct {
	Kind string `json:"kind" example:"server"`
	Name string `json:"name" example:"k8s.shop.example.com"`
	// Revision is the rollback that made the hold.
	Revision int64 `json:"revision" example:"42"`
	// Rejected is HoldDigest of the content the rollback undid: "" when Kubernetes had
	// deleted the object and the rollback made it again.
	Rejected string    `json:"rejected" example:"3f2a…"`
	Since    time.Time `json:"since"`
}

// Ref is the held object.
func (h Hold) Ref() Ref { return Ref{Kind: h.Kind, Name: h.Name} }

// HoldDigest is what a hold compares: a digest of the object m writes, its secret
// included, without its version and, for a backend, without its endpoints, which follow
// the cluster's Pods whatever is held; "" for a delete. The backend that a Gateway API
// rule of several backendRefs owns digests by its Split, the route's weights, without the
// errorWeight that the number of endpoints scales; one written before backends recorded
// their split keeps its endpoints, whose weights are all that says what it splits. The
// owner's UID is left out: an object deleted and made again with the same spec (a forced
// helm upgrade, a replace) asks for the same content. Lists that are empty and lists that
// are missing digest alike, as the store's encoding may turn one into the other.
func HoldDigest(m Mutation) string {
	k, ok := KindNamed(m.Kind)
	if m.Delete || !ok || !k.carried(&m) {
		return ""
	}
	if m.Kind == KindBackend {
		b := *m.Backend
		switch {
		case b.Split != nil:
			b.Endpoints, b.ErrorWeight = nil, 0
		case b.Source.Object == "":
			b.Endpoints = nil
		}
		m.Backend = &b
	}
	body, secret := k.Encode(m)
	raw, err := json.Marshal(body)
	if err != nil {
		return ""
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return ""
	}
	if obj, ok := v.(map[string]any); ok {
		if src, ok := obj["source"].(map[string]any); ok {
			delete(src, "uid") // the same spec, deleted and made again, is the same content
		}
	}
	canon, _ := json.Marshal(dropEmpty(v))
	sum := sha256.New()
	sum.Write(canon)
	sum.Write([]byte{0})
	sum.Write(secret)
	return hex.EncodeToString(sum.Sum(nil))
}

// dropEmpty removes nulls, empty lists and empty objects from a decoded JSON value.
func dropEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e = dropEmpty(e); e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			out = append(out, dropEmpty(e))
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}
