package framework

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvRegistryBinary names the container registry binary (distribution's `registry`, built from the module
// pinned in hack/tools/registry by hack/test-registry.sh). make test sets it; when it is not set,
// RegistryBinary runs the script itself, which builds the binary once (a few minutes) and caches it.
const EnvRegistryBinary = "REGISTRIES_CONTROLLER_TEST_REGISTRY"

// testRegistryScript builds the registry once and prints its path, relative to the repository root.
const testRegistryScript = "hack/test-registry.sh"

// ErrNoRegistry is wrapped by the errors of RegistryBinary when the registry binary cannot be obtained.
var ErrNoRegistry = errors.New("the container registry binary (distribution's registry) is not available")

const (
	// registryStartTimeout bounds the wait for a started registry to answer on /v2/.
	registryStartTimeout = 15 * time.Second
	// registryStartAttempts is how often StartRegistry tries a new port when the registry exits before it
	// answers, which is what a port taken by another process between FreePort and the registry's bind causes.
	registryStartAttempts = 3
	// registryRealm is the realm of the basic authentication of a registry started with Htpasswd.
	registryRealm = "registries-controller-e2e"
)

var (
	registryOnce sync.Once
	registryPath string
	registryErr  error
)

// RegistryBinary returns the path of the registry binary: $REGISTRIES_CONTROLLER_TEST_REGISTRY when set, otherwise
// what hack/test-registry.sh prints (it builds the binary on first use and reuses its cache afterwards; its
// progress goes to stderr). The error wraps ErrNoRegistry and says how to get the binary. It never asks to skip:
// a test that needs a registry fails without one.
func RegistryBinary() (string, error) {
	registryOnce.Do(func() { registryPath, registryErr = findRegistryBinary() })
	return registryPath, registryErr
}

func findRegistryBinary() (string, error) {
	hint := fmt.Sprintf("run make test, or set %s to the path %s prints", EnvRegistryBinary, testRegistryScript)
	if err := outsideUnitTier("a container registry"); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoRegistry, err)
	}
	if path := os.Getenv(EnvRegistryBinary); path != "" {
		if err := checkExecutable(path); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %w (%s)", ErrNoRegistry, EnvRegistryBinary, path, err, hint)
		}
		return path, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %s is not set and %w (%s)", ErrNoRegistry, EnvRegistryBinary, err, hint)
	}
	var stdout bytes.Buffer
	cmd := exec.Command(filepath.Join(root, testRegistryScript))
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s is not set and %s failed: %w (%s)", ErrNoRegistry, EnvRegistryBinary, testRegistryScript, err, hint)
	}
	path := strings.TrimSpace(stdout.String())
	if err := checkExecutable(path); err != nil {
		return "", fmt.Errorf("%w: %s printed %q: %w (%s)", ErrNoRegistry, testRegistryScript, path, err, hint)
	}
	return path, nil
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// RegistryOptions says how StartRegistry serves. The zero value serves plain HTTP to anyone.
type RegistryOptions struct {
	// CertPEM and KeyPEM, when set, make the registry serve HTTPS with this certificate and key (PEM), which
	// RootCAs must trust.
	CertPEM, KeyPEM []byte
	RootCAs         *x509.CertPool
	// Htpasswd, when not empty, makes every request need basic authentication: the lines of an htpasswd file
	// with bcrypt hashes, e.g. "user:$2y$05$...\n".
	Htpasswd string
}

// Registry is a registry process serving on loopback with its storage in a temporary directory, stopped when the
// test ends.
type Registry struct {
	// Host is "127.0.0.1:<port>", as it appears in image references.
	Host string
	// TLS is true when it serves HTTPS.
	TLS bool
	// Stop kills the registry: its host then refuses connections. The test's cleanup stops it anyway.
	Stop func()
}

// URL returns the registry's base URL, e.g. "https://127.0.0.1:40123".
func (r *Registry) URL() string {
	if r.TLS {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// StartRegistry runs the registry binary (RegistryBinary) on a free loopback port as opts says and returns once
// it answers on /v2/. It fails the test when the binary cannot be obtained. Its output is logged when the test
// fails.
//
//	reg := framework.StartRegistry(t, framework.RegistryOptions{})
//	// push to reg.Host + "/team/app:v1" over plain HTTP
func StartRegistry(t testing.TB, opts RegistryOptions) *Registry {
	t.Helper()
	bin, err := RegistryBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var lastErr error
	for range registryStartAttempts {
		r, err := startRegistryOnce(t, bin, dir, opts)
		if err == nil {
			return r
		}
		if !errors.Is(err, errExitedEarly) {
			t.Fatal(err)
		}
		lastErr = err
	}
	t.Fatalf("registry: %v (after %d attempts)", lastErr, registryStartAttempts)
	return nil
}

func startRegistryOnce(t testing.TB, bin, dir string, opts RegistryOptions) (*Registry, error) {
	host := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	configFile, err := writeRegistryConfig(dir, host, opts)
	if err != nil {
		return nil, err
	}
	output := &lockedBuffer{}
	cmd := exec.Command(bin, "serve", configFile)
	cmd.Stdout, cmd.Stderr = output, output
	// distribution exports traces over OTLP to localhost unless told not to.
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	cmd.SysProcAttr = sysProcAttr() // dies with the test binary on Linux
	exited, err := startOnLockedThread(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { _ = cmd.Process.Kill(); <-exited }) }
	r := &Registry{Host: host, TLS: opts.CertPEM != nil, Stop: stop}
	if err := r.waitReady(opts.RootCAs, exited); err != nil {
		stop()
		return nil, fmt.Errorf("registry on %s: %w; its output:\n%s", host, err, output.String())
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("registry %s output:\n%s", host, output.String())
		}
	})
	return r, nil
}

// writeRegistryConfig writes the registry's configuration (distribution v3's format, version 0.1) and the files
// it names into dir, and returns its path.
func writeRegistryConfig(dir, host string, opts RegistryOptions) (string, error) {
	dir, err := os.MkdirTemp(dir, "registry-")
	if err != nil {
		return "", err
	}
	var config strings.Builder
	fmt.Fprintf(&config, `version: 0.1
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
	if opts.CertPEM != nil {
		certFile, keyFile := filepath.Join(dir, "registry.crt"), filepath.Join(dir, "registry.key")
		if err := os.WriteFile(certFile, opts.CertPEM, 0o600); err != nil {
			return "", err
		}
		if err := os.WriteFile(keyFile, opts.KeyPEM, 0o600); err != nil {
			return "", err
		}
		fmt.Fprintf(&config, "  tls:\n    certificate: %s\n    key: %s\n", certFile, keyFile)
	}
	if opts.Htpasswd != "" {
		file := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(file, []byte(opts.Htpasswd), 0o600); err != nil {
			return "", err
		}
		fmt.Fprintf(&config, "auth:\n  htpasswd:\n    realm: %s\n    path: %s\n", registryRealm, file)
	}
	path := filepath.Join(dir, "config.yml")
	return path, os.WriteFile(path, []byte(config.String()), 0o600)
}

// waitReady polls /v2/ until the registry answers 200, or 401 when it wants credentials. The error wraps
// errExitedEarly when the process exits first.
func (r *Registry) waitReady(rootCAs *x509.CertPool, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	if r.TLS {
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: rootCAs}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), registryStartTimeout)
	defer cancel()
	var lastErr error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL()+"/v2/", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
			err = fmt.Errorf("GET /v2/: %s", resp.Status)
		}
		lastErr = err
		select {
		case <-exited:
			return fmt.Errorf("%w: %v", errExitedEarly, lastErr)
		case <-ctx.Done():
			return fmt.Errorf("not ready within %v: %v", registryStartTimeout, lastErr)
		case <-time.After(readyPollInterval):
		}
	}
}

// lockedBuffer is a bytes.Buffer that a process writes to while a test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
