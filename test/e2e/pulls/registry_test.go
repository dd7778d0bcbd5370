package pulls

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

// registryBinary is Debian's docker-registry (distribution 2.8); .ci/run installs it.
const registryBinary = "docker-registry"

// requireRegistryBinary returns the path of docker-registry. Without it the test fails in CI, where
// .ci/run installs it, and is skipped elsewhere.
func requireRegistryBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath(registryBinary)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found (.ci/run installs it with apt-get): %v", registryBinary, err)
	}
	t.Skipf("%s not found; install Debian's docker-registry package to run the real-pull tests", registryBinary)
	return ""
}

// registry is a docker-registry process serving on loopback, stopped when the test ends.
type registry struct {
	// Host is "127.0.0.1:<port>", as it appears in image references.
	Host string
	TLS  bool
	// Stop kills the registry: its host then refuses connections. The test's cleanup stops it anyway.
	Stop func()
}

// serverCert is a self-signed certificate for 127.0.0.1, used both as the TLS registry's certificate and
// as the CA clients trust.
type serverCert struct {
	certPEM, keyPEM []byte
	pool            *x509.CertPool
}

func newServerCert(t *testing.T) *serverCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "registries-controller e2e registry"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &serverCert{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		pool:    pool,
	}
}

// startRegistry runs docker-registry with filesystem storage in a temporary directory, serving plain
// HTTP, or TLS with cert when it is not nil, and waits until it answers.
func startRegistry(t *testing.T, bin string, cert *serverCert) *registry {
	t.Helper()
	return startRegistryWithAuth(t, bin, cert, "")
}

// startRegistryWithAuth is startRegistry with basic authentication when htpasswd is not empty: the lines of
// an htpasswd file (bcrypt), e.g. "user:$2y$05$...". Every request then needs credentials.
func startRegistryWithAuth(t *testing.T, bin string, cert *serverCert, htpasswd string) *registry {
	t.Helper()
	dir := t.TempDir()
	host := fmt.Sprintf("127.0.0.1:%d", framework.FreePort(t))
	config := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
http:
  addr: %s
  secret: registries-controller-e2e
`, filepath.Join(dir, "storage"), host)
	if cert != nil {
		certFile, keyFile := filepath.Join(dir, "registry.crt"), filepath.Join(dir, "registry.key")
		writeTestFile(t, certFile, cert.certPEM)
		writeTestFile(t, keyFile, cert.keyPEM)
		config += fmt.Sprintf("  tls:\n    certificate: %s\n    key: %s\n", certFile, keyFile)
	}
	if htpasswd != "" {
		file := filepath.Join(dir, "htpasswd")
		writeTestFile(t, file, []byte(htpasswd))
		config += fmt.Sprintf("auth:\n  htpasswd:\n    realm: e2e\n    path: %s\n", file)
	}
	configFile := filepath.Join(dir, "config.yml")
	writeTestFile(t, configFile, []byte(config))

	var output bytes.Buffer
	cmd := exec.Command(bin, "serve", configFile)
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s output:\n%s", host, output.String())
		}
	})
	r := &registry{Host: host, TLS: cert != nil, Stop: stop}
	r.waitReady(t, cert)
	return r
}

func (r *registry) waitReady(t *testing.T, cert *serverCert) {
	t.Helper()
	url := "http://" + r.Host + "/v2/"
	client := &http.Client{Timeout: time.Second}
	if cert != nil {
		url = "https://" + r.Host + "/v2/"
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.pool}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			// 401: the registry answers, and wants credentials.
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("registry %s did not become ready: %v", r.Host, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func writeTestFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// countingListener stands in for a source registry that must never be contacted: it accepts and
// closes connections, and counts them.
type countingListener struct {
	Host  string
	l     net.Listener
	count atomic.Int64
	wg    sync.WaitGroup
}

func newCountingListener(t *testing.T) *countingListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &countingListener{Host: l.Addr().String(), l: l}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			c.count.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); c.wg.Wait() })
	return c
}

// Connections returns how many connections were accepted so far.
func (c *countingListener) Connections() int64 { return c.count.Load() }
