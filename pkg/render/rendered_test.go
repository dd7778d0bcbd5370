package render_test

import (
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

func TestTheRenderedBudgetOffline(t *testing.T) {
	out, err := render.Render(manyMirrors(10, 200), opts)
	if err != nil {
		t.Fatal(err)
	}
	own := out.Sizes[0]
	if own.Near() {
		t.Fatalf("the MachineConfig itself is %s: the case needs one well below 80%% of etcd's limit", own)
	}
	for _, tc := range []struct {
		name       string
		base       int
		near, over bool
	}{
		{"on a small cluster the pools are under 80%", 10000, false, false},
		{"with the largest default the pools are near the limit", render.DefaultRenderedBaseBytes, true, false},
		{"with large MachineConfigs of their own the pools are over it", 600000, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sizes, err := out.EstimateRendered(tc.base)
			if err != nil {
				t.Fatal(err)
			}
			if len(sizes) != 2 || sizes[0].Pool != "master" || sizes[1].Pool != "worker" {
				t.Fatalf("sizes %v, want the built-in pools master and worker", sizes)
			}
			for _, s := range sizes {
				// The rendered MachineConfig holds the base, and ours without its metadata.
				if s.Bytes < tc.base+len(out.MachineConfigs[0].Object.Spec.Config.Raw)*9/10 || s.Bytes > tc.base+own.Bytes {
					t.Errorf("%s: not the base %d plus about the %d bytes of our config", s, tc.base, len(out.MachineConfigs[0].Object.Spec.Config.Raw))
				}
				if s.Near() != tc.near || s.Over() != tc.over {
					t.Errorf("%s: near %v over %v, want %v %v", s, s.Near(), s.Over(), tc.near, tc.over)
				}
			}
			warnings := render.RenderedWarnings(sizes)
			invalid := render.CheckRendered(out, sizes)
			switch {
			case tc.over:
				if invalid == nil || len(warnings) != 0 {
					t.Fatalf("over the limit: problems %v, warnings %q", invalid, warnings)
				}
				checkRenderedProblems(t, invalid)
			case tc.near:
				if invalid != nil || len(warnings) != 2 || !strings.Contains(warnings[0], "the rendered MachineConfig of pool master is ") {
					t.Errorf("near the limit: problems %v, warnings %q", invalid, warnings)
				}
			default:
				if invalid != nil || len(warnings) != 0 {
					t.Errorf("under 80%%: problems %v, warnings %q", invalid, warnings)
				}
			}
		})
	}
}

// checkRenderedProblems checks that a rendered MachineConfig over the limit is named on the Image "cluster" with the
// pools, and on the ten objects contributing most.
func checkRenderedProblems(t *testing.T, invalid *inputs.InvalidError) {
	t.Helper()
	var onImage, onObjects []string
	for _, p := range invalid.Problems {
		switch p.At.Object.Kind {
		case inputs.KindImage:
			onImage = append(onImage, p.String())
		case inputs.KindImageDigestMirrorSet:
			onObjects = append(onObjects, p.At.Object.Name)
		}
	}
	if len(onImage) != 1 || !strings.Contains(onImage[0], `Image "cluster": spec: "master, worker": with this configuration the rendered MachineConfig of pools master, worker is over the 1,572,864 bytes (1.5 MiB) the machine-config-operator accepts`) ||
		!strings.Contains(onImage[0], "pool master would be ") || !strings.Contains(onImage[0], `the largest contributors of the mirror configuration: ImageDigestMirrorSet "set-000" (about `) {
		t.Errorf("problems on the Image: %q", onImage)
	}
	if len(onObjects) != 10 || onObjects[0] != "set-000" {
		t.Errorf("contributors named: %q", onObjects)
	}
}

func TestTheRenderedBudgetNamesThePoolsOtherMachineConfigs(t *testing.T) {
	out, err := render.Render(manyMirrors(2, 10), opts)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []renderedconfig.Size{{Pool: "worker", Bytes: renderedconfig.MaxBytes + 1, Configs: []renderedconfig.Contributor{
		{Name: "99-worker-generated-registries", Bytes: 1200000}, {Name: "50-worker-performance", Bytes: 300000}}}}
	invalid := render.CheckRendered(out, sizes)
	if invalid == nil || !strings.Contains(invalid.Error(), "pool worker would be 1,572,865 bytes; its largest other MachineConfigs: 50-worker-performance (300,000 bytes)") {
		t.Errorf("problems: %v", invalid)
	}
	sizes[0].Before = sizes[0].Bytes + 1
	if invalid := render.CheckRendered(out, sizes); invalid != nil {
		t.Errorf("a change that shrinks a pool over the limit is refused: %v", invalid)
	}
}
