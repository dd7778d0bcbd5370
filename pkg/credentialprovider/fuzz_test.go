package credentialprovider_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/test/fixtures"
)

// writtenFile is a provider file as any YAML reader sees it.
type writtenFile struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Providers  []struct {
		Name        string   `json:"name"`
		MatchImages []string `json:"matchImages"`
	} `json:"providers"`
}

// FuzzRender: for any list of entries (one per line) on any platform, Render does not panic, and fails only on
// entries the API server refuses by the CRD (crdRefuses); every
// entry is either kept or skipped, each once; a skipped entry overlaps the cloud provider and a kept one does
// not; and the written file reads back, with a YAML parser, as the platform's provider followed by
// crio-credential-provider with exactly the kept entries: no string turns into another by YAML quoting.
func FuzzRender(f *testing.F) {
	f.Add("example.com", uint8(0))
	f.Add("quay.io\n*.example.io\ndocker.io\nregistry.example.com:5000\nquay.io\na.io/ns/repo", uint8(1))
	f.Add("10.0.0.1:5000\n1.5\ny\non\nnull\nk8s.*\n*.*.registry.io\nregistry.io:8080/path\nno\ntrue\n0x1f.io\n123", uint8(3))
	f.Add("gcr.io\n*.gcr.io", uint8(1))
	f.Add("k8s.*\n*.io\n*.amazonaws.com\n*.dkr.ecr.*.amazonaws.com\nx.dkr.ecr.us-iso-east-1.c2s.ic.gov", uint8(0))
	f.Add("a: b\n'q'\n\"d\"\n- x\n#c\n\t\n~\n", uint8(3))
	platforms := []configv1.PlatformType{configv1.AWSPlatformType, configv1.GCPPlatformType, configv1.AzurePlatformType, configv1.NonePlatformType}
	f.Fuzz(func(t *testing.T, lines string, p uint8) {
		// Object strings are UTF-8: the API server (and Render's JSON step) turn invalid bytes into U+FFFD.
		images := strings.Split(strings.ToValidUTF8(lines, "\uFFFD"), "\n")
		if len(images) > 100 {
			images = images[:100]
		}
		platform := platforms[int(p)%len(platforms)]
		cfg := fixtures.CRIOCredentialProviderConfig(images...)
		res, err := credentialprovider.RenderProviders(cfg, platform)
		if err != nil {
			if !crdRefuses(t, cfg) {
				t.Fatalf("Render failed on input the API accepts: %v", err)
			}
			return // e.g. a control character, which YAML cannot carry: MCO fails the same way
		}
		want := slices.Clone(images)
		slices.Sort(want)
		want = slices.Compact(want)
		got := append(slices.Clone(res.MatchImages), res.Skipped...)
		slices.Sort(got)
		if !reflect.DeepEqual(got, want) || !slices.IsSorted(res.MatchImages) || !slices.IsSorted(res.Skipped) {
			t.Fatalf("kept %q and skipped %q are not the entries %q", res.MatchImages, res.Skipped, want)
		}
		if len(res.MatchImages) == 0 {
			if len(res.Files) != 0 {
				t.Fatalf("nothing kept but files %q", res.Files.Paths())
			}
			return
		}
		data, ok := res.Files.Get(credentialprovider.ProviderFile(platform))
		if !ok {
			t.Fatalf("no provider file in %q", res.Files.Paths())
		}
		var file writtenFile
		if err := yaml.Unmarshal(data, &file); err != nil {
			t.Fatalf("the provider file does not read back: %v\n%s", err, data)
		}
		last := len(file.Providers) - 1
		if last < 0 || file.Providers[last].Name != credentialprovider.PluginName || !reflect.DeepEqual(file.Providers[last].MatchImages, res.MatchImages) {
			t.Fatalf("the plugin's entry reads back as %+v, want matchImages %q\n%s", file.Providers, res.MatchImages, data)
		}
		cloud := file.Providers[:last]
		if len(cloud) != map[bool]int{true: 1, false: 0}[credentialprovider.HasCloudProvider(platform)] {
			t.Fatalf("%d providers besides the plugin on %q", len(cloud), platform)
		}
		overlapsCloud := func(img string) bool {
			for _, c := range cloud {
				for _, m := range c.MatchImages {
					if credentialprovider.Overlaps(img, m) {
						return true
					}
				}
			}
			return false
		}
		for _, img := range res.MatchImages {
			if overlapsCloud(img) {
				t.Fatalf("kept %q overlaps the cloud provider", img)
			}
		}
		for _, img := range res.Skipped {
			if !overlapsCloud(img) {
				t.Fatalf("skipped %q overlaps nothing", img)
			}
		}
	})
}
