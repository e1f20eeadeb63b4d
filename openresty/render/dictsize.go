package render

import (
	"net/netip"
	"regexp"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// DictSizes are the sizes, in MiB, of the shared dicts that hold the pushed backends and
// certificates. nginx.conf names them, so a change of size is a reload; and nginx starts
// a zone whose size changed empty, so the applier pushes everything again after it.
type DictSizes struct {
	Backends     int
	Certificates int
}

const (
	// dictFloorMiB is the smallest dict: small configs never change size, and the
	// zone's own bookkeeping (slab pages, the tree) fits.
	dictFloorMiB = 4
	// entryOverhead bounds what the dict adds to one entry besides key and value (the
	// node, the tree and queue links), slab rounding aside.
	entryOverhead = 128
	// objectOverhead bounds, per backend, the JSON keys and numbers the Lua side encodes
	// besides the strings counted one by one.
	objectOverhead = 512
	// affinityOverhead bounds the JSON keys, numbers and booleans of an affinity.
	affinityOverhead = 192
	// endpointBytes bounds one encoded endpoint besides its address.
	endpointBytes = 96
	// splitPartOverhead bounds the JSON keys, port and weight of one part of a split.
	splitPartOverhead = 80
)

// SizeDicts sizes the dicts for backends and certificates: each object is stored twice
// (body and version), the slab allocator rounds every entry up to a power of two (at most
// doubling it), and twice that again leaves room to grow. The result is rounded up to a
// power of two MiB with a floor, so that small changes keep the size, and the conf with it.
func SizeDicts(backends map[string]*api.Backend, certs map[string]*api.Certificate) DictSizes {
	var b, c int
	for name, be := range backends {
		b += backendBytes(name, be)
	}
	for name, ct := range certs {
		c += certificateBytes(name, ct)
	}
	return DictSizes{Backends: dictMiB(b), Certificates: dictMiB(c)}
}

// sizeConfig sizes the dicts for a config, as SizeDicts does for a state.
func sizeConfig(cfg api.Config) DictSizes {
	var b, c int
	for i := range cfg.Backends {
		b += backendBytes(cfg.Backends[i].Name, &cfg.Backends[i])
	}
	for i := range cfg.Certificates {
		c += certificateBytes(cfg.Certificates[i].Name, &cfg.Certificates[i])
	}
	return DictSizes{Backends: dictMiB(b), Certificates: dictMiB(c)}
}

// backendBytes bounds what one backend takes in its dict. An endpoint named by DNS may
// become up to MaxAddressesPerName addresses when it is resolved.
func backendBytes(name string, b *api.Backend) int {
	n := objectOverhead + 2*len(name) + len(b.HashBy) + len(b.LoadBalance)
	if a := b.Affinity; a != nil {
		n += affinityOverhead + len(a.Cookie) + len(a.Mode) + len(a.Path) + len(a.Domain) + len(a.SameSite)
	}
	if c := b.Canary; c != nil {
		n += len(c.Backend) + len(c.Header) + len(c.HeaderValue) + len(c.Cookie)
	}
	if s := b.Split; s != nil {
		for _, p := range s.Parts {
			n += splitPartOverhead + len(p.Namespace) + len(p.Service)
		}
	}
	for _, e := range b.Endpoints {
		addrs := 1
		if _, err := netip.ParseAddr(e.Address); err != nil {
			addrs = MaxAddressesPerName
		}
		n += addrs * (endpointBytes + len(e.Address) + 40) // 40: an address it resolves to
	}
	return entryBytes(name, n)
}

// certificateBytes bounds what one certificate takes in its dict (its body is JSON with
// the PEM chain and key, escaped newlines included).
func certificateBytes(name string, c *api.Certificate) int {
	return entryBytes(name, objectOverhead+len(name)+2*(len(c.Cert)+len(c.Key)))
}

// entryBytes is the dict space of one object: its body and its version entry, each with
// the dict's overhead and up to doubled by slab rounding.
func entryBytes(name string, body int) int {
	return 2*(entryOverhead+len(name)+body) + 2*(entryOverhead+len(name)+8)
}

// dictMiB is twice need, in MiB, rounded up to a power of two and at least the floor.
func dictMiB(need int) int {
	size := dictFloorMiB
	for size<<20 < 2*need {
		size *= 2
	}
	return size
}

var confDictRe = regexp.MustCompile(`(?m)^\s*lua_shared_dict restyplane_(backends|certificates) (\d+)m;$`)

// ConfDicts reads the dict sizes a rendered nginx.conf names; false when it names not both.
func ConfDicts(conf []byte) (DictSizes, bool) {
	var d DictSizes
	for _, m := range confDictRe.FindAllSubmatch(conf, -1) {
		n, err := strconv.Atoi(string(m[2]))
		if err != nil {
			return DictSizes{}, false
		}
		if string(m[1]) == "backends" {
			d.Backends = n
		} else {
			d.Certificates = n
		}
	}
	return d, d.Backends > 0 && d.Certificates > 0
}

// MaxAddressesPerName caps the endpoints one DNS name becomes, so that a name answering
// with thousands of records cannot blow up a backend.
const MaxAddressesPerName = 16
