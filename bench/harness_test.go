package bench

import (
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/internal/rptest"
)

const adminToken = "rp_bench_admin_token_0123456789"

// TestMain removes the restyplane binary that every benchmark starts an instance of. With
// relaySocketEnv set, the binary is the side-by-side benchmark's relay instead.
func TestMain(m *testing.M) {
	if socket := os.Getenv(relaySocketEnv); socket != "" {
		runRelay(socket)
	}
	os.Exit(rptest.Main(m))
}

// instance is a running `restyplane serve` with its managed nginx.
type instance struct {
	*rptest.Process
	tb testing.TB
}

// start runs restyplane serve on free loopback ports and waits until nginx runs and the
// first apply is done. A benchmark that starts several instances stops each (Stop) before
// the next, so that they do not share the cores.
func start(tb testing.TB, extra ...string) *instance {
	tb.Helper()
	return startAs(tb, false, extra...)
}

// startAs is start, with restyplane in a session of its own when session is set, as a
// service manager starts a daemon (rptest.Options.Session).
func startAs(tb testing.TB, session bool, extra ...string) *instance {
	tb.Helper()
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	p := rptest.Start(tb, rptest.Options{Token: adminToken, Reason: "benchmark", Client: client, Session: session,
		Args: append([]string{"--log-level", "warn"}, extra...)})
	return &instance{Process: p, tb: tb}
}

// call sends a JSON request to the API as admin and decodes a 2xx answer into out; any
// other answer is an error that quotes it.
func (in *instance) call(method, path string, body, out any) (int, error) {
	code, data, err := in.Call(adminToken, method, path, body, out)
	if err == nil && (code < 200 || code > 299) {
		err = fmt.Errorf("%s %s = %d: %.300s", method, path, code, data)
	}
	return code, err
}

// must is call that fails the benchmark on any error or non-2xx answer; call it from the
// benchmark's goroutine only, as Fatal requires.
func (in *instance) must(method, path string, body, out any) {
	in.tb.Helper()
	if _, err := in.call(method, path, body, out); err != nil {
		in.tb.Fatal(err)
	}
}

// write sends a write and returns the revision it made.
func (in *instance) write(method, path string, body any) (int64, error) {
	var res api.WriteResult
	if _, err := in.call(method, path, body, &res); err != nil {
		return 0, err
	}
	if res.Revision == nil {
		return 0, fmt.Errorf("%s %s made no revision", method, path)
	}
	return res.Revision.ID, nil
}

// mustWrite is write that fails the benchmark on error; call it from the benchmark's
// goroutine only.
func (in *instance) mustWrite(method, path string, body any) int64 {
	in.tb.Helper()
	rev, err := in.write(method, path, body)
	if err != nil {
		in.tb.Fatal(err)
	}
	return rev
}

// status returns GET /api/v1/status.
func (in *instance) status() api.Status {
	in.tb.Helper()
	var st api.Status
	in.must("GET", "/api/v1/status", nil, &st)
	return st
}

// waitApplied waits until revision rev (or a later one) runs, failing after timeout or
// when it was rejected.
func (in *instance) waitApplied(rev int64, timeout time.Duration) api.Status {
	in.tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := in.status()
		if st.Applied >= rev {
			return st
		}
		if st.Rejected != 0 && st.Rejected >= rev {
			in.tb.Fatalf("revision %d was rejected: %+v", rev, st.LastApply)
		}
		if time.Now().After(deadline) {
			in.tb.Fatalf("revision %d not applied within %s: %+v", rev, timeout, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// applies returns the newest apply records, newest first (at most 1000).
func (in *instance) applies(limit int) []api.ApplyRecord {
	in.tb.Helper()
	var list struct{ Items []api.ApplyRecord }
	in.must("GET", fmt.Sprintf("/api/v1/applies?limit=%d", limit), nil, &list)
	return list.Items
}

// setMinReloadInterval changes the one setting the benchmarks tune.
func (in *instance) setMinReloadInterval(d string) int64 {
	in.tb.Helper()
	var set api.Settings
	in.must("GET", "/api/v1/settings", nil, &set)
	set.MinReloadInterval, set.Version = d, 0
	return in.mustWrite("PUT", "/api/v1/settings", set)
}
