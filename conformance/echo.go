package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// echoBasicPkg is the suite's echo server, built from the module go.mod names (a tool
// there), so that the Pods answer exactly as the suite's image of that version would.
const echoBasicPkg = "sigs.k8s.io/gateway-api/conformance/echo-basic"

// echoImage reports whether a container's image is the suite's echo-basic, which the
// harness runs; it gives no other image a process (see podRunner).
func echoImage(image string) bool {
	return imageRepo(image) == "registry.k8s.io/gateway-api/echo-basic"
}

// imageRepo is an image reference without its tag or digest.
func imageRepo(image string) string {
	for i := len(image) - 1; i >= 0; i-- {
		switch image[i] {
		case '@':
			return imageRepo(image[:i])
		case ':':
			return image[:i]
		case '/':
			return image
		}
	}
	return image
}

var echoBuild struct {
	once      sync.Once
	dir, path string
	err       error
}

// echoBasic returns the echo-basic program, built on first use; Main removes it at the end.
func echoBasic() (string, error) {
	echoBuild.once.Do(func() {
		if echoBuild.dir, echoBuild.err = os.MkdirTemp("", "gwconf-echo-"); echoBuild.err != nil {
			return
		}
		echoBuild.path = filepath.Join(echoBuild.dir, "echo-basic")
		cmd := exec.Command("go", "build", "-o", echoBuild.path, echoBasicPkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			echoBuild.err = fmt.Errorf("go build %s: %v\n%s", echoBasicPkg, err, out)
		}
	})
	return echoBuild.path, echoBuild.err
}

// removeEchoBasic removes the built echo-basic.
func removeEchoBasic() {
	if echoBuild.dir != "" {
		os.RemoveAll(echoBuild.dir)
	}
}
