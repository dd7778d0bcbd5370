package render_test

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// FuzzDifferences renders two fuzzed configurations and checks Differences against containers/image: two
// MachineConfigs have no difference exactly when they write the same files and each file loads to the same
// configuration (registries.conf with its drop-ins through sysregistriesv2, policy.json through signature; any
// other file by its bytes). A difference where there is none rolls every node for nothing; no difference where
// there is one leaves nodes on a stale configuration.
//
// A configuration is a script, one item a line: `idms|itms|icsp SOURCE [never] MIRROR...`, `insecure SCOPE...`,
// `blocked SCOPE...`, `allowed SCOPE...`, `search HOST...`. Invalid configurations are skipped.
func FuzzDifferences(f *testing.F) {
	for _, seed := range [][2]string{
		{"idms quay.io/a m.local/a", "idms quay.io/a m.local/a"},
		{"idms quay.io/a m.local/a", "icsp quay.io/a m.local/a"},
		{"idms quay.io/a m.local/a", "itms quay.io/a m.local/a"},
		{"idms quay.io/a m1.local/a m2.local/a", "idms quay.io/a m2.local/a m1.local/a"},
		{"idms quay.io/a m1.local/a\nidms quay.io/a m2.local/a", "idms quay.io/a m1.local/a m2.local/a"},
		{"idms quay.io/a never m.local/a", "idms quay.io/a m.local/a"},
		{"insecure reg.local:5000", "insecure reg.local:5000/"},
		{"blocked docker.io\nidms docker.io/lib m.local/lib", "blocked docker.io"},
		{"allowed quay.io registry.redhat.io", "allowed registry.redhat.io quay.io"},
		{"search quay.io", ""},
		{"insecure *.example.com\nidms a.example.com/x m.local/x", "idms a.example.com/x m.local/x\ninsecure *.example.com"},
		{"", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, a, b string) {
		ma, ok := renderScript(a)
		if !ok {
			return
		}
		mb, ok := renderScript(b)
		if !ok {
			return
		}
		for i := range ma {
			have, err := machineconfigs.Decode(ma[i].Object)
			if err != nil {
				t.Fatal(err)
			}
			diffs := machineconfigs.Differences(ma[i].Object, have, mb[i])
			same, why := sameMeaning(t, dir, ma[i].Object, mb[i].Object)
			if noDiff := len(diffs) == 0; noDiff != same {
				t.Fatalf("%s: Differences says no difference %v, containers/image says same meaning %v (%s)\nA:\n%s\nB:\n%s\ndifferences: %q",
					ma[i].Key.Name(), noDiff, same, why, a, b, machineconfigs.Strings(diffs))
			}
		}
	})
}

// maxScriptLines keeps one execution fast.
const maxScriptLines = 24

// renderScript renders the configuration a script describes for the pools master and worker; false when it is
// invalid.
func renderScript(script string) ([]*machineconfigs.Desired, bool) {
	in := &inputs.Inputs{ClusterVersion: fixtures.ClusterVersion(fixtures.ReleaseImage),
		Pools: []*mcfgv1.MachineConfigPool{fixtures.Pool("master", true), fixtures.Pool("worker", true)}}
	lines := strings.Split(script, "\n")
	for i, line := range lines[:min(len(lines), maxScriptLines)] {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name := "o" + string(rune('a'+i))
		switch f[0] {
		case "idms", "itms", "icsp":
			e := fixtures.Mirror(f[1], f[2:]...)
			if len(f) > 2 && f[2] == "never" {
				e = fixtures.Mirror(f[1], f[3:]...).Never()
			}
			switch f[0] {
			case "idms":
				in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, fixtures.IDMS(name, e))
			case "itms":
				in.ImageTagMirrorSets = append(in.ImageTagMirrorSets, fixtures.ITMS(name, e))
			default:
				in.ImageContentSourcePolicies = append(in.ImageContentSourcePolicies, fixtures.ICSP(name, e))
			}
		case "insecure", "blocked", "allowed", "search":
			rs := fixtures.RegistrySources(in)
			list := map[string]*[]string{"insecure": &rs.InsecureRegistries, "blocked": &rs.BlockedRegistries,
				"allowed": &rs.AllowedRegistries, "search": &rs.ContainerRuntimeSearchRegistries}[f[0]]
			*list = append(*list, f[1:]...)
		}
	}
	out, err := render.Render(in, opts)
	if err != nil {
		return nil, false
	}
	return out.MachineConfigs, true
}

// sameMeaning loads the files of a and b with containers/image and compares what they load to; it says why not.
func sameMeaning(t *testing.T, dir string, a, b *mcfgv1.MachineConfig) (bool, string) {
	t.Helper()
	fa, fb := framework.MustNodeFiles(t, a), framework.MustNodeFiles(t, b)
	if !reflect.DeepEqual(slices.Sorted(maps.Keys(fa)), slices.Sorted(maps.Keys(fb))) {
		return false, "not the same files"
	}
	if !reflect.DeepEqual(a.Labels, b.Labels) || !reflect.DeepEqual(a.Annotations, b.Annotations) || !reflect.DeepEqual(a.OwnerReferences, b.OwnerReferences) {
		return false, "metadata differs"
	}
	for path := range fa {
		switch {
		case path == nodefiles.RegistriesConf || path == nodefiles.SearchRegistries:
			if path == nodefiles.SearchRegistries {
				if _, ok := fa[nodefiles.RegistriesConf]; ok {
					continue // loaded with registries.conf
				}
			}
			ca, cb := loadRegistries(t, filepath.Join(dir, "a"), fa), loadRegistries(t, filepath.Join(dir, "b"), fb)
			if !reflect.DeepEqual(ca, cb) {
				return false, "registries.conf loads differently"
			}
		case path == nodefiles.PolicyJSON:
			pa, errA := signature.NewPolicyFromBytes([]byte(fa[path]))
			pb, errB := signature.NewPolicyFromBytes([]byte(fb[path]))
			if errA != nil || errB != nil {
				t.Fatalf("policy.json does not load: %v, %v", errA, errB)
			}
			if !reflect.DeepEqual(pa, pb) {
				return false, "policy.json loads differently"
			}
		case fa[path] != fb[path]:
			return false, path + " differs"
		}
	}
	return true, "same files, same configuration"
}

// loadRegistries writes files (registries.conf, its drop-ins; the node's base registries.conf when absent) under
// root and loads them as CRI-O does.
func loadRegistries(t *testing.T, root string, files map[string]string) *sysregistriesv2.V2RegistriesConf {
	t.Helper()
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	conf := files[nodefiles.RegistriesConf]
	if _, ok := files[nodefiles.RegistriesConf]; !ok {
		conf = string(nodefiles.Base(nodefiles.RegistriesConf))
	}
	main := filepath.Join(root, "registries.conf")
	dropIns := filepath.Join(root, "registries.conf.d")
	if err := os.MkdirAll(dropIns, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, ok := files[nodefiles.SearchRegistries]; ok {
		if err := os.WriteFile(filepath.Join(dropIns, filepath.Base(nodefiles.SearchRegistries)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := &types.SystemContext{SystemRegistriesConfPath: main, SystemRegistriesConfDirPath: dropIns}
	defer sysregistriesv2.InvalidateCache()
	loaded, err := sysregistriesv2.TryUpdatingCache(ctx)
	if err != nil {
		t.Fatalf("registries.conf does not load: %v\n%s", err, conf)
	}
	return loaded
}
