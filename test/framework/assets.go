package framework

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvAssets names the directory holding kube-apiserver, etcd and kubectl, as in envtest.
const EnvAssets = "KUBEBUILDER_ASSETS"

// ErrNoAssets is wrapped by the errors of AssetsDir when the control plane binaries cannot be obtained.
var ErrNoAssets = errors.New("control plane binaries (kube-apiserver, etcd, kubectl) are not available")

// assetBinaries are the executables an assets directory must hold.
var assetBinaries = []string{"kube-apiserver", "etcd", "kubectl"}

// testAssetsScript builds the binaries once and prints their directory, relative to the repository root.
const testAssetsScript = "hack/test-assets.sh"

// crdDir holds the CRDs copied from github.com/openshift/api, relative to the repository root.
const crdDir = "pkg/crds"

// AssetsDir returns the directory holding kube-apiserver, etcd and kubectl: $KUBEBUILDER_ASSETS when set,
// otherwise what hack/test-assets.sh prints (it builds the binaries on first use, which takes a few minutes,
// and reuses its cache afterwards; its progress goes to stderr). The error wraps ErrNoAssets when the binaries
// cannot be obtained.
func AssetsDir() (string, error) {
	if err := outsideUnitTier("a control plane"); err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoAssets, err)
	}
	if dir := os.Getenv(EnvAssets); dir != "" {
		if err := checkAssets(dir); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %w", ErrNoAssets, EnvAssets, dir, err)
		}
		return dir, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %s is not set and %w", ErrNoAssets, EnvAssets, err)
	}
	var stdout bytes.Buffer
	cmd := exec.Command(filepath.Join(root, testAssetsScript))
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s is not set and %s failed: %w", ErrNoAssets, EnvAssets, testAssetsScript, err)
	}
	dir := strings.TrimSpace(stdout.String())
	if err := checkAssets(dir); err != nil {
		return "", fmt.Errorf("%w: %s printed %q: %w", ErrNoAssets, testAssetsScript, dir, err)
	}
	return dir, nil
}

// checkAssets reports which of the binaries dir lacks.
func checkAssets(dir string) error {
	var missing []string
	for _, name := range assetBinaries {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no executable %s in %s", strings.Join(missing, ", "), dir)
	}
	return nil
}

// CRDDir returns the directory of the OpenShift CRDs in this repository's checkout (pkg/crds, the CRDs the binary embeds).
func CRDDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, crdDir), nil
}

// RepoRoot returns the root of this repository's checkout: found from this source file's path when the binary
// was built from the checkout without -trimpath (go test, go run), otherwise by looking upwards from the working
// directory for hack/test-assets.sh.
func RepoRoot() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Join(filepath.Dir(file), "..", "..")
		if isRepoRoot(root) {
			return filepath.Clean(root), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cannot find the repository root: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if isRepoRoot(dir) {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("cannot find the repository root (a directory holding %s) above %s", testAssetsScript, wd)
		}
	}
}

func isRepoRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, testAssetsScript))
	return err == nil
}
