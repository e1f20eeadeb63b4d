package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/reconciler/kubetest"
)

// grpcUpstreamEnv tells a re-executed test binary to serve gRPC instead of testing:
// "name=address:port".
const grpcUpstreamEnv = "RESTYPLANE_E2E_GRPC_UPSTREAM"

// grpcPort is the port the gRPC upstreams listen on, each on an address of its own.
const grpcPort = 50051

// echoMethod is the one method of the gRPC upstreams: it answers a StringValue with its
// name and the value, so that a test sees which upstream answered what.
const echoMethod = "/e2e.Echo/Say"

// echoService is e2e.Echo, written out instead of generated: two unary methods, Say and
// Other, over the well-known StringValue message, each answering with the upstream's name.
func echoService(name string) *grpc.ServiceDesc {
	h := func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := new(wrapperspb.StringValue)
		if err := dec(in); err != nil {
			return nil, err
		}
		return wrapperspb.String(name + " " + in.Value), nil
	}
	return &grpc.ServiceDesc{ServiceName: "e2e.Echo", HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Say", Handler: h}, {MethodName: "Other", Handler: h}}}
}

// TestGRPCUpstreamHelperProcess is not a test: it is the gRPC upstream that grpcUpstream
// runs inside a network namespace. Run normally, it returns.
func TestGRPCUpstreamHelperProcess(t *testing.T) {
	spec := os.Getenv(grpcUpstreamEnv)
	if spec == "" {
		return
	}
	name, addr, _ := strings.Cut(spec, "=")
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "listen on %s: %v\n", addr, err)
		os.Exit(2)
	}
	fmt.Println("listening")
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	s := grpc.NewServer()
	s.RegisterService(echoService(name), nil)
	fmt.Fprintf(os.Stderr, "serve: %v\n", s.Serve(l))
	os.Exit(2)
}

// grpcUpstream starts a gRPC upstream on the namespace's next address, on grpcPort, and
// stops it when the test ends; it returns the address.
func (n *netns) grpcUpstream(t testing.TB, name string) string {
	t.Helper()
	n.mu.Lock()
	addr := n.subnet + strconv.Itoa(n.next)
	n.next++
	n.mu.Unlock()
	n.ip("-n", n.name, "addr", "add", addr+"/24", "dev", n.nsIf)
	cmd := exec.Command("ip", "netns", "exec", n.name, n.exe, "-test.run=^TestGRPCUpstreamHelperProcess$", "-test.timeout=0", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s=%s:%d", grpcUpstreamEnv, name, addr, grpcPort))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start gRPC upstream %s: %v", name, err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-ready:
		if line != "listening" {
			t.Fatalf("gRPC upstream %s on %s did not start: %q %s", name, addr, line, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("gRPC upstream %s on %s not listening after 10s: %s", name, addr, stderr.String())
	}
	return addr
}

// testGRPCRoute: a GRPCRoute's method match sends a real gRPC call, over the HTTPS
// listener's TLS (HTTP/2), to the gRPC upstream, and another method to another one.
func testGRPCRoute(t *testing.T, k *kube) {
	ki := k.serveGateway(t)
	host := ki.host("grpc")
	ki.echoRoute(host)
	ki.httpGateway(kubetest.HTTPSListener("https", ki.tlsPort(), "", "grpc-tls"))
	call := grpcCaller(t, ki.TLS, host)
	ki.waitUntil("a gRPC call of "+echoMethod+" answered by upstream one", 30*time.Second, func() (bool, string) {
		got, err := call(echoMethod)
		return err == nil && got == "one hello", fmt.Sprintf("%q %v", got, err)
	})
	if got, err := call("/e2e.Echo/Other"); err != nil || got != "two hello" {
		t.Errorf("a call of /e2e.Echo/Other = %q %v; want upstream two's answer (its rule matches every method)", got, err)
	}
}

// echoRoute creates, in the test's namespace, gRPC upstreams "one" and "two" with their
// Services, a certificate Secret "grpc-tls" for host, and GRPCRoute "echo" on Gateway
// "gw" that sends e2e.Echo/Say to one and every other call to two.
func (ki *kubeInstance) echoRoute(host string) {
	t, k := ki.t, ki.k
	t.Helper()
	one, two := k.ns.grpcUpstream(t, "one"), k.ns.grpcUpstream(t, "two")
	for name, addr := range map[string]string{"one": one, "two": two} {
		k.c.Create(t, kubetest.Service(ki.ns, name, grpcPort), kubetest.EndpointSlice(ki.ns, name, name+"-1", grpcPort, kubetest.Ready(addr)...))
	}
	cert, key := kubetest.SelfSigned(t, host)
	k.c.Create(t, kubetest.TLSSecret(ki.ns, "grpc-tls", cert, key))
	port := gatewayv1.PortNumber(grpcPort)
	svc, say := "e2e.Echo", "Say"
	route := &gatewayv1.GRPCRoute{}
	route.Namespace, route.Name = ki.ns, "echo"
	route.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "gw"}}
	route.Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(host)}
	backend := func(name string) []gatewayv1.GRPCBackendRef {
		return []gatewayv1.GRPCBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Name: gatewayv1.ObjectName(name), Port: &port}}}}
	}
	route.Spec.Rules = []gatewayv1.GRPCRouteRule{
		{Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: &svc, Method: &say}}}, BackendRefs: backend("one")},
		{BackendRefs: backend("two")},
	}
	k.c.Create(t, route)
}

// grpcCaller returns a function that makes a unary call of a method with "hello", over TLS
// to addr (host:port) for host, and returns the answer. The connection closes when the
// test ends.
func grpcCaller(t testing.TB, addr, host string) func(method string) (string, error) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithAuthority(host),
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{ServerName: host, InsecureSkipVerify: true})))
	if err != nil {
		t.Fatalf("gRPC client: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return func(method string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out := new(wrapperspb.StringValue)
		err := conn.Invoke(ctx, method, wrapperspb.String("hello"), out)
		return out.Value, err
	}
}
