package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/internal/rptest"
)

// plainProxyConf is plain nginx, without Lua, serving the benchmark's three routes as
// restyplane renders them for a fresh install's settings: two workers, the same http
// settings, log format and buffered access log, the same request headers to the upstream,
// a static upstream block with the same keepalive pool. The policy route does with
// nginx's own modules what restyplane's Lua does: allow/deny, limit_req (with restyplane's
// burst of five seconds, nodelay) and CORS headers for the one origin. Its verbs: the
// directory, the HTTP and HTTPS listen addresses, the origin, the certificate and key
// files, the allowed CIDRs as directives, the rate and the burst.
const plainProxyConf = `daemon off;
master_process on;
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
pcre_jit on;
events {
    worker_connections 4096;
}
http {
    client_body_temp_path %[1]s/tmp/body;
    proxy_temp_path %[1]s/tmp/proxy;
    fastcgi_temp_path %[1]s/tmp/fastcgi;
    uwsgi_temp_path %[1]s/tmp/uwsgi;
    scgi_temp_path %[1]s/tmp/scgi;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    server_tokens off;
    uninitialized_variable_warn off;
    keepalive_timeout 75s;
    keepalive_requests 1000;
    client_max_body_size 1m;
    proxy_http_version 1.1;
    proxy_max_temp_file_size 64m;
    proxy_connect_timeout 5s;
    proxy_send_timeout 60s;
    proxy_read_timeout 60s;
    proxy_next_upstream error timeout;
    proxy_next_upstream_tries 0;
    gzip on;
    gzip_proxied any;
    gzip_types application/json text/css text/plain application/javascript;
    log_format json escape=json '{"time":"$time_iso8601","remote":"$remote_addr","host":"$host","server":"$rp_server","method":"$request_method","uri":"$request_uri","status":$status,"bytes":$body_bytes_sent,"duration":$request_time,"backend":"$rp_backend","upstream":"$upstream_addr","upstreamStatus":"$upstream_status","upstreamTime":"$upstream_response_time","referer":"$http_referer","userAgent":"$http_user_agent"}';
    access_log %[1]s/access.log json buffer=64k flush=1s;
    map $http_upgrade $rp_connection {
        default upgrade;
        "" "";
    }
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:plain_ssl:10m;
    ssl_session_timeout 1h;
    limit_req_zone $binary_remote_addr zone=plain_rate:16m rate=%[8]dr/s;
    map $http_origin $cors_origin {
        default "";
        "` + costOrigin + `" $http_origin;
    }
    map $http_origin $cors_vary {
        default "";
        "` + costOrigin + `" Origin;
    }
    map $http_origin $cors_credentials {
        default "";
        "` + costOrigin + `" true;
    }
    upstream origin {
        server %[4]s;
        keepalive 64;
    }
    server {
        listen %[2]s default_server;
        set $rp_server "";
        set $rp_backend "";
        location / {
            return 404;
        }
    }
    server {
        listen %[2]s;
        server_name route.cost.test;
        set $rp_server route;
        location / {
            set $rp_backend origin;
` + plainProxyPass + `        }
    }
    server {
        listen %[2]s;
        server_name policy.cost.test;
        set $rp_server policy;
        location / {
            set $rp_backend origin;
%[7]s            deny all;
            limit_req zone=plain_rate burst=%[9]d nodelay;
            limit_req_status 429;
            proxy_hide_header Access-Control-Allow-Origin;
            proxy_hide_header Access-Control-Allow-Credentials;
            proxy_hide_header Access-Control-Allow-Methods;
            proxy_hide_header Access-Control-Allow-Headers;
            proxy_hide_header Access-Control-Expose-Headers;
            proxy_hide_header Access-Control-Max-Age;
            add_header Access-Control-Allow-Origin $cors_origin always;
            add_header Access-Control-Allow-Credentials $cors_credentials always;
            add_header Vary $cors_vary always;
` + plainProxyPass + `        }
    }
    server {
        listen %[2]s;
        listen %[3]s ssl;
        server_name tls.cost.test;
        ssl_certificate %[5]s;
        ssl_certificate_key %[6]s;
        set $rp_server tls;
        location / {
            set $rp_backend origin;
` + plainProxyPass + `        }
    }
}
`

// plainProxyPass is what each proxied location of plainProxyConf sends upstream.
const plainProxyPass = `            proxy_set_header Host $host;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $host;
            proxy_set_header X-Forwarded-Port $server_port;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $rp_connection;
            proxy_pass http://origin;
`

// startPlainProxy runs plain nginx for the three routes and returns where it listens.
func startPlainProxy(tb testing.TB, origin string, cert costCert) costTarget {
	tb.Helper()
	return startPlainProxyWith(tb, origin, cert, "nginx", 2)
}

// startPlainReusePort is startPlainProxy with a listening socket per worker (reuseport
// on both addresses), as restyplane listens where the kernel migrates the connections of
// a closing socket.
func startPlainReusePort(tb testing.TB, origin string, cert costCert) costTarget {
	tb.Helper()
	t := startPlainProxyWith(tb, origin, cert, "nginx", 2, func(conf, http, https string) string {
		conf = strings.Replace(conf, "listen "+http+" default_server;", "listen "+http+" default_server reuseport;", 1)
		return strings.Replace(conf, "listen "+https+" ssl;", "listen "+https+" ssl reuseport;", 1)
	})
	t.name = "plain nginx, reuseport"
	return t
}

// startPlainProxyWith is startPlainProxy with binary (nginx, or a wrapper of it) and the
// number of workers; 0 runs nginx as one process (master_process off). edit, if any,
// changes the conf, given the HTTP and HTTPS addresses.
func startPlainProxyWith(tb testing.TB, origin string, cert costCert, binary string, workers int, edit ...func(conf, http, https string) string) costTarget {
	tb.Helper()
	dir := tb.TempDir()
	t := costTarget{name: "plain nginx", http: rptest.FreeAddr(tb), https: rptest.FreeAddr(tb)}
	crt, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for path, pem := range map[string]string{crt: cert.cert, key: cert.key} {
		if err := os.WriteFile(path, []byte(pem), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	var allow strings.Builder
	for _, c := range costAllow {
		fmt.Fprintf(&allow, "            allow %s;\n", c)
	}
	conf := fmt.Sprintf(plainProxyConf, dir, t.http, t.https, origin, crt, key, allow.String(), costRate, 5*costRate)
	if workers == 0 {
		conf = strings.Replace(conf, "master_process on;", "master_process off;", 1)
		workers = 1
	}
	conf = strings.Replace(conf, "worker_processes 2;", fmt.Sprintf("worker_processes %d;", workers), 1)
	for _, e := range edit {
		conf = e(conf, t.http, t.https)
	}
	t.master = runNginxConf(tb, binary, dir, conf)
	return t
}
