package credentialprovider_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/golden"
)

// TestGolden runs every case under testdata/golden. A case is a directory named as a sentence, holding:
//
//	input.yaml       the CRIOCredentialProviderConfig and, optionally, the Infrastructure "cluster" giving the
//	                 platform (none: platform None)
//	node/...         the expected node files at their node paths (node/etc/kubernetes/credential-providers/...);
//	                 no node/ directory: no file may be written
//	conditions.yaml  the expected Validated and MachineConfigRendered conditions after a successful write
//	kubelet.txt      for cases writing a provider file: images, as the kubelet looks them up, and the
//	                 providers the kubelet runs for each ("-": none). test/kubeletcreds checks the same table
//	                 against the kubelet's own code.
//
// The expected files are written by hand from MCO's observed output (the byte counts of the four platform
// files are 678, 596, 601 and 358, the drop-in 340), never produced by this code; there is no -update flag.
func TestGolden(t *testing.T) {
	for _, dir := range golden.Cases(t, "testdata/golden") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg, platform := readInput(t, dir)
			res, err := credentialprovider.RenderProviders(cfg, platform)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			compareNodeFiles(t, dir, platform, res.Files)

			var want []metav1.Condition
			readYAML(t, filepath.Join(dir, "conditions.yaml"), &want)
			if got := credentialprovider.Conditions(res, nil, cfg.Generation); !reflect.DeepEqual(got, want) {
				t.Errorf("conditions differ\nwant %+v\ngot  %+v", want, got)
			}

			table, hasTable := golden.Optional(t, dir, "kubelet.txt")
			provider, written := res.Files.Get(credentialprovider.ProviderFile(platform))
			if written != hasTable {
				t.Fatalf("a case writing a provider file needs a kubelet.txt, and only such a case: file %v, table %v", written, hasTable)
			}
			if written {
				checkKubeletTable(t, provider, table)
			}
		})
	}
}

// readInput decodes the case's input.yaml: the CRIOCredentialProviderConfig and the platform.
func readInput(t *testing.T, dir string) (*configv1.CRIOCredentialProviderConfig, configv1.PlatformType) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg *configv1.CRIOCredentialProviderConfig
	platform := configv1.NonePlatformType
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "CRIOCredentialProviderConfig":
			cfg = &configv1.CRIOCredentialProviderConfig{}
			if err := yaml.UnmarshalStrict(doc, cfg); err != nil {
				t.Fatal(err)
			}
		case "Infrastructure":
			var infra configv1.Infrastructure
			if err := yaml.UnmarshalStrict(doc, &infra); err != nil {
				t.Fatal(err)
			}
			platform = infra.Status.PlatformStatus.Type
		default:
			t.Fatalf("input.yaml: unexpected kind %q", meta.Kind)
		}
	}
	if cfg == nil {
		t.Fatal("input.yaml holds no CRIOCredentialProviderConfig")
	}
	return cfg, platform
}

// compareNodeFiles compares files with the case's node/ tree, and checks MCO's order: the provider file,
// then the drop-in.
func compareNodeFiles(t *testing.T, dir string, platform configv1.PlatformType, files nodefiles.Files) {
	t.Helper()
	want := map[string][]byte{}
	root := filepath.Join(dir, "node")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		want["/"+filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] = data
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, f := range files {
		got[f.Path] = f.Data
	}
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: want a file, got none", p)
		} else {
			golden.CompareText(t, p, string(w), string(g))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: want no file, got:\n%s", p, got[p])
		}
	}
	var wantOrder []string
	if len(want) > 0 {
		wantOrder = append(wantOrder, credentialprovider.ProviderFile(platform))
		if !credentialprovider.HasCloudProvider(platform) {
			wantOrder = append(wantOrder, credentialprovider.KubeletDropIn)
		}
	}
	if got := files.Paths(); !reflect.DeepEqual(got, wantOrder) && !(len(got) == 0 && len(wantOrder) == 0) {
		t.Errorf("file order: want %q, got %q", wantOrder, got)
	}
}

// checkKubeletTable checks ProvidersFor against a kubelet.txt table for the provider file.
func checkKubeletTable(t *testing.T, providerFile []byte, table string) {
	t.Helper()
	providers, err := credentialprovider.Providers(providerFile)
	if err != nil {
		t.Fatalf("Providers: %v", err)
	}
	rows := parseKubeletTable(t, table)
	for _, r := range rows {
		if got := credentialprovider.ProvidersFor(providers, r.image); !reflect.DeepEqual(got, r.providers) {
			t.Errorf("kubelet.txt: %s: want providers %q, got %q", r.image, r.providers, got)
		}
	}
}

type kubeletRow struct {
	image     string
	providers []string // nil: none
}

// parseKubeletTable reads "IMAGE PROVIDER..." lines ("-" for none), skipping comments.
func parseKubeletTable(t *testing.T, table string) []kubeletRow {
	t.Helper()
	var rows []kubeletRow
	for _, line := range strings.Split(table, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 2 {
			t.Fatalf("kubelet.txt: %q: want an image and its providers, or -", line)
		}
		r := kubeletRow{image: fields[0]}
		if fields[1] != "-" {
			r.providers = fields[1:]
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("kubelet.txt holds no row")
	}
	return rows
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
