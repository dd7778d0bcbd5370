package credentialprovider_test

import (
	"encoding/base64"
	"os"
	"reflect"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/test/fixtures"
)

var cloudPlatforms = []configv1.PlatformType{configv1.AWSPlatformType, configv1.GCPPlatformType, configv1.AzurePlatformType}

// genericPlatforms take the generic path: every platform but AWS, GCP and Azure, including none and unknown.
var genericPlatforms = []configv1.PlatformType{"", configv1.NonePlatformType, configv1.ExternalPlatformType,
	configv1.BareMetalPlatformType, configv1.VSpherePlatformType, configv1.OpenStackPlatformType,
	configv1.NutanixPlatformType, configv1.PowerVSPlatformType, configv1.KubevirtPlatformType,
	configv1.LibvirtPlatformType, configv1.OvirtPlatformType, configv1.IBMCloudPlatformType, "unrecognized"}

func allPlatforms() []configv1.PlatformType {
	return append(append([]configv1.PlatformType{}, cloudPlatforms...), genericPlatforms...)
}

func TestProviderFilePerPlatform(t *testing.T) {
	want := map[configv1.PlatformType]string{
		configv1.AWSPlatformType:   "/etc/kubernetes/credential-providers/ecr-credential-provider.yaml",
		configv1.GCPPlatformType:   "/etc/kubernetes/credential-providers/gcr-credential-provider.yaml",
		configv1.AzurePlatformType: "/etc/kubernetes/credential-providers/acr-credential-provider.yaml",
	}
	for _, p := range allPlatforms() {
		w, cloud := want[p]
		if !cloud {
			w = "/etc/kubernetes/credential-providers/generic-credential-provider.yaml"
		}
		if got := credentialprovider.ProviderFile(p); got != w {
			t.Errorf("ProviderFile(%q) = %q, want %q", p, got, w)
		}
		if got := credentialprovider.HasCloudProvider(p); got != cloud {
			t.Errorf("HasCloudProvider(%q) = %v, want %v", p, got, cloud)
		}
	}
}

// TestNothingToRender: no object, no spec, spec: {} and an empty list write no file on any platform (MCO's
// TestCrioCredentialProviderConfigCreateEmpty: the MachineConfig has zero files), and skip nothing.
func TestNothingToRender(t *testing.T) {
	inputs := map[string]*configv1.CRIOCredentialProviderConfig{
		"no object":  nil,
		"no spec":    {ObjectMeta: metav1.ObjectMeta{Name: "cluster"}},
		"empty spec": fixtures.CRIOCredentialProviderConfig(),
		"empty list": {ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: &configv1.CRIOCredentialProviderConfigSpec{MatchImages: []configv1.MatchImage{}}},
	}
	for name, cfg := range inputs {
		for _, p := range allPlatforms() {
			res, err := credentialprovider.RenderProviders(cfg, p)
			if err != nil {
				t.Fatalf("%s on %q: %v", name, p, err)
			}
			if len(res.Files) != 0 || res.MatchImages != nil || res.Skipped != nil {
				t.Errorf("%s on %q: want nothing, got %+v", name, p, res)
			}
		}
	}
}

// TestGenericPlatformsWriteTheSameFiles: every platform without a cloud provider gets the generic file and
// the drop-in of platform None, byte for byte (the golden case's files).
func TestGenericPlatformsWriteTheSameFiles(t *testing.T) {
	dir := "testdata/golden/on_platform_none_the_generic_file_and_the_kubelet_drop_in_are_written/node"
	wantYAML, err := os.ReadFile(dir + "/etc/kubernetes/credential-providers/generic-credential-provider.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wantDropIn, err := os.ReadFile(dir + "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range genericPlatforms {
		res, err := credentialprovider.RenderProviders(fixtures.CRIOCredentialProviderConfig("example.com"), p)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Files.Paths(); !reflect.DeepEqual(got, []string{credentialprovider.ProviderDir + "/generic-credential-provider.yaml", credentialprovider.KubeletDropIn}) {
			t.Fatalf("%q: paths %q", p, got)
		}
		if string(res.Files[0].Data) != string(wantYAML) || string(res.Files[1].Data) != string(wantDropIn) {
			t.Errorf("%q: the files differ from platform None's", p)
		}
	}
}

// TestGenericFileDataURL checks the start and end of the base64 MCO puts in the data URL of the generic file.
func TestGenericFileDataURL(t *testing.T) {
	res, err := credentialprovider.RenderProviders(fixtures.CRIOCredentialProviderConfig("example.com"), configv1.NonePlatformType)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(res.Files[0].Data)
	const start = "YXBpVmVyc2lvbjoga3ViZWxldC5jb25maWcuazhzLmlvL3YxCmtpbmQ6IENyZWRlbnRpYWxQcm92aWRlckNvbmZpZwpwcm92aWRlcnM6Ci0g"
	if !strings.HasPrefix(b64, start) || !strings.HasSuffix(b64, "c3ZjCg==") {
		t.Errorf("base64 %s", b64)
	}
	if len(res.Files[0].Data) != 358 || len(res.Files[1].Data) != 340 {
		t.Errorf("sizes %d and %d, want 358 and 340", len(res.Files[0].Data), len(res.Files[1].Data))
	}
}

// TestCreateThenUpdate follows MCO's TestCrioCredentialProviderConfigCreate and ...Update: on every platform
// the provider file holds a crio-credential-provider entry with every image of the spec, and the drop-in only
// on the generic path.
func TestCreateThenUpdate(t *testing.T) {
	for _, p := range append(cloudPlatforms, configv1.NonePlatformType) {
		for _, images := range [][]string{{"example.com"}, {"example.com", "example1.com"}} {
			res, err := credentialprovider.RenderProviders(fixtures.CRIOCredentialProviderConfig(images...), p)
			if err != nil {
				t.Fatal(err)
			}
			data, ok := res.Files.Get(credentialprovider.ProviderFile(p))
			if !ok {
				t.Fatalf("%q: no provider file", p)
			}
			providers, err := credentialprovider.Providers(data)
			if err != nil {
				t.Fatal(err)
			}
			last := providers[len(providers)-1]
			if last.Name != "crio-credential-provider" || !reflect.DeepEqual(last.MatchImages, images) || !reflect.DeepEqual(res.MatchImages, images) {
				t.Errorf("%q %q: got %+v", p, images, last)
			}
			if _, hasDropIn := res.Files.Get(credentialprovider.KubeletDropIn); hasDropIn != (p == configv1.NonePlatformType) {
				t.Errorf("%q: drop-in written: %v", p, hasDropIn)
			}
		}
	}
}

// TestMergeVectors: the merge table's rows, for MatchImages and Skipped, including the platforms the golden
// cases do not cover.
func TestMergeVectors(t *testing.T) {
	dedup := []string{"quay.io", "*.example.io", "docker.io", "registry.example.com:5000", "quay.io", "a.io/ns/repo"}
	dedupWant := []string{"*.example.io", "a.io/ns/repo", "docker.io", "quay.io", "registry.example.com:5000"}
	type row struct {
		platform configv1.PlatformType
		images   []string
		survive  []string
		skipped  []string
	}
	rows := []row{
		{configv1.AWSPlatformType, []string{"123456789012.dkr.ecr.us-east-1.amazonaws.com", "quay.io", "*.amazonaws.com"},
			[]string{"123456789012.dkr.ecr.us-east-1.amazonaws.com", "quay.io"}, []string{"*.amazonaws.com"}},
		{configv1.AWSPlatformType, []string{"k8s.*", "*.io", "*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com", "x.dkr.ecr.us-iso-east-1.c2s.ic.gov"},
			[]string{"*.io", "k8s.*"}, []string{"*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com", "x.dkr.ecr.us-iso-east-1.c2s.ic.gov"}},
		{configv1.GCPPlatformType, []string{"gcr.io", "*.cloud.google.com", "myhost.com", "gcr.io/foo", "us-docker.pkg.dev"},
			[]string{"myhost.com"}, []string{"*.cloud.google.com", "gcr.io", "gcr.io/foo", "us-docker.pkg.dev"}},
		{configv1.GCPPlatformType, []string{"gcr.io", "*.gcr.io"}, nil, []string{"*.gcr.io", "gcr.io"}},
		{configv1.GCPPlatformType, []string{"gcr.io:443", "gcr.io/x", "eu.gcr.io", "*.dev", "pkg.dev", "container.cloud.google.com/foo"},
			[]string{"gcr.io:443", "pkg.dev"}, []string{"*.dev", "container.cloud.google.com/foo", "eu.gcr.io", "gcr.io/x"}},
		{configv1.AzurePlatformType, []string{"myreg.azurecr.io", "*.azurecr.io", "mirror.local:5000/ns"},
			[]string{"mirror.local:5000/ns"}, []string{"*.azurecr.io", "myreg.azurecr.io"}},
		{configv1.AzurePlatformType, []string{"*.azurecr.io", "foo.azurecr.de", "azurecr.io", "x.azurecr.us/ns"},
			[]string{"azurecr.io"}, []string{"*.azurecr.io", "foo.azurecr.de", "x.azurecr.us/ns"}},
	}
	// On None nothing overlaps: every input of the cloud rows is kept, sorted (written out by hand).
	rows = append(rows,
		row{configv1.NonePlatformType, rows[0].images, []string{"*.amazonaws.com", "123456789012.dkr.ecr.us-east-1.amazonaws.com", "quay.io"}, nil},
		row{configv1.NonePlatformType, rows[1].images, []string{"*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com", "*.io", "k8s.*", "x.dkr.ecr.us-iso-east-1.c2s.ic.gov"}, nil},
		row{configv1.NonePlatformType, rows[3].images, []string{"*.gcr.io", "gcr.io"}, nil},
		row{configv1.NonePlatformType, rows[4].images, []string{"*.dev", "container.cloud.google.com/foo", "eu.gcr.io", "gcr.io/x", "gcr.io:443", "pkg.dev"}, nil},
		row{configv1.NonePlatformType, rows[5].images, []string{"*.azurecr.io", "mirror.local:5000/ns", "myreg.azurecr.io"}, nil},
		row{configv1.NonePlatformType, rows[6].images, []string{"*.azurecr.io", "azurecr.io", "foo.azurecr.de", "x.azurecr.us/ns"}, nil},
	)
	for _, p := range allPlatforms() {
		rows = append(rows, row{p, dedup, dedupWant, nil})
	}
	for _, r := range rows {
		res, err := credentialprovider.RenderProviders(fixtures.CRIOCredentialProviderConfig(r.images...), r.platform)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.MatchImages, r.survive) || !reflect.DeepEqual(res.Skipped, r.skipped) {
			t.Errorf("%q %q: want kept %q skipped %q, got kept %q skipped %q", r.platform, r.images, r.survive, r.skipped, res.MatchImages, res.Skipped)
		}
		if (len(res.Files) > 0) != (r.survive != nil) {
			t.Errorf("%q %q: files %q", r.platform, r.images, res.Files.Paths())
		}
	}
}

func TestRenderDoesNotChangeItsInput(t *testing.T) {
	cfg := fixtures.CRIOCredentialProviderConfig("quay.io", "*.gcr.io", "a.io")
	want := cfg.DeepCopy()
	if _, err := credentialprovider.RenderProviders(cfg, configv1.GCPPlatformType); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Render changed its input: %+v", cfg.Spec)
	}
}

func TestOverlaps(t *testing.T) {
	cases := []struct {
		image, existing string
		want            bool
	}{
		{"gcr.io", "gcr.io", true},
		{"gcr.io/foo", "gcr.io", true},
		{"gcr.io", "gcr.io/foo", true}, // either way round
		{"gcr.io:443", "gcr.io", false},
		{"gcr.iox", "gcr.io", false},
		{"eu.gcr.io", "*.gcr.io", true},
		{"a.b.gcr.io", "*.gcr.io", true}, // a leading wildcard covers any depth here, unlike in the kubelet
		{"gcr.io", "*.gcr.io", false},
		{"*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com", true},
		{"123456789012.dkr.ecr.us-east-1.amazonaws.com", "*.dkr.ecr.*.amazonaws.com", false}, // a middle "*" is literal
		{"x.azurecr.us/ns", "*.azurecr.us", true},
		{"quay.io/bar.foo:400", "*.foo", false},
		{"container.cloud.google.com/foo", "*.cloud.google.com", true},
		{"k8s.*", "*.dkr.ecr.*.amazonaws.com", false},
	}
	for _, tc := range cases {
		if got := credentialprovider.Overlaps(tc.image, tc.existing); got != tc.want {
			t.Errorf("Overlaps(%q, %q) = %v, want %v", tc.image, tc.existing, got, tc.want)
		}
	}
}

// TestControlCharacterFails: YAML cannot carry a control character, so MCO's serialisation fails on one, and
// so does Render; the API server refuses such an entry by the CRD's pattern rule.
func TestControlCharacterFails(t *testing.T) {
	cfg := fixtures.CRIOCredentialProviderConfig("quay.io\x7f")
	if _, err := credentialprovider.RenderProviders(cfg, configv1.NonePlatformType); err == nil || !strings.Contains(err.Error(), "control characters") {
		t.Errorf("want the YAML error, got %v", err)
	}
	if !crdRefuses(t, cfg) {
		t.Error("the API refuses the entry")
	}
}
