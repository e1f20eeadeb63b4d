package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// newConfDir writes conf and the files of certs into a new directory under confs/ and
// returns its path: the next numbered directory, or a throwaway one for a test alone.
func (l layout) newConfDir(conf []byte, certs []api.Certificate, throwaway bool) (string, error) {
	var dir string
	var err error
	if throwaway {
		dir, err = os.MkdirTemp(l.confsDir(), "test-")
	} else {
		dir = filepath.Join(l.confsDir(), strconv.Itoa(l.lastConfDir()+1))
		err = os.Mkdir(dir, 0o700)
	}
	if err != nil {
		return "", fmt.Errorf("create conf directory: %w", err)
	}
	if err := writeConfDir(dir, conf, certs); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

func writeConfDir(dir string, conf []byte, certs []api.Certificate) error {
	if err := os.MkdirAll(filepath.Join(dir, "certs"), 0o700); err != nil {
		return fmt.Errorf("create certs directory: %w", err)
	}
	for _, c := range certs {
		if c.Key == "" {
			// A certificate without its key cannot be written; if a server uses it,
			// nginx -t says which file is missing.
			continue
		}
		if err := api.ValidName("name", c.Name); err != nil {
			return fmt.Errorf("certificate %q: %w", c.Name, err)
		}
		crt, key := render.CertPaths(c.Name)
		if err := os.WriteFile(filepath.Join(dir, key), []byte(c.Key), 0o600); err != nil {
			return fmt.Errorf("write certificate key %s: %w", c.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, crt), []byte(c.Cert), 0o600); err != nil {
			return fmt.Errorf("write certificate %s: %w", c.Name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), conf, 0o600); err != nil {
		return fmt.Errorf("write nginx.conf: %w", err)
	}
	return nil
}

// confDirs lists the numbered conf directories, oldest first.
func (l layout) confDirs() []int {
	entries, _ := os.ReadDir(l.confsDir())
	var out []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

func (l layout) lastConfDir() int {
	dirs := l.confDirs()
	if len(dirs) == 0 {
		return 0
	}
	return dirs[len(dirs)-1]
}

// current returns the directory the conf symlink points at, "" if there is none.
func (l layout) current() string {
	target, err := os.Readlink(l.confLink())
	if err != nil {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(l.String(), target)
	}
	return target
}

// link points the conf symlink at dir in one rename, so that nginx, whenever it reads its
// conf, finds the old one or the new one.
func (l layout) link(dir string) error {
	rel, err := filepath.Rel(l.String(), dir)
	if err != nil {
		return err
	}
	tmp := l.Path(".conf-" + strconv.Itoa(os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err != nil {
		return fmt.Errorf("link conf: %w", err)
	}
	if err := os.Rename(tmp, l.confLink()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("link conf: %w", err)
	}
	return nil
}

// prune removes the numbered conf directories other than those in keep (the current and
// the previous one).
func (l layout) prune(keep ...string) {
	for _, n := range l.confDirs() {
		dir := filepath.Join(l.confsDir(), strconv.Itoa(n))
		if !containsPath(keep, dir) {
			os.RemoveAll(dir)
		}
	}
}

// pruneTests removes throwaway test directories, which only a crash leaves behind; it
// runs at start, before anything could be testing.
func (l layout) pruneTests() {
	entries, _ := os.ReadDir(l.confsDir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "test-") {
			os.RemoveAll(filepath.Join(l.confsDir(), e.Name()))
		}
	}
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if filepath.Clean(x) == filepath.Clean(p) {
			return true
		}
	}
	return false
}
