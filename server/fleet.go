package server

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
)

// storeEvery is how often a heartbeat that changes nothing is written to the registry
// table anyway, so that last-seen survives a restart without a write per heartbeat.
const storeEvery = 30 * time.Second

// fleet is what the control plane knows of its agents in memory: which hold a feed stream
// now, and what each reported last. The instances table is the durable copy of the
// reports; connections exist only here.
type fleet struct {
	mu      sync.Mutex
	members map[string]*member

	propagation prometheus.Histogram
	feedBytes   *prometheus.CounterVec
	descApplied *prometheus.Desc
	descConn    *prometheus.Desc
	descLag     *prometheus.Desc
	head        func() int64
}

// member is one agent as last heard from.
type member struct {
	streams  int    // open feed streams; more than one only while a reconnect overlaps
	id       string // the identity of the agent whose streams they are (api.AgentIDHeader)
	lastSeen time.Time
	applied  int64
	rejected int64
	state    string
	version  string
	stored   time.Time // when its report last went into the instances table
	reported bool
	// cut is closed when the instance is revoked, which ends its feed streams.
	cut chan struct{}
	// reports and records limit how often it reports and how many records it sends.
	reports, records bucket
}

func newFleet(reg prometheus.Registerer, head func() int64) (*fleet, error) {
	f := &fleet{members: map[string]*member{}, head: head,
		propagation: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "restyplane_fleet_propagation_seconds",
			Help:    "Time from a revision's write to an agent's report that it applied it.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
		feedBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "restyplane_feed_bytes_sent_total",
			Help: "Bytes of feed lines (snapshots, deltas, keep-alives) sent, by instance.",
		}, []string{"instance"}),
		descApplied: prometheus.NewDesc("restyplane_instance_applied_revision",
			"The revision each agent reported it serves.", []string{"instance"}, nil),
		descConn: prometheus.NewDesc("restyplane_instance_connected",
			"1 while the agent holds a feed stream.", []string{"instance"}, nil),
		descLag: prometheus.NewDesc("restyplane_instance_lag_revisions",
			"How many revisions the head is ahead of what the agent serves.", []string{"instance"}, nil),
	}
	for _, c := range []prometheus.Collector{f.propagation, f.feedBytes, f} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register fleet metrics: %w", err)
		}
	}
	return f, nil
}

func (f *fleet) member(name string) *member {
	m := f.members[name]
	if m == nil {
		m = &member{}
		f.members[name] = m
	}
	return m
}

// connect counts a feed stream of the agent id under name, and refuses it while another
// agent holds one under that name (an agent of an older version sends no id). The channel
// it returns is closed when the instance is revoked.
func (f *fleet) connect(name, id string) (<-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.member(name)
	if err := m.holds(name, id); err != nil {
		return nil, err
	}
	m.streams++
	if id != "" {
		m.id = id
	}
	m.lastSeen = time.Now()
	if m.cut == nil {
		m.cut = make(chan struct{})
	}
	return m.cut, nil
}

// cut ends the feed streams of name: its credential was revoked.
func (f *fleet) cut(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := f.members[name]; m != nil && m.cut != nil {
		close(m.cut)
		m.cut = nil
	}
}

// holds refuses id when another agent holds a feed stream under name.
func (m *member) holds(name, id string) error {
	if m.streams > 0 && id != "" && m.id != "" && id != m.id {
		return api.Errorf(api.EConflict, "another agent holds a feed stream as %q now: give each agent its own --name", name)
	}
	return nil
}

// speaksFor refuses a report of id under name while another agent holds the name.
func (f *fleet) speaksFor(name, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.member(name).holds(name, id)
}

// disconnect ends one of name's feed streams.
func (f *fleet) disconnect(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.member(name)
	m.streams--
	m.lastSeen = time.Now()
}

// report takes an agent's report in and says whether it must be stored: when it carries
// apply records or changes what the registry holds, and otherwise every storeEvery.
func (f *fleet) report(name string, rep *api.Report, now time.Time) (store bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.member(name)
	store = len(rep.Applies) > 0 || m.applied != rep.Applied || m.rejected != rep.Rejected ||
		m.state != rep.State || m.version != rep.Version || now.Sub(m.stored) >= storeEvery
	m.lastSeen, m.applied, m.rejected, m.state, m.version = now, rep.Applied, rep.Rejected, rep.State, rep.Version
	m.reported = true
	return store
}

// stored notes that name's report is in the table as of at.
func (f *fleet) stored(name string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.member(name).stored = at
}

// fill completes a registry row with what memory knows: the connection, and a report
// newer than the row.
func (f *fleet) fill(in *api.Instance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.members[in.Name]
	if m == nil {
		return
	}
	in.Connected = m.streams > 0
	if m.lastSeen.After(in.LastSeen) {
		in.LastSeen = m.lastSeen.UTC()
	}
	if m.reported {
		in.Applied, in.Rejected, in.State, in.Version = m.applied, m.rejected, m.state, m.version
	}
}

// Describe implements prometheus.Collector for the per-instance gauges.
func (f *fleet) Describe(ch chan<- *prometheus.Desc) {
	ch <- f.descApplied
	ch <- f.descConn
	ch <- f.descLag
}

// Collect implements prometheus.Collector: one sample per instance heard from since the
// control plane started.
func (f *fleet) Collect(ch chan<- prometheus.Metric) {
	head := f.head()
	f.mu.Lock()
	defer f.mu.Unlock()
	names := make([]string, 0, len(f.members))
	for n := range f.members {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := f.members[n]
		conn := 0.0
		if m.streams > 0 {
			conn = 1
		}
		ch <- prometheus.MustNewConstMetric(f.descApplied, prometheus.GaugeValue, float64(m.applied), n)
		ch <- prometheus.MustNewConstMetric(f.descConn, prometheus.GaugeValue, conn, n)
		ch <- prometheus.MustNewConstMetric(f.descLag, prometheus.GaugeValue, float64(lag(head, m.applied)), n)
	}
}

// lag is how many revisions head is ahead of applied, never negative.
func lag(head, applied int64) int64 {
	if applied >= head {
		return 0
	}
	return head - applied
}

// connectedNames lists the instances that hold a feed stream now.
func (f *fleet) connectedNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n, m := range f.members {
		if m.streams > 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
