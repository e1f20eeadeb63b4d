package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/internal/rptest"
)

// TestServeBesideNginxTakesOneCore: serve with its local nginx runs Go code on one core,
// leaving the others to nginx's workers, unless GOMAXPROCS says otherwise.
func TestServeBesideNginxTakesOneCore(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{{nil, "1"}, {[]string{"GOMAXPROCS=2"}, "2"}} {
		p := rptest.Start(t, rptest.Options{Token: adminToken, Reason: "e2e test", Env: c.env})
		if got := gauge(t, p.API+"/metrics", "go_sched_gomaxprocs_threads"); got != c.want {
			t.Errorf("serve with a managed nginx, environment %q: GOMAXPROCS %s, want %s", c.env, got, c.want)
		}
		p.Stop()
	}
}

// gauge reads one unlabelled metric's value from a Prometheus text page.
func gauge(t *testing.T, url, name string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	t.Fatalf("%s lacks %s", url, name)
	return ""
}
