package endpoints

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/test/framework"
)

const serviceName = "registries-controller.openshift-registries-controller.svc"

// nowhere is an API server that is never asked: no request in these tests carries a token.
var nowhere = &rest.Config{Host: "https://127.0.0.1:1"}

func registry(t *testing.T) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "registries_controller_test_total", Help: "A test counter."})
	c.Inc()
	reg.MustRegister(c)
	return reg
}

func ready() (bool, string) { return true, "ok" }

func get(t *testing.T, client *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestPlainMetricsAreServedOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "10.1.2.3:8080", "[::]:0"} {
		_, err := Start(t.Context(), Options{HealthAddress: addr, InsecureLoopbackMetrics: true}, ready, registry(t), nowhere)
		if !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: %v, want ErrNotLoopback", addr, err)
		}
	}
	s, err := Start(t.Context(), Options{HealthAddress: "127.0.0.1:0", InsecureLoopbackMetrics: true}, ready, registry(t), nowhere)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	if s.MetricsAddress != "" {
		t.Errorf("an HTTPS listener on %s as well", s.MetricsAddress)
	}
	for path, want := range map[string]string{PathHealthz: "ok", PathReadyz: "ok", PathMetrics: "registries_controller_test_total 1"} {
		if code, body := get(t, http.DefaultClient, "http://"+s.HealthAddress+path); code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: %d %q, want 200 with %q", path, code, body, want)
		}
	}
	// The heap profile, as `go tool pprof` reads it: a gzipped profile.proto naming the heap's sample types.
	code, body := get(t, http.DefaultClient, "http://"+s.HealthAddress+PathHeapProfile+"?gc=1")
	if code != http.StatusOK {
		t.Fatalf("%s: %d %q", PathHeapProfile, code, body)
	}
	profile, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: not gzipped: %v", PathHeapProfile, err)
	}
	raw, err := io.ReadAll(profile)
	if err != nil {
		t.Fatal(err)
	}
	for _, sample := range []string{"alloc_space", "inuse_space"} {
		if !bytes.Contains(raw, []byte(sample)) {
			t.Errorf("%s: the profile names no %s", PathHeapProfile, sample)
		}
	}
}

// certFiles is a directory laid out as the kubelet mounts a secret: the files are symlinks through ..data, which
// is swapped atomically to a new directory when the secret changes.
type certFiles struct {
	dir     string
	version int
}

func (c *certFiles) write(t *testing.T, certPEM, keyPEM []byte) {
	t.Helper()
	c.version++
	version := filepath.Join(c.dir, "..v"+string(rune('0'+c.version)))
	if err := os.Mkdir(version, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(version, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(c.dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(version), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(c.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		link := filepath.Join(c.dir, name)
		if _, err := os.Lstat(link); err != nil {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// servedSerial returns the serial number of the certificate served at addr, verified with roots for serviceName.
func servedSerial(addr string, roots *x509.CertPool) (*big.Int, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: serviceName, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber, nil
}

func TestMetricsAreServedOverTLSWithTheCertificateOfTheMomentAndNeverWithoutAToken(t *testing.T) {
	ca, err := framework.NewCA("service-ca")
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	files := &certFiles{dir: t.TempDir()}
	cert1, key1, err := ca.IssueServing(serviceName)
	if err != nil {
		t.Fatal(err)
	}
	files.write(t, cert1, key1)
	opts := Options{HealthAddress: "127.0.0.1:0", MetricsAddress: "127.0.0.1:0",
		CertFile: filepath.Join(files.dir, "tls.crt"), KeyFile: filepath.Join(files.dir, "tls.key")}
	s, err := Start(t.Context(), opts, ready, registry(t), nowhere)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())

	first, err := servedSerial(s.MetricsAddress, roots)
	if err != nil {
		t.Fatalf("the serving certificate does not verify with the CA for %s: %v", serviceName, err)
	}
	if _, err := tls.Dial("tcp", s.MetricsAddress, &tls.Config{ServerName: serviceName, MinVersion: tls.VersionTLS12}); err == nil {
		t.Error("a client that does not trust the service CA connected")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serviceName, MinVersion: tls.VersionTLS12}}}
	if code, body := get(t, client, "https://"+s.MetricsAddress+PathMetrics); code != http.StatusUnauthorized || strings.Contains(body, "registries_controller") {
		t.Errorf("/metrics without a token: %d %q, want 401 and no metrics", code, body)
	}
	if code, _ := get(t, http.DefaultClient, "http://"+s.HealthAddress+PathMetrics); code != http.StatusNotFound {
		t.Errorf("/metrics in plain HTTP: %d, want 404", code)
	}
	if code, body := get(t, http.DefaultClient, "http://"+s.HealthAddress+PathReadyz); code != http.StatusOK {
		t.Errorf("/readyz: %d %q, want 200 without any credentials (the kubelet's probe)", code, body)
	}

	// The service CA rotates the certificate: the kubelet swaps the secret's files, the next handshakes get the new one.
	cert2, key2, err := ca.IssueServing(serviceName)
	if err != nil {
		t.Fatal(err)
	}
	files.write(t, cert2, key2)
	rotated := time.Now()
	deadline := rotated.Add(30 * time.Second)
	for {
		serial, err := servedSerial(s.MetricsAddress, roots)
		if err != nil {
			t.Fatal(err)
		}
		if serial.Cmp(first) != 0 {
			t.Logf("the rotated certificate was served %s after the swap", time.Since(rotated).Round(100*time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the rotated certificate was not served within 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestHTTPSMetricsNeedACertificate(t *testing.T) {
	_, err := Start(t.Context(), Options{HealthAddress: "127.0.0.1:0", MetricsAddress: "127.0.0.1:0"}, ready, registry(t), nowhere)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("%v, want an error about the missing certificate", err)
	}
}
