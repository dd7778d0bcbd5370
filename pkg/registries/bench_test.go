package registries_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	refregistries "github.com/openshift/runtime-utils/pkg/registries"
	"github.com/vincent-petithory/dataurl"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// The benchmarks compare our merge with MCO (openshift/runtime-utils EditRegistriesConfig) on
// the same inputs, in the same run:
//
//	BenchmarkMerge/sources=N/impl=ours|mco           the merge only: our validation, mirror-set
//	                                                        merge, payload rule and entries (MergeOnly),
//	                                                        against EditRegistriesConfig
//	BenchmarkMergeAndRender/sources=N/impl=ours|mco  the full path: render.Render, what a sync computes
//	                                                        (merge, TOML encoding, the Checker's load-back with
//	                                                        containers/image, the MachineConfigs of master and
//	                                                        worker), against what MCO computes for the same
//	                                                        files: EditRegistriesConfig, the TOML encoding, and
//	                                                        the Ignition config of each pool's MachineConfig
//	                                                        (mcoMachineConfig). Two configurations that
//	                                                        differ in one mirror alternate, so every render of
//	                                                        ours is loaded back with containers/image.
//	BenchmarkMergeAndRender/sources=N/impl=ours-unchanged  render.Render of unchanged inputs, as on a resync or
//	                                                        an unrelated event: the Checker remembers the files
//	                                                        it last accepted and does not load them again.
//	BenchmarkMergeAndRender/sources=N/impl=ours-noload     render.Render of the same alternating inputs as
//	                                                        impl=ours with a Checker that loads nothing: what
//	                                                        the render costs without the load-back, which the
//	                                                        MCO does not do (the difference between
//	                                                        the two is the price of that proof).
//
// hack/bench-report.sh runs them and prints the ratios.
var benchMCOMax = flag.Int("bench.mco-max", envInt("REGISTRIES_BENCH_MCO_MAX", 10000),
	"largest size at which the benchmarks run MCO, which is quadratic (env REGISTRIES_BENCH_MCO_MAX)")

var benchSizes = []int{100, 1000, 10000, 50000}

func BenchmarkMerge(b *testing.B) {
	benchImpls(b, func(in *inputs.Inputs) error {
		_, err := registries.MergeOnly(in)
		return err
	}, func(in *inputs.Inputs) error {
		_, err := mcoEdit(in)
		return err
	})
}

func BenchmarkMergeAndRender(b *testing.B) {
	checker := registriesconf.NewChecker()
	b.Cleanup(checker.Close)
	opts := render.Options{Checker: checker}
	variants := map[*inputs.Inputs]*inputs.Inputs{}
	alternate := 0
	benchImpls(b, func(in *inputs.Inputs) error {
		if variants[in] == nil {
			variants[in] = withOneMoreMirror(in)
		}
		if alternate++; alternate%2 == 0 {
			in = variants[in]
		}
		_, err := render.Render(in, opts)
		return err
	}, func(in *inputs.Inputs) error {
		// MCO builds each built-in pool's MachineConfig from scratch: syncImageConfig calls
		// registriesConfigIgnition inside its loop over the pools, and that decodes the pool's base
		// registries.conf, merges (updateRegistriesConfig: EditRegistriesConfig) and encodes every time.
		for range 2 {
			conf, err := mcoEditBase(in)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
				return err
			}
			if err := mcoMachineConfig(buf.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}, benchImpl{"ours-unchanged", func(in *inputs.Inputs) error {
		_, err := render.Render(in, opts)
		return err
	}}, benchImpl{"ours-noload", func(in *inputs.Inputs) error {
		if variants[in] == nil {
			variants[in] = withOneMoreMirror(in)
		}
		if alternate++; alternate%2 == 0 {
			in = variants[in]
		}
		_, err := render.Render(in, render.Options{Checker: noLoad{}})
		return err
	}})
}

// noLoad is a Checker that loads nothing: it counts the [[registry]] tables of registries.conf, which render
// compares with the entries it wrote. It isolates the load-back's cost; nothing but this benchmark uses it.
type noLoad struct{}

func (noLoad) Check(files nodefiles.Files) (int, error) {
	conf, _ := files.Get(nodefiles.RegistriesConf)
	return bytes.Count(conf, []byte("[[registry]]")), nil
}

// benchImpls runs ours and MCO side by side at every size, as sources=N/impl=ours|mco, and
// the extra implementations given, named as they say.
func benchImpls(b *testing.B, ours, mco func(*inputs.Inputs) error, extra ...benchImpl) {
	for _, n := range benchSizes {
		for _, impl := range append([]benchImpl{{"ours", ours}, {"mco", mco}}, extra...) {
			b.Run(fmt.Sprintf("sources=%d/impl=%s", n, impl.name), func(b *testing.B) {
				if impl.name == "mco" {
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

// mcoMachineConfig builds what MCO builds for a pool once registries.conf is encoded: an Ignition 3
// config writing the file (overwrite, mode 0644, a data URL), as JSON.
func mcoMachineConfig(registriesConf []byte) error {
	cfg := ign3types.Config{Ignition: ign3types.Ignition{Version: "3.5.0"}}
	source := dataurl.EncodeBytes(registriesConf)
	mode, overwrite := 0o644, true
	cfg.Storage.Files = append(cfg.Storage.Files, ign3types.File{
		Node:          ign3types.Node{Path: "/etc/containers/registries.conf", Overwrite: &overwrite},
		FileEmbedded1: ign3types.FileEmbedded1{Contents: ign3types.Resource{Source: &source}, Mode: &mode},
	})
	_, err := json.Marshal(cfg)
	return err
}

// benchImpl is one implementation benchmarked.
type benchImpl struct {
	name string
	run  func(*inputs.Inputs) error
}

// withOneMoreMirror returns in with one more mirror on the first ImageDigestMirrorSet entry: a change of one
// mirror, as an admin makes it.
func withOneMoreMirror(in *inputs.Inputs) *inputs.Inputs {
	out := *in
	out.ImageDigestMirrorSets = slices.Clone(in.ImageDigestMirrorSets)
	first := out.ImageDigestMirrorSets[0].DeepCopy()
	first.Spec.ImageDigestMirrors[0].Mirrors = append(first.Spec.ImageDigestMirrors[0].Mirrors, "mirror-c.internal/extra")
	out.ImageDigestMirrorSets[0] = first
	return &out
}

func skipLargeReference(b *testing.B, n int) {
	if n > *benchMCOMax {
		b.Skipf("MCO is quadratic; it runs up to %d sources (-bench.mco-max)", *benchMCOMax)
	}
}

func reportPerSource(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/source")
}

// mcoEdit is MCO's merge on the node's base configuration.
func mcoEdit(in *inputs.Inputs) (*sysregistriesv2.V2RegistriesConf, error) {
	conf := &sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: []string{"registry.access.redhat.com", "docker.io"}}
	return conf, mcoEditConf(conf, in)
}

// mcoEditBase is MCO's updateRegistriesConfig: the base registries.conf decoded, then MCO's merge.
// (MCO also runs validateRegistriesConfScopes there, which this leaves out: MCO is not slowed down.)
func mcoEditBase(in *inputs.Inputs) (*sysregistriesv2.V2RegistriesConf, error) {
	conf := &sysregistriesv2.V2RegistriesConf{}
	if _, err := toml.Decode(string(nodefiles.Base(nodefiles.RegistriesConf)), conf); err != nil {
		return nil, err
	}
	return conf, mcoEditConf(conf, in)
}

func mcoEditConf(conf *sysregistriesv2.V2RegistriesConf, in *inputs.Inputs) error {
	rs := in.RegistrySources()
	return refregistries.EditRegistriesConfig(conf, rs.InsecureRegistries, rs.BlockedRegistries,
		in.ImageContentSourcePolicies, in.ImageDigestMirrorSets, in.ImageTagMirrorSets)
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
