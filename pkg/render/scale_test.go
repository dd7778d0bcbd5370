package render_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
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

// distinctSources returns a cluster whose mirror objects (ImageDigestMirrorSets of 100 entries) name n distinct
// sources with two mirrors each, as oc-mirror names them (fixtures.ScaleEntry).
func distinctSources(n int) *inputs.Inputs {
	in := &inputs.Inputs{
		Image:          fixtures.Image(),
		ClusterVersion: fixtures.ClusterVersion(fixtures.ReleaseImage),
		Pools:          []*mcfgv1.MachineConfigPool{fixtures.Pool("master", true), fixtures.Pool("worker", true)},
	}
	const perObject = 100
	for first := 0; first < n; first += perObject {
		var entries []fixtures.MirrorEntry
		for i := first; i < min(n, first+perObject); i++ {
			entries = append(entries, fixtures.ScaleEntry(i, 0, 2))
		}
		in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, fixtures.IDMS(fmt.Sprintf("sources-%05d", first), entries...))
	}
	return in
}

// BenchmarkLargestInputThatFits searches the largest number of distinct sources with two mirrors each whose
// MachineConfigs render within the size budget (render.MaxMachineConfigBytes), and reports it with the size of its
// MachineConfig. One more source is over the budget, which it checks.
//
//	go test -run '^$' -bench BenchmarkLargestInputThatFits -benchtime 1x ./pkg/render
func BenchmarkLargestInputThatFits(b *testing.B) {
	for range b.N {
		largest := func(n int) (render.Size, bool) {
			out, err := render.Render(distinctSources(n), opts)
			var invalid *inputs.InvalidError
			if err != nil && !errors.As(err, &invalid) {
				b.Fatal(err)
			}
			if out == nil || len(out.Sizes) == 0 {
				b.Fatalf("%d sources: no sizes: %v", n, err)
			}
			s := slices.MaxFunc(out.Sizes, func(a, b render.Size) int { return a.Bytes - b.Bytes })
			if s.Over() != (err != nil) {
				b.Fatalf("%d sources: %s, but the render said %v", n, s, err)
			}
			return s, !s.Over()
		}
		fits, over := 1000, 2000
		for {
			if _, ok := largest(over); !ok {
				break
			}
			fits, over = over, over*2
		}
		for over-fits > 1 {
			if mid := (fits + over) / 2; func() bool { _, ok := largest(mid); return ok }() {
				fits = mid
			} else {
				over = mid
			}
		}
		size, ok := largest(fits)
		next, nextOK := largest(fits + 1)
		if !ok || nextOK {
			b.Fatalf("%d sources: %s; %d: %s", fits, size, fits+1, next)
		}
		b.ReportMetric(float64(fits), "sources")
		b.ReportMetric(float64(size.Bytes), "bytes")
		b.ReportMetric(float64(next.Bytes), "bytes-of-one-more")
		b.Logf("the largest input that fits: %d sources with 2 mirrors each: %s; one more: %d bytes", fits, size, next.Bytes)
	}
}

// BenchmarkDisconnectedClusterChange renders the 5,000 objects of the controller's scale benchmark after one object
// changed, as a sync of the controller does (the production Checker loads the changed files back): the part of the
// change-to-MachineConfig time at that scale spent in the render.
func BenchmarkDisconnectedClusterChange(b *testing.B) {
	d := fixtures.OCMirror(5000)
	in := exampleInputs()
	d.Into(in)
	if _, err := render.Render(in, opts); err != nil {
		b.Fatal(err)
	}
	idms := in.ImageDigestMirrorSets
	b.ResetTimer()
	for i := range b.N {
		changed := idms[0].DeepCopy()
		changed.Spec.ImageDigestMirrors[0].Mirrors = append(changed.Spec.ImageDigestMirrors[0].Mirrors, configv1.ImageMirror(fmt.Sprintf("change-%d.example.com/mirror", i)))
		in.ImageDigestMirrorSets = append([]*configv1.ImageDigestMirrorSet{changed}, idms[1:]...)
		if _, err := render.Render(in, opts); err != nil {
			b.Fatal(err)
		}
	}
}
