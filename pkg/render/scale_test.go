package render_test

import (
	"testing"

	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// TestTheDisconnectedClusterOfTheScaleBenchmarkFits checks the premise of the controller's scale benchmark
// (test/integration/scale_bench_test.go): 5,000 objects as oc-mirror writes them, 20,000 entries for 2,000 sources,
// render MachineConfigs of about 70% of the size budget, below the 80% that warns; 1,000 objects a fifth of that.
func TestTheDisconnectedClusterOfTheScaleBenchmarkFits(t *testing.T) {
	for _, tc := range []struct {
		objects, entries, sources int
		minPercent, maxPercent    int
	}{
		{1000, 4000, 400, 12, 16},
		{5000, 20000, 2000, 68, 72},
	} {
		d := fixtures.OCMirror(tc.objects)
		if d.Entries != tc.entries || d.Sources() != tc.sources || len(d.Objects()) != tc.objects {
			t.Fatalf("%d objects: %d entries for %d sources in %d objects, want %d for %d", tc.objects, d.Entries, d.Sources(), len(d.Objects()), tc.entries, tc.sources)
		}
		// The mix oc-mirror writes: v1's ImageContentSourcePolicies for 3 catalog versions in 10, v2's mirror sets for
		// the others, by tag for one package in eight.
		if len(d.ICSP) != tc.objects*3/10 || len(d.ITMS) == 0 || len(d.IDMS) <= len(d.ICSP) {
			t.Errorf("%d objects: %d ICSP, %d IDMS, %d ITMS", tc.objects, len(d.ICSP), len(d.IDMS), len(d.ITMS))
		}
		in := exampleInputs()
		d.Into(in)
		out, err := render.Render(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range out.Sizes {
			if p := s.Percent(); p < tc.minPercent || p > tc.maxPercent || s.Near() {
				t.Errorf("%d objects: %s, want %d-%d%%", tc.objects, s, tc.minPercent, tc.maxPercent)
			}
		}
		t.Logf("%d objects: %s", tc.objects, out.Sizes[0])
	}
}
