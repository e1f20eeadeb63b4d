package image_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	adminToken     = "rp_imagetest-admin-0123456789abcdef"
	dataplaneToken = "rp_imagetest-dataplane-0123456789abcdef"
	upstreamAnswer = "upstream says hello"
)

// upstreamConf makes nginx from the image a real upstream that runs as the image's user:
// everything it writes goes to /tmp.
const upstreamConf = `daemon off; pid /tmp/up.pid; error_log stderr;
events {}
http {
    access_log off;
    client_body_temp_path /tmp/cb; proxy_temp_path /tmp/px; fastcgi_temp_path /tmp/fc;
    uwsgi_temp_path /tmp/uw; scgi_temp_path /tmp/sc;
    server { listen 8080; location / { return 200 "` + upstreamAnswer + `\n"; } }
}
`

// startUpstream runs the upstream from the same image and returns its address.
func startUpstream(t *testing.T, l *lab, image string) string {
	t.Helper()
	c := l.run("upstream", "--entrypoint", "/bin/sh", "-e", "CONF="+upstreamConf, image,
		"-c", `printf '%s' "$CONF" > /tmp/up.conf && exec /usr/sbin/nginx -p /tmp/ -e stderr -c /tmp/up.conf`)
	ip := l.ip(c)
	l.waitHTTP(c, "http://"+ip+":8080/", "", 30*time.Second, func(code int, body string) bool {
		return code == http.StatusOK && strings.Contains(body, upstreamAnswer)
	})
	return ip
}

// startControlPlane runs `restyplane serve` with a read-only root filesystem, its data on a
// volume and /tmp on a tmpfs, as deploy/ runs it, and waits for /readyz.
func startControlPlane(t *testing.T, l *lab, image string, args ...string) (name, ip string) {
	t.Helper()
	name = l.run("control-plane", append([]string{"--read-only", "--tmpfs", "/tmp", "-v", "/var/lib/restyplane",
		"-e", "RESTYPLANE_ADMIN_TOKEN=" + adminToken, "-e", "RESTYPLANE_DATAPLANE_TOKEN=" + dataplaneToken,
		"-e", "RESTYPLANE_TRUSTED_NETWORK=true", // the test's own Docker network
		image, "serve"}, args...)...)
	ip = l.ip(name)
	l.waitHTTP(name, "http://"+ip+":9180/readyz", "", 60*time.Second, func(code int, _ string) bool { return code == http.StatusOK })
	return name, ip
}

// configure creates a backend on the upstream and a server for image.test through the API.
func configure(t *testing.T, api, upstream string) {
	t.Helper()
	call(t, api, "POST", "/api/v1/backends", map[string]any{"name": "upstream",
		"endpoints": []map[string]any{{"address": upstream, "port": 8080}}})
	call(t, api, "POST", "/api/v1/servers", map[string]any{"name": "image", "hostnames": []string{"image.test"},
		"locations": []map[string]any{{"path": "/", "backend": "upstream"}}})
}

func call(t *testing.T, api, method, path string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, api+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Change-Reason", "image test")
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s = %d %s", method, path, res.StatusCode, out)
	}
}

// reachesUpstream waits until a request for image.test through the proxy at addr is
// answered by the upstream.
func reachesUpstream(t *testing.T, l *lab, container, addr string) {
	t.Helper()
	l.waitHTTP(container, "http://"+addr+"/", "image.test", 60*time.Second, func(code int, body string) bool {
		return code == http.StatusOK && strings.Contains(body, upstreamAnswer)
	})
}

// processes returns each process of the container as "name uid", read from /proc inside
// it (the image has no ps).
func processes(t *testing.T, container string) []string {
	t.Helper()
	out := docker(t, "exec", container, "/bin/sh", "-c", `cd /proc && for p in [0-9]*; do
		[ -r "$p/status" ] && printf '%s %s\n' "$(grep '^Name:' "$p/status" | cut -f2)" "$(grep '^Uid:' "$p/status" | cut -f2)"
	done; true`)
	return strings.Split(out, "\n")
}

// nonRoot checks that every process of the container runs as the image's user, and that
// the wanted ones run at all.
func nonRoot(t *testing.T, container string, want ...string) {
	t.Helper()
	ps := processes(t, container)
	seen := map[string]bool{}
	for _, p := range ps {
		f := strings.Fields(p)
		if len(f) != 2 {
			continue
		}
		seen[f[0]] = true
		if f[1] != "10001" {
			t.Errorf("%s: process %s runs as uid %s, want 10001", container, f[0], f[1])
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("%s: no %s process among %q", container, w, ps)
		}
	}
}

// TestImageServe starts the control plane from the image with its managed OpenResty: a
// server made through the API serves the upstream through the container's nginx, every
// process runs as the unprivileged user, and the admin token from the environment is never
// printed.
func TestImageServe(t *testing.T) {
	image := buildImage(t)
	l := newLab(t)
	upstream := startUpstream(t, l, image)
	cp, ip := startControlPlane(t, l, image)
	configure(t, "http://"+ip+":9180", upstream)
	reachesUpstream(t, l, cp, ip+":8080")
	nonRoot(t, cp, "restyplane", "nginx")
	if logs := docker(t, "logs", cp); strings.Contains(logs, adminToken) || strings.Contains(logs, "rp_") {
		t.Errorf("the control plane printed a token into its log:\n%s", logs)
	}
	if got := docker(t, "run", "--rm", image, "version"); !strings.HasPrefix(got, "restyplane "+testTag) {
		t.Errorf("restyplane version in the image = %q, want the version build.sh was given (%s)", got, testTag)
	}
}

// TestImageAgent starts both roles from the image: a control plane that only serves the
// API and the feed, and an agent with a read-only root filesystem that follows it with the
// dataplane token. The agent becomes ready, and a server made through the control plane's
// API serves the upstream through the agent's nginx.
func TestImageAgent(t *testing.T) {
	image := buildImage(t)
	l := newLab(t)
	upstream := startUpstream(t, l, image)
	cp, cpIP := startControlPlane(t, l, image, "--openresty", "off")
	agent := l.run("agent", "--read-only", "--tmpfs", "/tmp", "-v", "/var/lib/restyplane",
		"-e", "RESTYPLANE_CONTROL_PLANE=http://"+cp+":9180", "-e", "RESTYPLANE_TRUSTED_NETWORK=true", "-e", "RESTYPLANE_TOKEN="+dataplaneToken,
		"-e", "RESTYPLANE_NAME=image-agent", "-e", "RESTYPLANE_LISTEN=0.0.0.0:9181", image, "agent")
	agentIP := l.ip(agent)
	configure(t, "http://"+cpIP+":9180", upstream)
	l.waitHTTP(agent, "http://"+agentIP+":9181/readyz", "", 60*time.Second, func(code int, _ string) bool { return code == http.StatusOK })
	reachesUpstream(t, l, agent, agentIP+":8080")
	nonRoot(t, agent, "restyplane", "nginx")
	nonRoot(t, cp, "restyplane")
	if logs := docker(t, "logs", agent); strings.Contains(logs, dataplaneToken) {
		t.Errorf("the agent printed its token into its log:\n%s", logs)
	}
}
