package main

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// assets is the directory of kube-apiserver, etcd and kubectl, passed on to local-up.
var assets string

func TestMain(m *testing.M) {
	assets = framework.RequireAssets()
	os.Exit(m.Run())
}

func TestLocalUpServesTheBuiltinPoolsAndLeavesNothingBehindOnSIGINT(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "local-up", "kubeconfig")
	localUp := startLocalUp(t, buildLocalUp(t, dir), kubeconfig)

	lines := localUp.waitReady(t, time.Minute)
	kubectlPath := filepath.Join(assets, "kubectl")
	wantLines := []string{"export KUBECONFIG=" + kubeconfig, "export KUBECTL=" + kubectlPath, "ready"}
	if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("stdout = %q, want %q", lines, wantLines)
	}
	if _, err := os.Stat(kubeconfig + ".ready"); err != nil {
		t.Errorf("no ready file: %v", err)
	}

	kubectl := framework.Kubectl{Path: kubectlPath, Kubeconfig: kubeconfig, CacheDir: filepath.Join(dir, "cache")}
	pools, _, err := kubectl.Run(t.Context(), nil, "get", "machineconfigpools",
		"-l", fixtures.LabelBuiltInPool, "-o", "jsonpath={.items[*].metadata.name}")
	if err != nil {
		t.Fatal(err)
	}
	if pools != "master worker" {
		t.Errorf("built-in pools = %q, want %q", pools, "master worker")
	}
	image, _, err := kubectl.Run(t.Context(), nil, "get", "clusterversion", "version", "-o", "jsonpath={.status.desired.image}")
	if err != nil {
		t.Fatal(err)
	}
	if image != fixtures.ReleaseImage {
		t.Errorf("ClusterVersion status.desired.image = %q, want %q", image, fixtures.ReleaseImage)
	}

	// The MCO simulator gives the pools a rendered config.
	deadline := time.Now().Add(time.Minute)
	for {
		rendered, _, err := kubectl.Run(t.Context(), nil, "get", "machineconfigpool", "worker", "-o", "jsonpath={.status.configuration.name}")
		if err == nil && strings.HasPrefix(rendered, "rendered-worker-") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker pool has no rendered config after a minute: %q %v", rendered, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	children := localUp.controlPlaneChildren(t)
	addresses := append(children.etcdAddresses(t), apiServerAddress(t, kubeconfig))

	if err := localUp.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := localUp.wait(time.Minute); err != nil {
		t.Fatalf("local-up did not exit cleanly on SIGINT: %v\nstderr:\n%s", err, localUp.stderr.String())
	}
	for _, p := range children {
		if p.alive() {
			t.Errorf("%s (pid %d) still runs after local-up exited", p.name(), p.pid)
		}
	}
	for _, addr := range addresses {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("port still in use after local-up exited: %v", err)
			continue
		}
		l.Close()
	}
	if _, err := os.Stat(kubeconfig + ".ready"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ready file left behind (stat: %v)", err)
	}
}

// buildLocalUp builds this package into dir, with go build as a person would.
func buildLocalUp(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin", "local-up")
	// go test puts its own go command first in PATH.
	out, err := exec.Command("go", "build", "-tags=containers_image_openpgp", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// apiServerAddress returns the host:port of the API server the kubeconfig points to.
func apiServerAddress(t *testing.T, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// localUpProcess is a running local-up and what it wrote.
type localUpProcess struct {
	cmd    *exec.Cmd
	stdout *bufio.Scanner
	stderr *bytes.Buffer
	done   chan error
}

// startLocalUp starts bin writing its kubeconfig to kubeconfig. If the test ends with local-up or its
// children still running, they are killed.
func startLocalUp(t *testing.T, bin, kubeconfig string) *localUpProcess {
	t.Helper()
	p := &localUpProcess{cmd: exec.Command(bin, "--kubeconfig", kubeconfig), stderr: &bytes.Buffer{}}
	p.cmd.Env = append(os.Environ(), framework.EnvAssets+"="+assets)
	p.cmd.Stderr = p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewScanner(stdout)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var children processes
	t.Cleanup(func() {
		if p.wait(0) == nil {
			return
		}
		children = p.children()
		_ = p.cmd.Process.Kill()
		_ = p.wait(10 * time.Second)
		for _, c := range children {
			if c.alive() {
				_ = syscall.Kill(c.pid, syscall.SIGKILL)
			}
		}
	})
	return p
}

// waitReady returns the lines local-up printed up to and including "ready".
func (p *localUpProcess) waitReady(t *testing.T, timeout time.Duration) []string {
	t.Helper()
	linesc := make(chan []string, 1)
	go func() {
		var lines []string
		for p.stdout.Scan() {
			lines = append(lines, p.stdout.Text())
			if p.stdout.Text() == "ready" {
				break
			}
		}
		linesc <- lines
	}()
	select {
	case lines := <-linesc:
		if len(lines) == 0 || lines[len(lines)-1] != "ready" {
			t.Fatalf("local-up ended before ready: stdout %q\nstderr:\n%s", lines, p.stderr.String())
		}
		return lines
	case <-time.After(timeout):
		t.Fatalf("local-up not ready after %v\nstderr:\n%s", timeout, p.stderr.String())
		return nil
	}
}

// wait waits up to timeout for local-up to exit and returns its exit error, or an error if it still runs.
func (p *localUpProcess) wait(timeout time.Duration) error {
	if p.done == nil {
		p.done = make(chan error, 1)
		go func() { p.done <- p.cmd.Wait() }()
	}
	select {
	case err := <-p.done:
		p.done <- err // later calls see the same result
		return err
	case <-time.After(timeout):
		return errors.New("still running")
	}
}
