package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
)

// clientIP is the loopback address the tests' clients connect from: not the proxy's own
// 127.0.0.1, so that an upstream that names it was told the client's address, not the
// router's or nginx's.
const clientIP = "127.0.0.7"

// TestH2CBesideHTTP1OnOnePlainPort: a server that passes to a gRPC backend on the plain
// port makes that port take cleartext HTTP/2 with prior knowledge (a real gRPC call with
// insecure credentials) as well as HTTP/1.1, for its own and another server's locations,
// and both upstreams see the client's address and the port it connected to.
func TestH2CBesideHTTP1OnOnePlainPort(t *testing.T) {
	in := start(t)
	rec := &grpcRecorder{Server: health.NewServer(), seen: make(chan metadata.MD, 16)}
	rec.SetServingStatus("mixed", healthpb.HealthCheckResponse_SERVING)
	in.must("POST", "/api/v1/backends", withProtocol(backend("rpc", grpcServe(t, rec)), "grpc", nil))
	in.must("POST", "/api/v1/backends", backend("web", serveLoopback(t, addressEcho())))
	in.must("POST", "/api/v1/servers", server("mixed", "mixed.test",
		location("/grpc.health.v1.Health", "rpc"), location("/", "web")))
	in.must("POST", "/api/v1/servers", server("web", "web.test", location("/", "web")))
	in.waitSynced()
	proxy := strings.TrimPrefix(in.Proxy, "http://")
	_, port, _ := net.SplitHostPort(proxy)
	want := fmt.Sprintf("real=%s for=%s port=%s", clientIP, clientIP, port)

	for _, host := range []string{"mixed.test", "web.test"} {
		proto, body := http1From(t, proxy, host, "/page")
		if proto != "HTTP/1.1" || body != "HTTP/1.1 "+want {
			t.Fatalf("HTTP/1.1 GET %s/page: %s %q, want HTTP/1.1 %q", host, proto, body, "HTTP/1.1 "+want)
		}
	}

	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(clientIP)}}
		return d.DialContext(ctx, "tcp", addr)
	}
	conn, err := grpc.NewClient(proxy, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithAuthority("mixed.test"), grpc.WithContextDialer(dial))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "mixed"})
	if err != nil || res.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("gRPC health over h2c on the plain port: %v %v, want SERVING", res, err)
	}
	md := <-rec.seen
	got := fmt.Sprintf("real=%s for=%s port=%s", first(md, "x-real-ip"), first(md, "x-forwarded-for"), first(md, "x-forwarded-port"))
	if got != want {
		t.Fatalf("the gRPC upstream was told %q, want %q", got, want)
	}
}

// grpcRecorder is the health service that also hands on the metadata of each call.
type grpcRecorder struct {
	*health.Server
	seen chan metadata.MD
}

// Check records the call's metadata and answers as the health service does.
func (r *grpcRecorder) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	select {
	case r.seen <- md:
	default:
	}
	return r.Server.Check(ctx, req)
}

// grpcServe serves the health service h over h2c on loopback.
func grpcServe(t testing.TB, h healthpb.HealthServer) map[string]any {
	t.Helper()
	s := grpc.NewServer()
	healthpb.RegisterHealthServer(s, h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return map[string]any{"address": "127.0.0.1", "port": l.Addr().(*net.TCPAddr).Port}
}

// addressEcho answers with the protocol it was spoken to in and the client address and
// port the proxy named.
func addressEcho() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s real=%s for=%s port=%s\n", r.Proto, r.Header.Get("X-Real-IP"),
			r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Forwarded-Port"))
	})
}

// http1From sends an HTTP/1.1 GET to the proxy from clientIP and returns the answer's
// protocol and body.
func http1From(t testing.TB, proxy, host, path string) (string, string) {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(clientIP)}}).DialContext}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("GET", "http://"+proxy+path, nil)
	req.Host = host
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Proto, strings.TrimSpace(string(b))
}

// first is the first value of a metadata key, "" without one.
func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}
