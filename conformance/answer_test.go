package conformance

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pb "sigs.k8s.io/gateway-api/conformance/echo-basic/grpcechoserver"
)

// podsAnswer checks that every echo Pod of the namespace answers on its own IP with its
// own name and namespace, in the protocol its environment asks for; and that a TLS
// backend serves HTTPS with the certificate of the Secret its volume names.
func podsAnswer(t *testing.T, c *Cluster, ns string) {
	t.Helper()
	for _, p := range podsOf(t, c, ns) {
		if !echoImage(p.Spec.Containers[0].Image) {
			continue
		}
		env := map[string]string{}
		for _, e := range p.Spec.Containers[0].Env {
			env[e.Name] = e.Value
		}
		var pod, gotNS string
		var err error
		switch {
		case env["GRPC_ECHO_SERVER"] != "":
			pod, gotNS, err = grpcWhoami(p.Status.PodIP)
		case env["TCP_ECHO_SERVER"] != "":
			pod, gotNS, err = tcpWhoami(p.Status.PodIP)
		default:
			pod, gotNS, err = httpWhoami("http", p.Status.PodIP, "3000")
		}
		if err != nil {
			t.Errorf("Pod %s/%s at %s: %v", ns, p.Name, p.Status.PodIP, err)
			continue
		}
		if pod != p.Name || gotNS != ns {
			t.Errorf("Pod %s/%s at %s answers as %s/%s", ns, p.Name, p.Status.PodIP, gotNS, pod)
		}
		if env["TLS_SERVER_CERT"] != "" && env["TCP_ECHO_SERVER"] == "" {
			if pod, _, err := httpWhoami("https", p.Status.PodIP, "8443"); err != nil || pod != p.Name {
				t.Errorf("Pod %s/%s over HTTPS: %q, %v", ns, p.Name, pod, err)
			}
		}
	}
}

// echoContext is the part of echo-basic's answers that names the Pod.
type echoContext struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
}

// httpWhoami asks echo-basic at ip:port who it is. Over HTTPS it wants the certificate
// for abc.example.com, which the suite's Secrets hold (its CA is not checked here).
func httpWhoami(scheme, ip, port string) (string, string, error) {
	tr := &http.Transport{TLSClientConfig: &tls.Config{ServerName: "abc.example.com", InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(scheme + "://" + net.JoinHostPort(ip, port) + "/whoami")
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if scheme == "https" {
		if cs := resp.TLS.PeerCertificates; len(cs) == 0 || cs[0].VerifyHostname("abc.example.com") != nil {
			return "", "", fmt.Errorf("the certificate is not the Secret's for abc.example.com")
		}
	}
	var ctx echoContext
	if err := json.NewDecoder(resp.Body).Decode(&ctx); err != nil {
		return "", "", fmt.Errorf("decode: %w", err)
	}
	return ctx.Pod, ctx.Namespace, nil
}

// grpcWhoami asks echo-basic's gRPC echo at ip:3000 who it is.
func grpcWhoami(ip string) (string, string, error) {
	conn, err := grpc.NewClient(net.JoinHostPort(ip, "3000"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := pb.NewGrpcEchoClient(conn).Echo(ctx, &pb.EchoRequest{})
	if err != nil {
		return "", "", err
	}
	pc := resp.GetAssertions().GetContext()
	return pc.GetPod(), pc.GetNamespace(), nil
}

// tcpWhoami asks echo-basic's TCP echo at ip:3000 who it is: it greets, then answers TEST
// with its context.
func tcpWhoami(ip string) (string, string, error) {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(ip, "3000"), 10*time.Second)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "TEST\n"); err != nil {
		return "", "", err
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "{"); i >= 0 {
			var a echoContext
			if err := json.Unmarshal([]byte(line[i:]), &a); err != nil {
				return "", "", fmt.Errorf("decode %q: %w", line, err)
			}
			return a.Pod, a.Namespace, nil
		}
	}
	return "", "", fmt.Errorf("no answer to TEST: %v", sc.Err())
}
