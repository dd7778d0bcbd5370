package pulls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

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

// startRegistry runs a registry on loopback (framework.StartRegistry: distribution's registry, built from
// hack/tools/registry) with filesystem storage in a temporary directory, serving plain HTTP, or TLS with cert
// when it is not nil, and waits until it answers.
func startRegistry(t *testing.T, cert *serverCert) *framework.Registry {
	t.Helper()
	return startRegistryWithAuth(t, cert, "")
}

// startRegistryWithAuth is startRegistry with basic authentication when htpasswd is not empty: the lines of
// an htpasswd file (bcrypt), e.g. "user:$2y$05$...". Every request then needs credentials.
func startRegistryWithAuth(t *testing.T, cert *serverCert, htpasswd string) *framework.Registry {
	t.Helper()
	opts := framework.RegistryOptions{Htpasswd: htpasswd}
	if cert != nil {
		opts.CertPEM, opts.KeyPEM, opts.RootCAs = cert.certPEM, cert.keyPEM, cert.pool
	}
	return framework.StartRegistry(t, opts)
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
