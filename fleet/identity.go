package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// idFile keeps the identity in the data dir: a restarted agent is the same agent.
const idFile = "agent-id"

// loadID reads the agent's identity from dir, or makes one there.
func loadID(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, idFile))
	if err == nil {
		if id := strings.TrimSpace(string(b)); api.ValidAgentID(id) {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read agent id: %w", err)
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("make agent id: %w", err)
	}
	id := hex.EncodeToString(raw)
	if err := os.WriteFile(filepath.Join(dir, idFile), []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write agent id: %w", err)
	}
	return id, nil
}
