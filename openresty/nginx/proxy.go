package nginx

import (
	"context"
	"encoding/json"
	"net"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// Render returns the nginx.conf for cfg on this instance, stamped with generation.
func (in *Instance) Render(cfg api.Config, generation string) ([]byte, error) {
	return in.RenderSized(cfg, render.DictSizes{}, generation)
}

// RenderSized is Render with the shared dicts sized as given, for a cfg rendered without
// its backends; zero sizes them from cfg's own. The files the conf names are written
// first, and the auth services' names resolved (see AuthAddr).
func (in *Instance) RenderSized(cfg api.Config, dicts render.DictSizes, generation string) ([]byte, error) {
	o := in.opts.RenderOptions(generation)
	o.Dicts = dicts
	o.AuthAddrs = resolveAuthHosts(net.DefaultResolver, cfg)
	if err := in.writeWorkerFiles(cfg, o); err != nil {
		return nil, err
	}
	if err := in.l.writeCACertificates(cfg.CACertificates); err != nil {
		return nil, err
	}
	if err := in.l.writeClientCerts(cfg); err != nil {
		return nil, err
	}
	return render.Conf(cfg, o)
}

// Push sends a dynamic update to the admin endpoint, stamped with version: certificates
// first, so that a backend never routes a TLS server whose certificate is not there yet.
// A full push replaces everything the instance holds.
func (in *Instance) Push(ctx context.Context, version int64, p render.Push) ([]api.SkippedObject, error) {
	var skipped []api.SkippedObject
	if p.Full || len(p.Certificates)+len(p.DeletedCerts) > 0 {
		s, err := in.admin.PushCertificates(ctx, version, p.Certificates, p.DeletedCerts, p.Full)
		if err != nil {
			return nil, err
		}
		skipped = append(skipped, s...)
	}
	if p.Full || len(p.Backends)+len(p.DeletedBackends) > 0 {
		var s []api.SkippedObject
		var err error
		if in.opts.CountersWithPush {
			var c json.RawMessage
			s, c, err = in.admin.PushBackendsAndCount(ctx, version, p.Backends, p.DeletedBackends, p.Full)
			in.keepCounters(version, c)
		} else {
			s, err = in.admin.PushBackends(ctx, version, p.Backends, p.DeletedBackends, p.Full)
		}
		if err != nil {
			return nil, err
		}
		skipped = append(skipped, s...)
	}
	// Policies last: a location that gains one reloads after this push (see apply), and
	// one whose lists change routes the same backends meanwhile.
	if p.Full || len(p.Policies)+len(p.DeletedPolicies) > 0 {
		s, err := in.admin.PushPolicies(ctx, version, p.Policies, p.DeletedPolicies, p.Full)
		if err != nil {
			return nil, err
		}
		skipped = append(skipped, s...)
	}
	return skipped, nil
}

// Counters returns the cumulative upstream request and 5xx counts per backend, and the
// distinct failing clients in epoch (see AdminClient.BackendCounters). With
// CountersWithPush, the first call after a backend push of version epoch returns what the
// push's answer carried, when that is fresh; every other call reads them.
func (in *Instance) Counters(ctx context.Context, epoch int64) (map[string]Counter, error) {
	in.mu.Lock()
	kept := in.pushCounters
	in.pushCounters = keptCounters{}
	in.mu.Unlock()
	if kept.counters != nil && kept.epoch == epoch && time.Since(kept.at) < pushCountersFresh {
		if c, err := DecodeCounters(kept.counters); err == nil {
			return c, nil
		}
	}
	return in.admin.BackendCounters(ctx, epoch)
}

// pushCountersFresh bounds the age of a push's counters that Counters returns: the report
// after an apply asks for them within milliseconds; a later reader gets a fresh count.
const pushCountersFresh = time.Second

// keptCounters are the backend counters a push's answer carried, for the next Counters.
type keptCounters struct {
	epoch    int64
	counters json.RawMessage // as the push answered them, decoded by Counters
	at       time.Time
}

// keepCounters holds a push's counters for the next Counters of epoch; nil drops any.
func (in *Instance) keepCounters(epoch int64, c json.RawMessage) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.pushCounters = keptCounters{epoch: epoch, counters: c, at: time.Now()}
}
