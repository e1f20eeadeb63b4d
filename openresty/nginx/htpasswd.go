package nginx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// writeHtpasswds writes the file of every htpasswd object that has its lines and whose
// file is not there yet, mode 0600 in a 0700 directory: nginx workers read it at each
// request, so it belongs to the workers' user when the master runs as root, and to nobody
// else. Files are named by content (see htpasswdFiles), so writing one never changes what
// a running nginx reads, and Render may call this before the conf that names it exists.
func (l layout) writeHtpasswds(hs []api.Htpasswd, user string) error {
	files, err := render.HtpasswdFiles(l.Layout, hs)
	if err != nil || len(hs) == 0 {
		return err
	}
	dir := l.Path("htpasswd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create htpasswd directory: %w", err)
	}
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		if uid, gid, err = workerUser(user); err != nil {
			return fmt.Errorf("htpasswd files: %w", err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			return fmt.Errorf("chown htpasswd directory: %w", err)
		}
		if err := traversable(filepath.Dir(dir), uid); err != nil {
			return fmt.Errorf("htpasswd files: nginx's workers %w", err)
		}
	}
	for _, h := range hs {
		if h.Content == "" {
			continue // a redacted copy: whoever has the lines writes the file
		}
		path := files[h.Name]
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, []byte(h.Content)) {
			continue
		}
		if err := writeFileAtomic(path, []byte(h.Content), 0o600); err != nil {
			return fmt.Errorf("write htpasswd %s: %w", h.Name, err)
		}
		if uid >= 0 {
			if err := os.Chown(path, uid, gid); err != nil {
				return fmt.Errorf("chown htpasswd %s: %w", filepath.Base(path), err)
			}
		}
	}
	return nil
}

// traversable checks that the user uid may pass through dir and every directory above
// it: workers open the htpasswd file at each request, and a data directory of mode 0700
// would answer every protected request 500. Failing here makes it an apply error that
// says what to change.
func traversable(dir string, uid int) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if ok && fi.Mode().Perm()&0o001 == 0 && int(st.Uid) != uid {
			return fmt.Errorf("cannot reach %s (mode %v): basic auth needs the prefix's parent directories searchable by it (chmod o+x)", d, fi.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}
