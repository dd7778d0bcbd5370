package render_test

import (
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
	"github.com/openshift/registries-controller/test/fixtures"
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
			sizes, err := out.EstimateRendered(tc.base, nil, nil)
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

	// Pools over the limit are named by name, in whatever order they are measured (the informer's).
	over := func(pool string) renderedconfig.Size {
		return renderedconfig.Size{Pool: pool, Bytes: renderedconfig.MaxBytes + 1}
	}
	first := render.CheckRendered(out, []renderedconfig.Size{over("worker"), over("master")})
	second := render.CheckRendered(out, []renderedconfig.Size{over("master"), over("worker")})
	if first == nil || second == nil || first.Error() != second.Error() || !strings.Contains(first.Error(), "of pools master, worker is over") {
		t.Errorf("two pools over the limit, measured in two orders: %v; %v", first, second)
	}
}

func TestTheRenderedBudgetOfACustomPoolCarriesTheWorkersMachineConfigs(t *testing.T) {
	in := manyMirrors(10, 200)
	infra := fixtures.Pool("infra", false)
	infra.Spec.MachineConfigSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"}}}}
	in.Pools = []*mcfgv1.MachineConfigPool{fixtures.Pool("master", true), fixtures.Pool("worker", true), infra, fixtures.Pool("gpu", false)}
	out, err := render.Render(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	big := fixtures.MachineConfig("50-infra-big", "infra", fixtures.File("/etc/big", strings.Repeat("x", 300000)))
	small := fixtures.MachineConfig("50-worker-small", "worker", fixtures.File("/etc/small", strings.Repeat("y", 1000)))
	// A MachineConfig named as this project's (an earlier render's output among the manifests) is the render's.
	stale := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/stale", strings.Repeat("z", 300000)))
	base := render.DefaultRenderedBaseBytes
	sizes, err := out.EstimateRendered(base, in.Pools, []*mcfgv1.MachineConfig{big, small, stale})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]renderedconfig.Size{}
	var names []string
	for _, s := range sizes {
		got[s.Pool] = s
		names = append(names, s.Pool)
	}
	if strings.Join(names, " ") != "gpu infra master worker" {
		t.Fatalf("pools estimated: %q, want gpu infra master worker", names)
	}
	ours := len(out.MachineConfigs[0].Object.Spec.Config.Raw)
	worker, master, infraSize := got["worker"], got["master"], got["infra"]
	if got["gpu"].Bytes != base {
		t.Errorf("%s: a pool selecting none of the MachineConfigs is its base, %d bytes", got["gpu"], base)
	}
	// The file's JSON around its 1,000 bytes (path, mode, data URL, Ignition's empty fields) is about 500 bytes.
	if worker.Bytes < master.Bytes+1000 || worker.Bytes > master.Bytes+2000 {
		t.Errorf("worker %d bytes, master %d: the worker's 1,000-byte MachineConfig of the manifests is to be counted once, the stale copy of ours never", worker.Bytes, master.Bytes)
	}
	if infraSize.Bytes < worker.Bytes+300000 || infraSize.Bytes > worker.Bytes+300000+ours/10 {
		t.Errorf("infra %d bytes, worker %d: the custom pool is the worker's rendered MachineConfig plus its own 300,000-byte MachineConfig", infraSize.Bytes, worker.Bytes)
	}
	if worker.Over() || !infraSize.Over() {
		t.Fatalf("the case needs the worker under the limit and infra over it: %s; %s", worker, infraSize)
	}
	invalid := render.CheckRendered(out, sizes)
	if invalid == nil || !strings.Contains(invalid.Error(), "the rendered MachineConfig of pool infra is over the 1,572,864 bytes") ||
		!strings.Contains(invalid.Error(), "its largest other MachineConfigs: 50-infra-big (") {
		t.Errorf("problems: %v", invalid)
	}
	if ws := render.RenderedWarnings(sizes); len(ws) != 2 || !strings.Contains(ws[0], "pool master") || !strings.Contains(ws[1], "pool worker") {
		t.Errorf("warnings: %q, want master and worker near the limit", ws)
	}
}
