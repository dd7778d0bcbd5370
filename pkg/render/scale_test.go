package render_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
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

// platformBase is the rendered MachineConfig of a default cluster's pool before this project's MachineConfigs,
// measured with MCO 7ff337a's own bootstrap code (every MachineConfig an install creates for the pool, the default
// `openshift` ClusterImagePolicy, no mirrors; issue 23).
type platformBase struct {
	platform, pool string
	bytes          int
}

// platformBases are the measured defaults: the issue gives these ten (platform None's master and vSphere's worker
// were not given).
var platformBases = []platformBase{
	{"None", "worker", 177884},
	{"AWS", "worker", 187827},
	{"AWS", "master", 189814},
	{"Azure", "worker", 181039},
	{"Azure", "master", 200904},
	{"GCP", "worker", 180897},
	{"GCP", "master", 201878},
	{"BareMetal", "worker", 223155},
	{"BareMetal", "master", 240489},
	{"vSphere", "master", render.DefaultRenderedBaseBytes},
}

// inputShape is how the mirror entries of the largest-input search look: entry i of n.
type inputShape struct {
	name  string
	entry func(i int) fixtures.MirrorEntry
}

var inputShapes = []inputShape{
	// An ImageDigestMirrorSet entry of one mirror per distinct source, as oc-mirror names them (the shape).
	{"idms-entries-of-one-mirror", func(i int) fixtures.MirrorEntry { return fixtures.ScaleEntry(i, 0, 1) }},
	// A distinct source with two mirrors.
	{"sources-of-two-mirrors", func(i int) fixtures.MirrorEntry { return fixtures.ScaleEntry(i, 0, 2) }},
}

// shapeInputs returns a cluster whose ImageDigestMirrorSets (of 100 entries) hold the entries 0..n-1 of shape.
func shapeInputs(shape inputShape, n int) *inputs.Inputs {
	in := &inputs.Inputs{
		Image:          fixtures.Image(),
		ClusterVersion: fixtures.ClusterVersion(fixtures.ReleaseImage),
		Pools:          []*mcfgv1.MachineConfigPool{fixtures.Pool("master", true), fixtures.Pool("worker", true)},
	}
	const perObject = 100
	for first := 0; first < n; first += perObject {
		var entries []fixtures.MirrorEntry
		for i := first; i < min(n, first+perObject); i++ {
			entries = append(entries, shape.entry(i))
		}
		in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, fixtures.IDMS(fmt.Sprintf("entries-%05d", first), entries...))
	}
	return in
}

// shapeSize is what n entries of a shape render to.
type shapeSize struct {
	// registriesConf is the length of the worker pool's registries.conf.
	registriesConf int
	// added is what this project's MachineConfigs add to a pool's rendered MachineConfig (its estimate on a base of 0).
	added int
	// ownOver reports whether this project's own MachineConfig is over etcd's request limit (the render refuses it).
	ownOver bool
}

// BenchmarkLargestInputThatFits finds, for each platform's default pool (platformBases) and each input shape
// (inputShapes), the largest number of entries whose pool's rendered MachineConfig stays within the 1,572,864 bytes
// MCO's render controller accepts (render.EstimateRendered with the platform's base, as `render
// --rendered-base-bytes` computes it), checks that one more entry is over it, and reports the count, the
// registries.conf and the rendered MachineConfig. Byte counts do not depend on the machine's load; -v prints the
// table of docs/benchmarks.md.
//
//	go test -run '^$' -bench BenchmarkLargestInputThatFits -benchtime 1x -v ./pkg/render
func BenchmarkLargestInputThatFits(b *testing.B) {
	sizes := map[string]map[int]shapeSize{}
	size := func(shape inputShape, n int) shapeSize {
		if s, ok := sizes[shape.name][n]; ok {
			return s
		}
		out, err := render.Render(shapeInputs(shape, n), opts)
		var invalid *inputs.InvalidError
		if err != nil && !errors.As(err, &invalid) {
			b.Fatal(err)
		}
		if out == nil {
			b.Fatalf("%s, %d entries: %v", shape.name, n, err)
		}
		est, estErr := out.EstimateRendered(0, nil, nil)
		if estErr != nil {
			b.Fatal(estErr)
		}
		s := shapeSize{ownOver: err != nil}
		for _, e := range est {
			s.added = max(s.added, e.Bytes)
		}
		for _, f := range out.PoolFiles("worker") {
			if f.Path == "/etc/containers/registries.conf" {
				s.registriesConf = len(f.Data)
			}
		}
		if sizes[shape.name] == nil {
			sizes[shape.name] = map[int]shapeSize{}
		}
		sizes[shape.name][n] = s
		return s
	}
	fits := func(shape inputShape, base, n int) bool {
		s := size(shape, n)
		return !s.ownOver && base+s.added <= renderedconfig.MaxBytes
	}
	var table []string
	for range b.N {
		table = table[:0]
		for _, p := range platformBases {
			for _, shape := range inputShapes {
				b.Run(fmt.Sprintf("platform=%s/pool=%s/shape=%s", p.platform, p.pool, shape.name), func(b *testing.B) {
					// Bracket the answer around a guess from the size of 1,000 entries, then bisect.
					per := size(shape, 1000).added / 1000
					lo, hi := (renderedconfig.MaxBytes-p.bytes)/per-100, (renderedconfig.MaxBytes-p.bytes)/per+100
					for !fits(shape, p.bytes, lo) {
						lo -= 500
					}
					for fits(shape, p.bytes, hi) {
						hi += 500
					}
					for hi-lo > 1 {
						if mid := (lo + hi) / 2; fits(shape, p.bytes, mid) {
							lo = mid
						} else {
							hi = mid
						}
					}
					// What `render --rendered-base-bytes` says of the answer and of one more entry.
					check := func(n int) (*render.Output, []renderedconfig.Size) {
						out, err := render.Render(shapeInputs(shape, n), opts)
						if err != nil {
							b.Fatalf("%d entries: %v", n, err)
						}
						est, err := out.EstimateRendered(p.bytes, nil, nil)
						if err != nil {
							b.Fatal(err)
						}
						return out, est
					}
					out, largest := check(lo)
					outMore, oneMore := check(lo + 1)
					rendered := slices.MaxFunc(largest, func(a, b renderedconfig.Size) int { return a.Bytes - b.Bytes })
					if rendered.Over() || render.CheckRendered(out, largest) != nil || render.CheckRendered(outMore, oneMore) == nil {
						b.Fatalf("%d entries: %s; one more not refused: %v", lo, rendered, oneMore)
					}
					b.ReportMetric(float64(lo), "entries")
					b.ReportMetric(float64(size(shape, lo).registriesConf), "registries.conf-bytes")
					b.ReportMetric(float64(rendered.Bytes), "rendered-bytes")
					table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |", p.platform, p.pool, renderedconfig.Thousands(p.bytes),
						shape.name, renderedconfig.Thousands(lo), renderedconfig.Thousands(size(shape, lo).registriesConf), renderedconfig.Thousands(rendered.Bytes)))
				})
			}
		}
	}
	b.Logf("the largest input that fits the pool's rendered MachineConfig (1,572,864 bytes):\n"+
		"| platform | pool | base (bytes) | input shape | entries | registries.conf (bytes) | rendered MachineConfig (bytes) |\n"+
		"|---|---|--:|---|--:|--:|--:|\n%s", strings.Join(table, "\n"))
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
