package framework

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// NodeFiles decodes the files a MachineConfig writes, independently of the code under test (pkg/machineconfigs holds
// the controller's own decoder, machineconfigs.DecodeFiles): the Ignition JSON is read with a minimal struct and each
// data URL with the standard library. It maps each path to its contents. It also checks the form MCO writes and the
// controller must too: Ignition 3.5.0, and each file overwritten, of mode 0644, its contents a base64 data URL of
// text/plain; a MachineConfig in another form is an error.
func NodeFiles(mc *mcfgv1.MachineConfig) (map[string]string, error) {
	var ign struct {
		Ignition struct{ Version string }
		Storage  struct {
			Files []struct {
				Path      string
				Overwrite *bool
				Mode      *int
				Contents  struct{ Source *string }
			}
		}
	}
	if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil {
		return nil, fmt.Errorf("MachineConfig %s: %w", mc.Name, err)
	}
	if ign.Ignition.Version != "3.5.0" {
		return nil, fmt.Errorf("MachineConfig %s: Ignition version %q, want 3.5.0", mc.Name, ign.Ignition.Version)
	}
	files := map[string]string{}
	for _, f := range ign.Storage.Files {
		const prefix = "data:text/plain;charset=utf-8;base64,"
		if f.Overwrite == nil || !*f.Overwrite || f.Mode == nil || *f.Mode != 0o644 || f.Contents.Source == nil || !strings.HasPrefix(*f.Contents.Source, prefix) {
			return nil, fmt.Errorf("MachineConfig %s: file %s is not an overwritten 0644 base64 data URL", mc.Name, f.Path)
		}
		data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(*f.Contents.Source, prefix))
		if err != nil {
			return nil, fmt.Errorf("MachineConfig %s: file %s: %w", mc.Name, f.Path, err)
		}
		files[f.Path] = string(data)
	}
	return files, nil
}

// MustNodeFiles is NodeFiles for a test's own goroutine: it fails the test (t.Fatal) when mc does not decode.
func MustNodeFiles(t testing.TB, mc *mcfgv1.MachineConfig) map[string]string {
	t.Helper()
	files, err := NodeFiles(mc)
	if err != nil {
		t.Fatal(err)
	}
	return files
}
