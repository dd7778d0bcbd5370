package nodetree

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// writeTree writes files (path relative to dir -> contents) and returns dir.
func writeTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// summary renders a tree as "pool: path=contents, ..." lines, sorted by pool.
func summary(tree Tree) []string {
	var out []string
	for pool, files := range tree {
		var fs []string
		for _, f := range files {
			fs = append(fs, f.Path+"="+string(f.Data))
		}
		out = append(out, pool+": "+strings.Join(fs, ", "))
	}
	slices.Sort(out)
	return out
}

const conf = `unqualified-search-registries = ["quay.io"]`

func TestReadAPoolDirectoryReadsEveryManagedNodeFile(t *testing.T) {
	dir := writeTree(t, t.TempDir(), map[string]string{
		"etc/containers/registries.conf":                                  conf,
		"etc/containers/policy.json":                                      "{}",
		"etc/containers/registries.d/sigstore-registries.yaml":            "docker: {}\n",
		"etc/crio/policies/team-b.json":                                   "{b}",
		"etc/crio/policies/team-a.json":                                   "{a}",
		"etc/containers/registries.conf.d/01-image-searchRegistries.conf": "s",
		"etc/containers/unrelated.conf":                                   "not a node path the render writes",
		"etc/containers/registries.d/sub/nested.yaml":                     "not written by the render either",
	})
	tree, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{": " + strings.Join([]string{
		nodefiles.RegistriesConf + "=" + conf,
		nodefiles.PolicyJSON + "={}",
		nodefiles.SigstoreRegistries + "=docker: {}\n",
		nodefiles.NamespacePolicy("team-a") + "={a}",
		nodefiles.NamespacePolicy("team-b") + "={b}",
		nodefiles.SearchRegistries + "=s",
	}, ", ")}
	if got := summary(tree); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestReadARootOfPools(t *testing.T) {
	dir := writeTree(t, t.TempDir(), map[string]string{
		"worker/etc/containers/registries.conf": conf,
		"master/etc/crio/policies/a.json":       "{}",
		"notes/readme.txt":                      "not a pool",
	})
	tree, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"master: /etc/crio/policies/a.json={}", "worker: " + nodefiles.RegistriesConf + "=" + conf}
	if got := summary(tree); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadAnEmptyDirectoryIsThePoolOfBaseFiles(t *testing.T) {
	tree, err := Read(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(tree); !slices.Equal(got, []string{": "}) {
		t.Errorf("got %q", got)
	}
}

func TestReadAMachineConfigOrARegistriesConf(t *testing.T) {
	ign, err := machineconfigs.Encode(nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(conf)}, {Path: nodefiles.NamespacePolicy("a"), Data: []byte("{}")}})
	if err != nil {
		t.Fatal(err)
	}
	mc := &mcfgv1.MachineConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfig"},
		ObjectMeta: metav1.ObjectMeta{Name: "99-worker-generated-registries"},
		Spec:       mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: ign}},
	}
	mcYAML, err := yaml.Marshal(mc)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeTree(t, t.TempDir(), map[string]string{"mc.yaml": string(mcYAML), "registries.conf": conf})
	cases := []struct {
		name string
		path string
		want []string
	}{
		{name: "a MachineConfig gives every file it writes", path: "mc.yaml",
			want: []string{": " + nodefiles.RegistriesConf + "=" + conf + ", /etc/crio/policies/a.json={}"}},
		{name: "a registries.conf is that file alone", path: "registries.conf",
			want: []string{": " + nodefiles.RegistriesConf + "=" + conf}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := Read(filepath.Join(dir, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(tree); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadRejectsWhatItCannotRead(t *testing.T) {
	dir := writeTree(t, t.TempDir(), map[string]string{
		"bad.conf":  "[[registry]\n",
		"idms.yaml": "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\n",
		"mc.yaml":   "kind: MachineConfig\nspec: {config: {storage: {files: [{path: /etc/x, contents: {source: 'nope'}}]}}}\n",
	})
	cases := map[string]string{
		"missing":   "no such file or directory",
		"bad.conf":  "neither a MachineConfig nor a registries.conf",
		"idms.yaml": "kind ImageDigestMirrorSet is neither a MachineConfig nor a registries.conf",
		"mc.yaml":   "not a data URL",
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Read(filepath.Join(dir, name))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v, want an error containing %q", err, want)
			}
		})
	}
}

func TestPairs(t *testing.T) {
	files := func(data string) nodefiles.Files {
		return nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(data)}}
	}
	brief := func(ps []Pair) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Pool+" "+string(p.Old.Content(nodefiles.RegistriesConf)[:1])+string(p.New.Content(nodefiles.RegistriesConf)[:1])+" "+p.Note)
		}
		return out
	}
	base := "u" // the first byte of the base registries.conf
	cases := []struct {
		name     string
		old, new Tree
		want     []string
	}{
		{name: "two single sets are one comparison", old: Tree{"": files("a")}, new: Tree{"": files("b")}, want: []string{" ab "}},
		{name: "pools are compared by name, sorted", old: Tree{"worker": files("a"), "master": files("b")}, new: Tree{"master": files("c"), "worker": files("d")},
			want: []string{"master bc ", "worker ad "}},
		{name: "a single set is compared with each pool", old: Tree{"": files("a")}, new: Tree{"worker": files("d"), "master": files("c")},
			want: []string{"master ac ", "worker ad "}},
		{name: "a pool only one side has is compared with the base files", old: Tree{"worker": files("a")}, new: Tree{"worker": files("b"), "arbiter": files("c")},
			want: []string{"arbiter " + base + "c pool only in NEW: compared with the node's base files", "worker ab "}},
		{name: "a pool gone is compared with the base files", old: Tree{"worker": files("a"), "arbiter": files("c")}, new: Tree{"worker": files("b")},
			want: []string{"arbiter c" + base + " pool only in OLD: compared with the node's base files", "worker ab "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := brief(Pairs(tc.old, tc.new)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
