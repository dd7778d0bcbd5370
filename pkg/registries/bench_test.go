package registries_test

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	refregistries "github.com/openshift/runtime-utils/pkg/registries"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/test/fixtures"
)

// The benchmarks compare our merge with the reference (openshift/runtime-utils EditRegistriesConfig) on
// the same inputs, in the same run:
//
//	BenchmarkMerge/sources=N/impl=ours|reference           the merge only: our validation, mirror-set
//	                                                        merge, payload rule and entries (MergeOnly),
//	                                                        against EditRegistriesConfig
//	BenchmarkMergeAndRender/sources=N/impl=ours|reference  the full path: registries.Merge (TOML encoding
//	                                                        and load-back with containers/image included),
//	                                                        against EditRegistriesConfig + TOML encoding
//
// hack/bench-report.sh runs them and prints the ratios.
var benchReferenceMax = flag.Int("bench.reference-max", envInt("REGISTRIES_BENCH_REFERENCE_MAX", 10000),
	"largest size at which the benchmarks run the reference, which is quadratic (env REGISTRIES_BENCH_REFERENCE_MAX)")

var benchSizes = []int{100, 1000, 10000, 50000}

func BenchmarkMerge(b *testing.B) {
	benchImpls(b, func(in *inputs.Inputs) error {
		_, err := registries.MergeOnly(in)
		return err
	}, func(in *inputs.Inputs) error {
		_, err := referenceEdit(in)
		return err
	})
}

func BenchmarkMergeAndRender(b *testing.B) {
	benchImpls(b, func(in *inputs.Inputs) error {
		_, err := registries.Merge(in)
		return err
	}, func(in *inputs.Inputs) error {
		conf, err := referenceEdit(in)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		return toml.NewEncoder(&buf).Encode(conf)
	})
}

// benchImpls runs ours and the reference side by side at every size, as sources=N/impl=ours|reference.
func benchImpls(b *testing.B, ours, reference func(*inputs.Inputs) error) {
	for _, n := range benchSizes {
		for _, impl := range []struct {
			name string
			run  func(*inputs.Inputs) error
		}{{"ours", ours}, {"reference", reference}} {
			b.Run(fmt.Sprintf("sources=%d/impl=%s", n, impl.name), func(b *testing.B) {
				if impl.name == "reference" {
					skipLargeReference(b, n)
				}
				in := benchInputs(b, n)
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.run(in); err != nil {
						b.Fatal(err)
					}
				}
				reportPerSource(b, n)
			})
		}
	}
}

func skipLargeReference(b *testing.B, n int) {
	if n > *benchReferenceMax {
		b.Skipf("the reference is quadratic; it runs up to %d sources (-bench.reference-max)", *benchReferenceMax)
	}
}

func reportPerSource(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/source")
}

// referenceEdit is the reference merge on the node's base configuration.
func referenceEdit(in *inputs.Inputs) (*sysregistriesv2.V2RegistriesConf, error) {
	conf := &sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: []string{"registry.access.redhat.com", "docker.io"}}
	rs := in.RegistrySources()
	err := refregistries.EditRegistriesConfig(conf, rs.InsecureRegistries, rs.BlockedRegistries,
		in.ImageContentSourcePolicies, in.ImageDigestMirrorSets, in.ImageTagMirrorSets)
	return conf, err
}

// benchInputs returns a realistic configuration with n mirror entries: registries holding team
// namespaces and repositories, some sources nested in others and several entries for one source; three
// mirrors per source (two internal mirrors, one with a port, and a disaster-recovery copy); 70% in
// ImageDigestMirrorSets, 20% in ImageTagMirrorSets, 10% in ImageContentSourcePolicies, 50 entries per
// object; NeverContactSource on about 10% of the sources. Insecure and blocked scopes are 5% of n each:
// namespaces below mirrored sources (so that they inherit mirrors), mirror namespaces (so that mirrors are
// insecure) and a few whole registries.
func benchInputs(tb testing.TB, n int) *inputs.Inputs {
	if in := benchInputCache[n]; in != nil {
		return in
	}
	hosts := max(1, n/25)
	host := func(i int) string {
		h := fmt.Sprintf("registry-%04d.corp.example.com", i%hosts)
		if i%hosts%7 == 3 {
			h += ":5000"
		}
		return h
	}
	in := &inputs.Inputs{ClusterVersion: fixtures.ClusterVersion(fixtures.ReleaseImage)}
	var (
		idms *configv1.ImageDigestMirrorSet
		itms *configv1.ImageTagMirrorSet
		icsp *operatorv1alpha1.ImageContentSourcePolicy
	)
	sources := make([]string, n)
	for i := range n {
		path := fmt.Sprintf("team-%d", (i/hosts)%20)
		if i%4 != 0 {
			path += fmt.Sprintf("/app-%d", i)
		}
		src := host(i) + "/" + path
		sources[i] = src
		entry := fixtures.Mirror(src,
			"mirror-a.internal/"+path,
			"mirror-b.internal:5000/"+path,
			fmt.Sprintf("dr.backup.example.net/r%d/%s", i%hosts, path))
		never := benchHash(src)%10 == 0
		switch k := i % 10; {
		case k == 9 && !never:
			if len(in.ImageContentSourcePolicies) == 0 || len(icsp.Spec.RepositoryDigestMirrors) == 50 {
				icsp = fixtures.ICSP(fmt.Sprintf("icsp-%d", i))
				in.ImageContentSourcePolicies = append(in.ImageContentSourcePolicies, icsp)
			}
			icsp.Spec.RepositoryDigestMirrors = append(icsp.Spec.RepositoryDigestMirrors, fixtures.ICSP("", entry).Spec.RepositoryDigestMirrors...)
		case k >= 7:
			if never {
				entry = entry.Never()
			}
			if len(in.ImageTagMirrorSets) == 0 || len(itms.Spec.ImageTagMirrors) == 50 {
				itms = fixtures.ITMS(fmt.Sprintf("itms-%d", i))
				in.ImageTagMirrorSets = append(in.ImageTagMirrorSets, itms)
			}
			itms.Spec.ImageTagMirrors = append(itms.Spec.ImageTagMirrors, fixtures.ITMS("", entry).Spec.ImageTagMirrors...)
		default:
			if never {
				entry = entry.Never()
			}
			if len(in.ImageDigestMirrorSets) == 0 || len(idms.Spec.ImageDigestMirrors) == 50 {
				idms = fixtures.IDMS(fmt.Sprintf("idms-%d", i))
				in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, idms)
			}
			idms.Spec.ImageDigestMirrors = append(idms.Spec.ImageDigestMirrors, fixtures.IDMS("", entry).Spec.ImageDigestMirrors...)
		}
	}
	rs := fixtures.RegistrySources(in)
	for j := range max(1, n/20) {
		src := sources[(j*20+7)%n]
		switch j % 10 {
		case 0:
			rs.InsecureRegistries = append(rs.InsecureRegistries, fmt.Sprintf("mirror-b.internal:5000/team-%d", j%20))
			rs.BlockedRegistries = append(rs.BlockedRegistries, fmt.Sprintf("old-registry-%d.corp.example.com", j))
		case 1, 2, 3:
			rs.InsecureRegistries = append(rs.InsecureRegistries, host(j)+"/lab")
			rs.BlockedRegistries = append(rs.BlockedRegistries, src+"/deprecated")
		default:
			rs.InsecureRegistries = append(rs.InsecureRegistries, src+"/dev")
			rs.BlockedRegistries = append(rs.BlockedRegistries, src+"/internal/unsafe")
		}
	}
	if _, err := registries.Merge(in); err != nil {
		tb.Fatalf("benchmark input of %d sources is invalid: %v", n, err)
	}
	benchInputCache[n] = in
	return in
}

// benchInputCache holds the inputs of each size, built once (sub-benchmarks run one at a time).
var benchInputCache = map[int]*inputs.Inputs{}

func benchHash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
