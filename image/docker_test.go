package image_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// testImage is what the tests build and remove: never the operator's restyplane:latest.
const (
	testImage = "restyplane-test"
	testTag   = "imagetest"
)

var built struct {
	once sync.Once
	err  error
}

// TestMain removes the test's image after every test ran; the root filesystem stays cached
// in .cache/image/, so the next run only rebuilds the binary and imports.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.err == nil {
		_ = exec.Command("docker", "rmi", testImage+":"+testTag, testImage+":latest").Run()
	}
	os.Exit(code)
}

// buildImage runs image/build.sh once per test binary, as `make image` does.
func buildImage(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatal("docker is not installed: the image tests need the Docker engine")
	}
	if out, err := exec.Command("docker", "version").CombinedOutput(); err != nil {
		t.Fatalf("the Docker engine does not answer (is dockerd running?): %v\n%s", err, out)
	}
	built.once.Do(func() {
		start := time.Now()
		cmd := exec.Command("bash", "build.sh", testTag)
		cmd.Env = append(os.Environ(), "IMAGE_NAME="+testImage)
		out, err := cmd.CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("image/build.sh: %v\n%s", err, out)
			return
		}
		t.Logf("image/build.sh took %s:\n%s", time.Since(start).Round(time.Second), out)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return testImage + ":" + testTag
}

// docker runs the docker command and returns its trimmed output; it fails the test when
// the command fails.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// lab is a Docker network of the test's own and the containers on it; the test's cleanup
// removes them, whether it passed or not.
type lab struct {
	t          *testing.T
	prefix     string
	network    string
	containers []string
}

func newLab(t *testing.T) *lab {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	l := &lab{t: t, prefix: "rp-imagetest-" + hex.EncodeToString(b)}
	l.network = l.prefix
	t.Cleanup(l.remove)
	docker(t, "network", "create", "--label", "restyplane-test=1", l.network)
	return l
}

// run starts a detached container on the lab's network named <prefix>-<name>.
func (l *lab) run(name string, args ...string) string {
	l.t.Helper()
	full := l.prefix + "-" + name
	l.containers = append(l.containers, full)
	docker(l.t, append([]string{"run", "-d", "--name", full, "--network", l.network,
		"--label", "restyplane-test=1"}, args...)...)
	return full
}

// ip is the container's address on the lab's network, which the host reaches directly.
func (l *lab) ip(container string) string {
	l.t.Helper()
	return docker(l.t, "inspect", "-f", fmt.Sprintf(`{{(index .NetworkSettings.Networks %q).IPAddress}}`, l.network), container)
}

func (l *lab) remove() {
	for _, c := range l.containers {
		if l.t.Failed() {
			out, _ := exec.Command("docker", "logs", c).CombinedOutput()
			l.t.Logf("logs of %s:\n%s", c, out)
		}
		if out, err := exec.Command("docker", "rm", "-f", "-v", c).CombinedOutput(); err != nil {
			l.t.Errorf("remove container %s: %v\n%s", c, err, out)
		}
	}
	if out, err := exec.Command("docker", "network", "rm", l.network).CombinedOutput(); err != nil {
		l.t.Errorf("remove network %s: %v\n%s", l.network, err, out)
	}
}

// waitHTTP polls url until check accepts the answer, or fails after the deadline with the
// last answer. A container that exited fails at once.
func (l *lab) waitHTTP(container, url, host string, within time.Duration, check func(int, string) bool) {
	l.t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(within)
	last := ""
	for {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			l.t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		if res, err := client.Do(req); err != nil {
			last = err.Error()
		} else {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if check(res.StatusCode, string(b)) {
				return
			}
			last = fmt.Sprintf("%d %s", res.StatusCode, b)
		}
		if state := docker(l.t, "inspect", "-f", "{{.State.Status}}", container); state != "running" {
			l.t.Fatalf("%s is %s while waiting for %s", container, state, url)
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("GET %s (Host %q): not as wanted within %s; last answer: %s", url, host, within, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
