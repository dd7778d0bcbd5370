package framework

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
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
		if !hasLabels(line, want) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

func hasLabels(line string, want map[string]string) bool {
	for k, v := range want {
		if !strings.Contains(line, k+`="`+v+`"`) {
			return false
		}
	}
	return true
}

// NodeFiles decodes the files a MachineConfig writes, independently of the code under test: the Ignition JSON is
// read with a minimal struct and each data URL with the standard library. It maps each path to its contents.
func NodeFiles(mc *mcfgv1.MachineConfig) (map[string]string, error) {
	var ign struct {
		Storage struct {
			Files []struct {
				Path     string
				Contents struct{ Source *string }
			}
		}
	}
	if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil {
		return nil, fmt.Errorf("MachineConfig %s: %w", mc.Name, err)
	}
	files := map[string]string{}
	for _, f := range ign.Storage.Files {
		const prefix = "data:text/plain;charset=utf-8;base64,"
		if f.Contents.Source == nil || !strings.HasPrefix(*f.Contents.Source, prefix) {
			return nil, fmt.Errorf("MachineConfig %s: file %s is not a base64 data URL", mc.Name, f.Path)
		}
		data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(*f.Contents.Source, prefix))
		if err != nil {
			return nil, fmt.Errorf("MachineConfig %s: file %s: %w", mc.Name, f.Path, err)
		}
		files[f.Path] = string(data)
	}
	return files, nil
}
