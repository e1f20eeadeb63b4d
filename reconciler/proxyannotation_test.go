package reconciler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restyplane/restyplane/api"
)

// TestParseProxyAnnotations: the body, retry, errors and matching annotations (policies)
// become api policies, and a bad value refuses the Ingress naming the annotation.
func TestParseProxyAnnotations(t *testing.T) {
	a, err := parseAnnotations(map[string]string{
		nginxPrefix + "proxy-body-size": "10m", nginxPrefix + "client-body-buffer-size": "16k",
		nginxPrefix + "proxy-buffering": "off", nginxPrefix + "proxy-buffers-number": "8",
		nginxPrefix + "proxy-request-buffering": "off", nginxPrefix + "proxy-max-temp-file-size": "0",
		nginxPrefix + "proxy-next-upstream": "error timeout http_502", nginxPrefix + "proxy-next-upstream-tries": "3",
		nginxPrefix + "proxy-next-upstream-timeout": "5", nginxPrefix + "custom-http-errors": "404, 503",
		nginxPrefix + "default-backend": "pages", nginxPrefix + "use-regex": "true",
		ownPrefix + "server-alias": "www.example.com, Old.example.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := proxyAnnotations{
		proxy: &api.ProxyPolicy{BodySize: "10m", ClientBodyBufferSize: "16k", Buffering: "off", BufferSize: "4k",
			BuffersNumber: 8, RequestBuffering: "off", MaxTempFileSize: "0"},
		retry:      &api.RetryPolicy{NextUpstream: []string{"error", "timeout", "http_502"}, Tries: 3, Timeout: "5s"},
		errorCodes: []int{404, 503}, errorService: "pages", useRegex: true,
		aliases: []string{"www.example.com", "old.example.com"},
	}
	if diff := cmp.Diff(want, a.pol, cmp.AllowUnexported(proxyAnnotations{})); diff != "" {
		t.Fatalf("policies (-want +got):\n%s", diff)
	}
	if a, err := parseAnnotations(map[string]string{nginxPrefix + "default-backend": "pages"}); err != nil ||
		!cmp.Equal(a.pol.errorCodes, defaultBackendCodes) {
		t.Fatalf("default-backend alone: %v %v, want codes %v", a.pol.errorCodes, err, defaultBackendCodes)
	}
	for name, v := range map[string]string{
		"proxy-body-size": "10 m", "proxy-buffers-number": "2", "proxy-max-temp-file-size": "1k",
		"proxy-next-upstream": "error http_418", "proxy-next-upstream-tries": "12",
		"proxy-next-upstream-timeout": "soon", "custom-http-errors": "404,nope", "default-backend": "other/pages",
		"use-regex": "yes", "server-alias": "bad_host",
	} {
		if _, err := parseAnnotations(map[string]string{nginxPrefix + name: v}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %q gives %v, want an error naming it", name, v, err)
		}
	}
}
