package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The cluster side of preview is tested against a real API server (test/integration); these are the errors
// found before any cluster is contacted.
func TestPreviewRefusesWhatItCannotReadBeforeContactingACluster(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing to preview", nil, "at least one of the flags in the group [filename delete] is required"},
		{"a kind that is no input", []string{"--delete", "Deployment/x"}, `--delete "Deployment/x": "Deployment" is not an input kind`},
		{"a namespaced kind without namespace", []string{"--delete", "ImagePolicy/signed"}, "ImagePolicy is namespaced: write ImagePolicy/NAMESPACE/NAME"},
		{"a file that is not there", []string{"-f", missing}, missing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"preview", "--kubeconfig", missing}, tc.args...)...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}
