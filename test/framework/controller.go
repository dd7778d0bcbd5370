package framework

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvControllerBinary names a built registries-controller binary (make test sets it); without it,
// ControllerBinary builds one.
const EnvControllerBinary = "REGISTRIES_CONTROLLER_BIN"

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// ControllerBinary returns the registries-controller binary: $REGISTRIES_CONTROLLER_BIN, or one built once per
// test binary (with the containers_image_openpgp tag, as make builds it).
func ControllerBinary() (string, error) {
	binOnce.Do(func() {
		if binErr = outsideUnitTier("the controller binary"); binErr != nil {
			return
		}
		if binPath = os.Getenv(EnvControllerBinary); binPath != "" {
			return
		}
		root, err := RepoRoot()
		if err != nil {
			binErr = err
			return
		}
		dir, err := os.MkdirTemp("", "registries-controller-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "registries-controller")
		cmd := exec.Command("go", "build", "-tags=containers_image_openpgp", "-o", binPath, "./cmd/registries-controller")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building the controller: %v: %s", err, out)
		}
	})
	return binPath, binErr
}

// Controller is a `registries-controller start` process, run as a Deployment runs it, for tests of the binary.
type Controller struct {
	Name string
	Cmd  *exec.Cmd
	// URL serves /healthz, /readyz and, unless MetricsURL is set, /metrics: http://127.0.0.1:PORT.
	URL string
	// MetricsURL serves /metrics over HTTPS (StartControllerServingTLS): https://127.0.0.1:PORT; empty otherwise.
	MetricsURL string
	// LogPath holds the process's stdout and stderr.
	LogPath string

	exited chan struct{}
	err    error
}

// StartController starts `registries-controller start --kubeconfig KUBECONFIG --listen-address 127.0.0.1:PORT
// --insecure-loopback-metrics ARGS...` (/metrics in plain HTTP beside /healthz, as `make run` serves it). It is
// killed when the test ends, and its log is printed when the test failed.
func StartController(t testing.TB, name, kubeconfig string, args ...string) *Controller {
	t.Helper()
	return startController(t, name, kubeconfig, append([]string{"--insecure-loopback-metrics"}, args...), "")
}

// StartControllerServingTLS starts the controller as the Deployment runs it: /healthz and /readyz in plain HTTP
// on URL, /metrics over HTTPS on MetricsURL with the serving certificate and key in certFile and keyFile, for
// clients the API server authenticates and authorizes.
func StartControllerServingTLS(t testing.TB, name, kubeconfig, certFile, keyFile string, args ...string) *Controller {
	t.Helper()
	metrics := "127.0.0.1:" + strconv.Itoa(FreePort(t))
	tls := []string{"--metrics-listen-address", metrics, "--tls-cert-file", certFile, "--tls-private-key-file", keyFile}
	return startController(t, name, kubeconfig, append(tls, args...), "https://"+metrics)
}

// StartTestController starts the controller as StartController does, with the flags the tests of the binary share
// before args (a later flag wins): a 100ms settle delay (--settle-delay=100ms), so that a test waits little for
// a write; --v=2, for the log a failed test prints; and leader election in the namespace default on a Lease of
// the test's own (named from t.Name()), so that a controller of an earlier test, killed while it held its Lease,
// does not keep this one waiting for the Lease to expire. The controllers a test starts share its Lease, to
// elect one leader among them. Pass --leader-elect=false for a controller that acts at once.
func StartTestController(t testing.TB, name, kubeconfig string, args ...string) *Controller {
	t.Helper()
	all := []string{"--settle-delay=100ms", "--v=2", "--leader-elect-namespace=default", "--leader-elect-name=" + testLease(t)}
	return StartController(t, name, kubeconfig, append(all, args...)...)
}

// notInLeaseName matches what a Lease name cannot hold.
var notInLeaseName = regexp.MustCompile(`[^a-z0-9-]+`)

// testLease returns the name of a Lease of the test's own: its name, lower-cased, with the characters a Lease
// name cannot hold replaced by "-", and its last 60 characters at most.
func testLease(t testing.TB) string {
	n := notInLeaseName.ReplaceAllString(strings.ToLower(t.Name()), "-")
	return strings.Trim(n[max(0, len(n)-60):], "-")
}

// startController starts the controller binary with `start --kubeconfig KUBECONFIG --listen-address
// 127.0.0.1:PORT ARGS...`; metricsURL is the Controller's MetricsURL.
func startController(t testing.TB, name, kubeconfig string, args []string, metricsURL string) *Controller {
	t.Helper()
	bin, err := ControllerBinary()
	if err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	logPath := filepath.Join(t.TempDir(), name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{"start", "--kubeconfig", kubeconfig, "--listen-address", "127.0.0.1:" + strconv.Itoa(port)}, args...)
	cmd := exec.Command(bin, all...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr() // dies with the test binary on Linux
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &Controller{Name: name, Cmd: cmd, URL: fmt.Sprintf("http://127.0.0.1:%d", port), MetricsURL: metricsURL, LogPath: logPath,
		exited: make(chan struct{})}
	go func() { c.err = cmd.Wait(); log.Close(); close(c.exited) }()
	t.Cleanup(func() {
		c.Kill()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, c.Log())
		}
	})
	return c
}

// Kill kills the process (SIGKILL), as a crash would, and waits for it to exit.
func (c *Controller) Kill() {
	_ = c.Cmd.Process.Kill()
	<-c.exited
}

// Exited is closed when the process has exited; Err then returns its exit status.
func (c *Controller) Exited() <-chan struct{} { return c.exited }

// Err returns the exit status, once Exited is closed.
func (c *Controller) Err() error { return c.err }

// Log returns what the process has printed so far.
func (c *Controller) Log() string {
	b, _ := os.ReadFile(c.LogPath)
	return string(b)
}

// Get requests path (e.g. "/readyz") and returns the status code and body; code -1 when the process does not
// answer within two seconds.
func (c *Controller) Get(path string) (int, string) {
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get(c.URL + path)
	if err != nil {
		return -1, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// Metric returns the sum of the samples of a metric whose labels include want, from /metrics; -1 when the
// process does not answer.
func (c *Controller) Metric(name string, want map[string]string) float64 {
	code, body := c.Get("/metrics")
	if code != http.StatusOK {
		return -1
	}
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if !lineHasLabels(line, want) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// lineHasLabels reports whether a sample line of the Prometheus text format carries every label of want.
func lineHasLabels(line string, want map[string]string) bool {
	for k, v := range want {
		if !strings.Contains(line, k+`="`+v+`"`) {
			return false
		}
	}
	return true
}
