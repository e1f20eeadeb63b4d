package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// credentialFile keeps, in the data dir (0600), the credential the agent got for its
// instance when it joined: it sends that, never the join token, on the feed and in reports.
const credentialFile = "credential"

// historyFile keeps the id of the history the held state belongs to.
const historyFile = "history-id"

// loadCredential reads the credential kept in dir, "" when the agent has not joined.
func loadCredential(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, credentialFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("read the instance's credential: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// credential returns the instance's credential, joining the fleet with the join token
// first when the agent holds none.
func (f *Follower) credential(ctx context.Context) (string, error) {
	f.mu.Lock()
	cred := f.cred
	f.mu.Unlock()
	if cred != "" {
		return cred, nil
	}
	u := f.opts.ControlPlane + "/api/v1/instances/" + url.PathEscape(f.opts.Name) + "/join"
	req, err := http.NewRequestWithContext(ctx, "POST", u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+f.opts.Token)
	resp, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusCreated {
		return "", &answerError{status: resp.StatusCode, url: "POST " + req.URL.Redacted(), body: string(body), join: true}
	}
	var c api.Credential
	if err := json.Unmarshal(body, &c); err != nil || c.Secret == "" || c.Instance != f.opts.Name {
		return "", fmt.Errorf("join as %q: the control plane answered no credential for it", f.opts.Name)
	}
	if err := writeSecret(f.opts.DataDir, credentialFile, c.Secret); err != nil {
		return "", err
	}
	f.mu.Lock()
	f.cred = c.Secret
	f.mu.Unlock()
	f.log.Info("joined the fleet: the instance's credential is kept in the data dir", "name", f.opts.Name, "file", credentialFile)
	return c.Secret, nil
}

// dropCredential forgets a credential the control plane no longer knows (revoked, or its
// instance forgotten): the next attempt joins again, which a revoked instance is refused.
func (f *Follower) dropCredential(cred string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cred != cred || cred == "" {
		return
	}
	f.cred = ""
	if err := os.Remove(filepath.Join(f.opts.DataDir, credentialFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		f.log.Error("remove the refused credential", "err", err)
	}
	f.log.Warn("the control plane refuses this instance's credential (revoked, or the instance forgotten): joining again", "name", f.opts.Name)
}

// writeSecret writes a secret to name in dir atomically, readable by its owner alone.
func writeSecret(dir, name, secret string) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("keep %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.WriteString(secret + "\n")
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		return fmt.Errorf("keep %s: %w", name, err)
	}
	return nil
}
