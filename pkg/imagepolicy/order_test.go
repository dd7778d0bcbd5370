package imagepolicy_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/golden"
)

// TestTheOrderOfPolicyObjectsDoesNotMatter renders every golden input with its policy objects reversed: the
// files are the same bytes (docs/semantics.md §9.9 D1: MCO follows lister order).
func TestTheOrderOfPolicyObjectsDoesNotMatter(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/golden/*")
	checker := registriesconf.NewChecker()
	t.Cleanup(checker.Close)
	for _, dir := range dirs {
		in := golden.Input(t, dir)
		first, err := render.Render(in, render.Options{Checker: checker})
		if err != nil {
			continue // the invalid cases
		}
		slices.Reverse(in.ClusterImagePolicies)
		slices.Reverse(in.ImagePolicies)
		again, err := render.Render(in, render.Options{Checker: checker})
		if err != nil {
			t.Fatalf("%s: reversed: %v", dir, err)
		}
		firstFiles, againFiles := first.OutputFiles("worker", machineconfigs.Registries), again.OutputFiles("worker", machineconfigs.Registries)
		if len(firstFiles) != len(againFiles) {
			t.Fatalf("%s: %d files, then %d", dir, len(firstFiles), len(againFiles))
		}
		for i := range firstFiles {
			if firstFiles[i].Path != againFiles[i].Path || !bytes.Equal(firstFiles[i].Data, againFiles[i].Data) {
				t.Errorf("%s: %s differs with the objects reversed", dir, firstFiles[i].Path)
			}
		}
	}
}
