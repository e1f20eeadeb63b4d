package conformance

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// kubeletPort is the port of the node's kubelet API, which the API server reaches at the
// node's InternalIP for a Pod's log (kwok writes it into the node's daemonEndpoints).
const kubeletPort = 10250

// logServer is the part of a kubelet's API the suite uses: a Pod's log, GET
// /containerLogs/{namespace}/{pod}/{container} with sinceTime, sinceSeconds, tailLines and
// timestamps, which the API server's pods/log forwards. The suite's mirror tests read
// the mirrored backend's log for the request.
type logServer struct {
	srv *http.Server
	// logOf returns the log file of the Pod namespace/name.
	logOf func(key string) (string, bool)
}

// startLogServer serves Pods' logs over HTTPS on ip:kubeletPort, with a certificate of its
// own (the API server checks none when it has no kubelet CA, as envtest's has not).
func startLogServer(ip net.IP, logOf func(string) (string, bool)) (*logServer, error) {
	cert, err := selfSigned(ip)
	if err != nil {
		return nil, err
	}
	l, err := tls.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(kubeletPort)),
		&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, fmt.Errorf("the node's log endpoint: %w", err)
	}
	s := &logServer{logOf: logOf}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

func (s *logServer) close() { _ = s.srv.Close() }

func (s *logServer) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/containerLogs/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	path, ok := s.logOf(parts[0] + "/" + parts[1])
	if !ok {
		http.Error(w, "no log for pod "+parts[0]+"/"+parts[1], http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			http.Error(w, "sinceTime: "+err.Error(), http.StatusBadRequest)
			return
		}
		since = t
	}
	if n, err := strconv.Atoi(q.Get("sinceSeconds")); err == nil {
		if t := time.Now().Add(-time.Duration(n) * time.Second); t.After(since) {
			since = t
		}
	}
	tail, _ := strconv.Atoi(q.Get("tailLines"))
	lines, err := readCRILog(path, since, tail)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	for _, l := range lines {
		if q.Get("timestamps") == "true" {
			fmt.Fprint(w, l.at.Format(time.RFC3339Nano)+" ")
		}
		fmt.Fprintln(w, l.text)
	}
}

// selfSigned makes a certificate for ip, valid for a day.
func selfSigned(ip net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kwok-node"},
		IPAddresses: []net.IP{ip}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
