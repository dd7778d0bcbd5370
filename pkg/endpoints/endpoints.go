// Package endpoints serves the controller's HTTP endpoints:
//
//   - /healthz and /readyz in plain HTTP, open to anyone who reaches the port: the kubelet's probes;
//   - /metrics over HTTPS, with the serving certificate of the service CA (re-read when it is rotated), each
//     request authenticated (TokenReview) and authorized (SubjectAccessReview: `get` on the non-resource URL
//     /metrics) by the API server, as Kubernetes components do. Only a client whose bearer token may do that,
//     Prometheus in openshift-monitoring, reads the metrics: 401 without a valid token, 403 without the right.
//
// For `make run`, tests and benchmarks, Options.InsecureLoopbackMetrics serves /metrics in plain HTTP beside
// /healthz instead, and only on a loopback address, with the heap profile (/debug/pprof/heap) beside it.
package endpoints

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// Paths served.
const (
	PathHealthz = "/healthz"
	PathReadyz  = "/readyz"
	PathMetrics = "/metrics"
	// PathHeapProfile is the Go heap profile (the format of net/http/pprof's, for `go tool pprof`), served only with
	// InsecureLoopbackMetrics; `?gc=1` collects garbage first.
	PathHeapProfile = "/debug/pprof/heap"
)

// readHeaderTimeout bounds how long a client may take to send its request headers.
const readHeaderTimeout = 10 * time.Second

// ErrNotLoopback is returned when plain-HTTP metrics are asked for on an address other hosts can reach.
var ErrNotLoopback = errors.New("plain-HTTP metrics are served only on a loopback address")

// Options say where and how to serve.
type Options struct {
	// HealthAddress serves /healthz and /readyz in plain HTTP, e.g. ":8080".
	HealthAddress string
	// MetricsAddress serves /metrics over HTTPS, e.g. ":8443". Unused with InsecureLoopbackMetrics.
	MetricsAddress string
	// CertFile and KeyFile are the PEM serving certificate and key for MetricsAddress, e.g. the tls.crt and tls.key
	// of the secret the service CA fills; they are read again when they change.
	CertFile, KeyFile string
	// InsecureLoopbackMetrics serves /metrics in plain HTTP, without authentication, on HealthAddress, which must
	// then be a loopback address such as 127.0.0.1:8080; nothing listens on MetricsAddress.
	InsecureLoopbackMetrics bool
}

// Servers are the running listeners.
type Servers struct {
	// HealthAddress and MetricsAddress are where they listen (with the port chosen when ":0" was asked for);
	// MetricsAddress is empty with InsecureLoopbackMetrics.
	HealthAddress, MetricsAddress string
	servers                       []*http.Server
}

// Start starts serving until Shutdown. ready says whether the controller can work and why not (/readyz);
// metrics are gathered from reg, which also counts the handler's own errors; cfg is how the controller reaches the API server, which authenticates and
// authorizes each /metrics request. The certificate watcher stops with ctx.
func Start(ctx context.Context, opts Options, ready func() (bool, string), reg *prometheus.Registry, cfg *rest.Config) (*Servers, error) {
	logger := klog.FromContext(ctx)
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorLog: promLogger{logger}})
	health := http.NewServeMux()
	health.HandleFunc(PathHealthz, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	health.HandleFunc(PathReadyz, func(w http.ResponseWriter, _ *http.Request) {
		if ok, why := ready(); !ok {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	s := &Servers{}
	if opts.InsecureLoopbackMetrics {
		if err := requireLoopback(opts.HealthAddress); err != nil {
			return nil, err
		}
		health.Handle(PathMetrics, metrics)
		health.HandleFunc(PathHeapProfile, heapProfile)
	} else {
		secured, tlsConfig, err := secureMetrics(ctx, opts, metrics, cfg)
		if err != nil {
			return nil, err
		}
		if s.MetricsAddress, err = s.serve(opts.MetricsAddress, secured, tlsConfig); err != nil {
			return nil, err
		}
	}
	var err error
	if s.HealthAddress, err = s.serve(opts.HealthAddress, health, nil); err != nil {
		s.Shutdown(context.Background())
		return nil, err
	}
	return s, nil
}

// heapProfile writes the heap profile, as net/http/pprof does (which is not imported: its package initialisation
// registers every profile on http.DefaultServeMux, in every process).
func heapProfile(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("gc") == "1" {
		runtime.GC()
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="heap"`)
	if err := pprof.Lookup("heap").WriteTo(w, 0); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// secureMetrics returns the metrics handler behind the API server's authentication and authorization (delegated),
// and the TLS configuration serving the certificate files, watched for rotation.
func secureMetrics(ctx context.Context, opts Options, metrics http.Handler, cfg *rest.Config) (http.Handler, *tls.Config, error) {
	if opts.CertFile == "" || opts.KeyFile == "" {
		return nil, nil, errors.New("serving /metrics over HTTPS needs a certificate and key file (or plain HTTP on loopback, for development)")
	}
	certs, err := certwatcher.New(opts.CertFile, opts.KeyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the metrics serving certificate: %w", err)
	}
	go func() {
		if err := certs.Start(ctx); err != nil {
			klog.FromContext(ctx).Error(err, "Watching the metrics serving certificate failed; the one read last is served")
		}
	}()
	secured, err := delegated(metrics, cfg)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(PathMetrics, secured)
	tlsConfig := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: certs.GetCertificate,
		// HTTP/1.1 only, as Kubernetes components serve metrics: no HTTP/2 stream floods from a client that is
		// not authenticated yet.
		NextProtos: []string{"http/1.1"},
	}
	return mux, tlsConfig, nil
}

// serve listens on addr and serves h, over TLS when tlsConfig is set; it returns the address listened on.
func (s *Servers) serve(addr string, h http.Handler, tlsConfig *tls.Config) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listening on %s: %w", addr, err)
	}
	server := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, TLSConfig: tlsConfig}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	s.servers = append(s.servers, server)
	go server.Serve(ln) //nolint:errcheck // ends with Shutdown
	return ln.Addr().String(), nil
}

// Shutdown stops every listener, letting requests in flight finish until ctx is done.
func (s *Servers) Shutdown(ctx context.Context) {
	for _, server := range s.servers {
		_ = server.Shutdown(ctx)
	}
}

// requireLoopback fails unless addr's host is a loopback address or "localhost".
func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w, not on %q: use 127.0.0.1:PORT", ErrNotLoopback, addr)
}

// promLogger passes promhttp's errors to klog.
type promLogger struct{ logger klog.Logger }

func (l promLogger) Println(v ...any) { l.logger.Error(nil, fmt.Sprint(v...)) }
