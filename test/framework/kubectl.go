package framework

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Kubectl runs a kubectl binary against one kubeconfig.
type Kubectl struct {
	// Path is the kubectl binary.
	Path string
	// Kubeconfig is passed as --kubeconfig, so $KUBECONFIG and ~/.kube/config play no part.
	Kubeconfig string
	// CacheDir, when set, is passed as --cache-dir, to keep the discovery cache out of ~/.kube.
	CacheDir string
}

// Run runs kubectl with args, feeding it stdin (nil: no input), and returns its stdout and stderr. When kubectl
// fails, the error names the command and carries its stderr, for example
// `kubectl apply -f -: exit status 1: The ImageDigestMirrorSet "x" is invalid: ...`.
func (k Kubectl) Run(ctx context.Context, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	all := []string{"--kubeconfig=" + k.Kubeconfig}
	if k.CacheDir != "" {
		all = append(all, "--cache-dir="+k.CacheDir)
	}
	var outBuf, errBuf bytes.Buffer
	cmd := exec.CommandContext(ctx, k.Path, append(all, args...)...)
	cmd.Stdin = stdin
	cmd.Stdout = &outBuf
	cmd.Stderr = &errBuf
	err = cmd.Run()
	stdout, stderr = outBuf.String(), errBuf.String()
	if err != nil {
		err = fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr))
	}
	return stdout, stderr, err
}

// Kubectl runs the bundled kubectl as the admin user of this control plane; see Kubectl.Run.
func (cp *ControlPlane) Kubectl(ctx context.Context, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	k := Kubectl{Path: cp.KubectlPath, Kubeconfig: cp.KubeconfigPath, CacheDir: filepath.Join(cp.tempDir, "kubectl-cache")}
	return k.Run(ctx, stdin, args...)
}

// RunKubectl runs the bundled kubectl as the admin user of this control plane, without input, and returns its
// stdout; it fails the test (t.Fatal) with kubectl's stderr when kubectl fails.
func (cp *ControlPlane) RunKubectl(t testing.TB, args ...string) string {
	t.Helper()
	stdout, _, err := cp.Kubectl(context.Background(), nil, args...)
	if err != nil {
		t.Fatal(err) // names the command and carries its stderr
	}
	return stdout
}
