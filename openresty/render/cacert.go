package render

import (
	"github.com/restyplane/restyplane/api"
)

// CADir holds the CA bundles, each named by its contents (CAFile).
func (l Layout) CADir() string { return l.Path("ca") }

// CAFile is where a CA bundle version lives: <prefix>/ca/<sha256 of its PEM>.pem.
func (l Layout) CAFile(c *api.CACertificate) (string, error) {
	name, err := api.CACertificateFile(c)
	if err != nil {
		return "", err
	}
	return l.Path("ca", name), nil
}

// caFiles maps each CA bundle to the file nginx reads it from.
func caFiles(l Layout, cas []api.CACertificate) (map[string]string, error) {
	files := make(map[string]string, len(cas))
	for i := range cas {
		f, err := l.CAFile(&cas[i])
		if err != nil {
			return nil, err
		}
		files[cas[i].Name] = f
	}
	return files, nil
}
