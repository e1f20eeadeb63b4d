package nginx

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// workersRoot is where an instance run as root keeps what its workers open while they
// serve, when the workers cannot reach the prefix. Only root writes under /var/lib, so
// nobody can plant a symlink or a file there ahead of restyplane.
const workersRoot = "/var/lib/restyplane/workers"

// chooseWorkerDir returns the directory for the files nginx's workers open at request
// time (htpasswd files, the temporary files of request and response bodies), or "" for
// the prefix itself. Workers run as the worker user when the master runs as root, and
// the data directory that holds the prefix is 0700 (it holds the database and private
// keys): a basic-auth location would then answer 500 and a body too large for memory
// would fail. So the files go to a root-owned directory under workersRoot, named by the
// prefix, whenever that user cannot pass through every directory above the prefix.
func chooseWorkerDir(o Options) string {
	if os.Geteuid() != 0 {
		return "" // the workers run as restyplane's own user
	}
	uid, _, err := workerUser(o.User)
	if err != nil {
		return "" // writeHtpasswds reports the unknown user when a file is needed
	}
	if reachable(o.Prefix, uid) {
		return ""
	}
	sum := sha256.Sum256([]byte(o.Prefix))
	return filepath.Join(workersRoot, hex.EncodeToString(sum[:8]))
}

// workerUser looks up the user nginx's workers run as: name, or nginx's compiled-in
// default (NGX_USER, "nobody", which Debian's build keeps) when name is empty.
func workerUser(name string) (uid, gid int, err error) {
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return -1, -1, fmt.Errorf("look up nginx user %q: %w", name, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, nil
}

// reachable reports whether uid may pass through dir's nearest existing ancestor and
// every directory above it; the directories restyplane still has to make below it are
// made searchable (0711).
func reachable(dir string, uid int) bool {
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) || dir == filepath.Dir(dir) {
			return false
		}
		dir = filepath.Dir(dir)
	}
	return traversable(dir, uid) == nil
}

// prepareWorkerDir makes the worker directory and its chain under workersRoot, each
// 0711 and root's: the workers pass through, nobody lists them.
func prepareWorkerDir(dir string) error {
	for _, d := range []string{filepath.Dir(workersRoot), workersRoot, dir, filepath.Join(dir, "tmp"), filepath.Join(dir, "logs")} {
		if err := os.MkdirAll(d, 0o711); err != nil {
			return fmt.Errorf("create worker directory %s: %w", d, err)
		}
		if err := os.Chmod(d, 0o711); err != nil {
			return fmt.Errorf("chmod worker directory %s: %w", d, err)
		}
	}
	return nil
}

// workers is the layout of what the workers open: the worker directory's, or the prefix's.
func (in *Instance) workers() render.Layout { return in.opts.RenderOptions("").Workers() }

// prepare lays out the prefix and, when the workers have a directory of their own, that
// directory.
func (in *Instance) prepare() error {
	if err := in.l.prepare(); err != nil {
		return err
	}
	if in.opts.WorkerDir != "" {
		if err := prepareWorkerDir(in.opts.WorkerDir); err != nil {
			return err
		}
	}
	return prepareStreamDir(in.opts.RenderOptions("").Workers().StreamDir(), in.opts.User)
}

// prepareStreamDir makes the directory of TLS passthrough's unix sockets. nginx makes
// its sockets writable by all, and the HTTPS listener's believes the client address its
// PROXY protocol header names: so only the workers may reach them. Run as root, the
// directory is root's and the workers' group's, 0710; otherwise the workers are
// restyplane's own user, and it is 0700.
func prepareStreamDir(dir, user string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if os.Geteuid() != 0 {
		return os.Chmod(dir, 0o700)
	}
	_, gid, err := workerUser(user)
	if err != nil {
		return err
	}
	if err := os.Chown(dir, 0, gid); err != nil {
		return fmt.Errorf("chown %s: %w", dir, err)
	}
	return os.Chmod(dir, 0o710)
}

// writeWorkerFiles writes the htpasswd files cfg names into the worker directory, which it
// makes first: a conf's files exist before any conf names them.
func (in *Instance) writeWorkerFiles(cfg api.Config, o render.Options) error {
	if len(cfg.Htpasswds) > 0 {
		if o.WorkerDir != "" {
			if err := prepareWorkerDir(o.WorkerDir); err != nil {
				return err
			}
		} else if err := os.MkdirAll(o.Prefix, 0o711); err != nil {
			// Made before prepare, the prefix gets prepare's mode, not the htpasswd
			// directory's 0700 through MkdirAll.
			return fmt.Errorf("create prefix: %w", err)
		}
	}
	return layout{o.Workers()}.writeHtpasswds(cfg.Htpasswds, o.User)
}

// removeWorkerDir removes a worker directory under workersRoot once its nginx stopped:
// the next render writes the htpasswd files again, and the temporary files belong to
// requests that are over. A directory of the prefix's own is left to the prefix.
func removeWorkerDir(dir string) error {
	if dir == "" || filepath.Dir(dir) != workersRoot {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove worker directory: %w", err)
	}
	return nil
}
