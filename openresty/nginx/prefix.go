package nginx

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"
)

// prepare creates the prefix's directories, writes the Lua modules, and makes the default
// server's self-signed certificate if there is none yet.
//
// The prefix is 0711: nginx workers, which run as an unprivileged user when the master
// runs as root, must traverse it to reach their temporary files, while nobody else may
// list it. Certificates, conf directories and the admin socket's directory are 0700, for
// the master's (and restyplane's) eyes only.
func (l layout) prepare() error {
	dirs := []struct {
		path string
		mode os.FileMode
	}{
		{l.String(), 0o711}, {l.confsDir(), 0o700}, {l.Path("certs"), 0o700},
		{l.Path("logs"), 0o755}, {l.Path("tmp"), 0o711}, {l.LuaDir(), 0o755},
		{l.socketDir(), 0o700},
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d.path, d.mode); err != nil {
			return fmt.Errorf("create %s: %w", d.path, err)
		}
		if err := os.Chmod(d.path, d.mode); err != nil {
			return fmt.Errorf("chmod %s: %w", d.path, err)
		}
	}
	if err := writeLua(l.LuaDir()); err != nil {
		return err
	}
	if err := writeNJS(l); err != nil {
		return err
	}
	if _, err := os.Stat(l.DefaultKey()); errors.Is(err, os.ErrNotExist) {
		return writeDefaultCert(l.DefaultCert(), l.DefaultKey())
	}
	return nil
}

// writeDefaultCert makes the certificate the default server presents over TLS to clients
// whose SNI names no server. It only has to let the handshake finish so that the client
// gets a 404; nobody is meant to trust it.
func writeDefaultCert(certPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate default key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return fmt.Errorf("generate serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "restyplane default server"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("create default certificate: %w", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("marshal default key: %w", err)
	}
	if err := writeFileAtomic(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return fmt.Errorf("write default key: %w", err)
	}
	if err := writeFileAtomic(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("write default certificate: %w", err)
	}
	return nil
}
