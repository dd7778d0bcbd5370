package main

import (
	"github.com/spf13/pflag"

	"github.com/openshift/registries-controller/pkg/endpoints"
)

// envReleaseVersion is the cluster-version operator's convention for telling an operator the release it belongs to;
// the ClusterOperator reports it as the "operator" version.
const envReleaseVersion = "RELEASE_VERSION"

// metricsOptions are the flags of /metrics: HTTPS with the service CA's serving certificate in the Deployment,
// plain HTTP on loopback for `make run` and tests.
type metricsOptions struct {
	address      string
	certFile     string
	keyFile      string
	insecureHTTP bool
}

func (m *metricsOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&m.address, "metrics-listen-address", ":8443",
		"address serving /metrics over HTTPS, to clients the API server authenticates and authorizes (get on the non-resource URL /metrics)")
	f.StringVar(&m.certFile, "tls-cert-file", "/etc/tls/private/tls.crt", "serving certificate of /metrics (PEM), read again when it changes")
	f.StringVar(&m.keyFile, "tls-private-key-file", "/etc/tls/private/tls.key", "private key of the serving certificate (PEM)")
	f.BoolVar(&m.insecureHTTP, "insecure-loopback-metrics", false,
		"serve /metrics in plain HTTP without authentication on --listen-address instead, which must be a loopback address (make run, tests)")
}

func (m *metricsOptions) options(healthAddress string) endpoints.Options {
	return endpoints.Options{
		HealthAddress: healthAddress, MetricsAddress: m.address, CertFile: m.certFile, KeyFile: m.keyFile,
		InsecureLoopbackMetrics: m.insecureHTTP,
	}
}
