// Package fleet is the agent's side of the feed: it follows the control plane's stream of
// states, keeps the last applied state on disk, and reports back. The applier sees a
// Follower as its Store.
package fleet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/quietconn"
)

// Options configure a Follower.
type Options struct {
	// ControlPlane is the control plane's base URL (http:// or https://).
	ControlPlane string
	// Token is a join token's secret (role dataplane): the agent exchanges it once for its
	// instance's credential, which it keeps in DataDir.
	Token string
	// CAFile, when set, holds the PEM certificates that sign the control plane's.
	CAFile string
	// Name is the instance's name, as the control plane lists it.
	Name string
	// DataDir holds state.json, the last applied state.
	DataDir string
	// Version is the agent's restyplane version, sent with every report.
	Version string
	// ReadTimeout is how long a stream may stay silent before it counts as dead (the
	// control plane sends a keep-alive every 10 s); zero means 30 s.
	ReadTimeout time.Duration
	// ReportEvery is the heartbeat interval; zero means 5 s.
	ReportEvery time.Duration
	// ReportDelay is how long after an apply began its report goes out; zero means 50 ms,
	// negative means none. See reportLoop for why.
	ReportDelay time.Duration
	// MinBackoff and MaxBackoff bound the reconnect delays; zero means 200 ms and 10 s.
	MinBackoff, MaxBackoff time.Duration
	// TrustedNetwork allows an http:// control plane that is not on loopback: the join
	// token, the credential and the certificates' private keys then cross the network in
	// clear.
	TrustedNetwork bool
	// MaxLine caps one feed line, a snapshot included; zero means 256 MiB. A longer line
	// ends the stream: a control plane, or whatever answers in its place, cannot make the
	// agent hold more than this.
	MaxLine int
	Logger  *slog.Logger
}

// Reporter says what the instance runs, for the reports: the applier's status and the
// nginx counters. heartbeat is false for the report that follows an apply: that one is on
// the way of every change to the fleet view, so it may leave out what only the periodic
// reports need to carry (the per-server counters).
type Reporter func(ctx context.Context, heartbeat bool) api.Report

// Follower holds the newest state the control plane sent (or, until it answers, the last
// applied one from disk) and implements the applier's Store.
type Follower struct {
	opts Options
	id   string // this agent's identity (api.AgentIDHeader), from Load
	cred string // the instance's credential, from Load or the join; under mu
	// history names the history the held state belongs to (api.FeedMessage.History),
	// "" before the first state of a control plane that names it; under mu.
	history string
	client  *http.Client
	log     *slog.Logger

	mu sync.Mutex
	// head is the newest state held; it changes under mu.
	head   *api.Latest[*api.State]
	loaded chan struct{} // closed once a state is held
	recent map[int64]heldState
	// chain counts the snapshots taken: states of one chain follow from each other by
	// deltas; a snapshot (a new agent, or another history) starts a new one.
	chain    int64
	pending  []api.ApplyRecord
	dropped  int64 // how many records reports took off the front of pending
	reporter Reporter
	applied  int64
	relist   bool // the resume point is gone: ask for a snapshot

	kick    chan struct{} // asks the reporter loop for a report now
	persist chan persistItem
	disk    onDisk // persistLoop's alone

	// records counts the apply records taken; reportedUpTo is how many of them the last
	// finished report attempt carried, and reportDone signals each finished attempt: the
	// state of an apply is written to disk once its report went out (see persistLoop).
	records, reportedUpTo int64
	reportDone            chan struct{}
}

// New returns a follower; Load reads the state on disk, Run follows the feed.
func New(o Options) (*Follower, error) {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 30 * time.Second
	}
	if o.ReportEvery <= 0 {
		o.ReportEvery = 5 * time.Second
	}
	if o.ReportDelay == 0 {
		o.ReportDelay = 50 * time.Millisecond
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.ControlPlane = strings.TrimRight(o.ControlPlane, "/")
	if !strings.HasPrefix(o.ControlPlane, "http://") && !strings.HasPrefix(o.ControlPlane, "https://") {
		return nil, fmt.Errorf("control plane %q: want an http:// or https:// URL", o.ControlPlane)
	}
	if err := api.ValidName("name", o.Name); err != nil {
		return nil, fmt.Errorf("instance name %q: %w", o.Name, err)
	}
	if o.CAFile != "" && strings.HasPrefix(o.ControlPlane, "http://") {
		return nil, fmt.Errorf("a CA file is for an https:// control plane; over %s the token and the private keys would cross the network in clear", o.ControlPlane)
	}
	if err := clearTextAllowed(o.ControlPlane, o.TrustedNetwork); err != nil {
		return nil, err
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 256 << 20
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// The feed's lines and the reports wake the agent at every change: their socket's
	// reads and writes do not wake the runtime's monitor thread too (see quietconn).
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return quietconn.Wrap(c), nil
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", o.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &Follower{opts: o, client: &http.Client{Transport: tr}, log: o.Logger,
		head: api.NewLatest(api.NewState()), loaded: make(chan struct{}),
		recent: map[int64]heldState{}, kick: make(chan struct{}, 1), persist: make(chan persistItem, 1), reportDone: make(chan struct{}, 1)}, nil
}

// ReportDelay is how long after an apply began its report goes out; zero for none.
func (f *Follower) ReportDelay() time.Duration { return max(0, f.opts.ReportDelay) }

// Head returns the newest state held; an empty one at revision 0 before any.
func (f *Follower) Head() *api.State { return f.head.Get() }

// HeadChanged returns a channel closed at the next new state.
func (f *Follower) HeadChanged() <-chan struct{} { return f.head.Changed() }

// Loaded is closed once the follower holds a state, from disk or from the feed.
func (f *Follower) Loaded() <-chan struct{} { return f.loaded }

// authorize sets a request's credential and, once Load read it, the agent's identity.
func (f *Follower) authorize(req *http.Request, cred string) {
	req.Header.Set("Authorization", "Bearer "+cred)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.id != "" {
		req.Header.Set(api.AgentIDHeader, f.id)
	}
}

// heldState is a state the feed gave, with the chain it belongs to.
type heldState struct {
	st    *api.State
	chain int64
}

// setHead installs a new state and wakes the applier; snapshot says it starts a chain.
func (f *Follower) setHead(s *api.State, snapshot bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if snapshot {
		f.chain++
	}
	f.relist = false
	f.recent[s.Revision] = heldState{st: s, chain: f.chain}
	f.head.Publish(s)
	select {
	case <-f.loaded:
	default:
		close(f.loaded)
	}
}

// RecordApply keeps the record for the next report; a success makes that revision's state
// the one kept on disk.
func (f *Follower) RecordApply(ctx context.Context, rec *api.ApplyRecord) error {
	f.mu.Lock()
	if len(f.pending) < 1000 {
		r := *rec
		r.Skipped = append([]api.SkippedObject(nil), rec.Skipped...)
		r.Clamp()
		f.pending = append(f.pending, r)
	}
	f.records++
	seq := f.records
	var held heldState
	if rec.Outcome == api.OutcomeSuccess {
		held = f.recent[rec.Revision]
		f.applied = rec.Revision
		for rev := range f.recent {
			if rev < rec.Revision {
				delete(f.recent, rev)
			}
		}
	}
	f.mu.Unlock()
	if held.st != nil {
		select { // the newest state wins: a slower disk never holds the applier up
		case <-f.persist:
		default:
		}
		f.persist <- persistItem{held: held, seq: seq}
	}
	select {
	case f.kick <- struct{}{}:
	default:
	}
	return nil
}

// SetReporter sets what the reports say about the instance.
func (f *Follower) SetReporter(r Reporter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reporter = r
}

// clearTextAllowed refuses an http:// control plane that is not on loopback unless the
// network is trusted: the join token, the credential and the private keys would cross it
// in clear.
func clearTextAllowed(controlPlane string, trusted bool) error {
	if !strings.HasPrefix(controlPlane, "http://") || trusted {
		return nil
	}
	u, err := url.Parse(controlPlane)
	if err != nil {
		return fmt.Errorf("control plane %q: %w", controlPlane, err)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("control plane %s is plain http:// off this machine: the token, the instance's credential and the certificates' private keys would cross the network in clear; use https:// (with --ca-file), or --trusted-network if the network is yours alone", controlPlane)
}
