package machineconfigs_test

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/fixtures"
)

// desiredWorker is the registries MachineConfig of the worker pool writing three files, owned by an Image.
func desiredWorker(t *testing.T) *machineconfigs.Desired {
	t.Helper()
	files := nodefiles.Files{
		{Path: nodefiles.RegistriesConf, Data: []byte("[[registry]]\n  location = \"quay.io/a\"\n")},
		{Path: nodefiles.PolicyJSON, Data: []byte(`{"default":[{"type":"insecureAcceptAnything"}]}`)},
		{Path: nodefiles.SearchRegistries, Data: []byte("unqualified-search-registries = [\"quay.io\"]\n")},
	}
	raw, err := machineconfigs.Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	owner := machineconfigs.Registries.Owner.Reference("cluster", "uid-cluster")
	return machineconfigs.NewDesired(machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, files, raw, owner)
}

// editIgnition changes the Ignition JSON of mc through a generic map.
func editIgnition(t *testing.T, mc *mcfgv1.MachineConfig, edit func(cfg map[string]any)) {
	t.Helper()
	var cfg map[string]any
	if err := json.Unmarshal(mc.Spec.Config.Raw, &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mc.Spec.Config.Raw = raw
}

func files(cfg map[string]any) []any { return cfg["storage"].(map[string]any)["files"].([]any) }

func TestDifferences(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, existing *mcfgv1.MachineConfig)
		want string // a substring of the one expected difference; "" for none
		file string // the file it names, "" for none
	}{
		{"an identical MachineConfig has none", func(*testing.T, *mcfgv1.MachineConfig) {}, "", ""},
		{"labels and annotations of other owners are not differences", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Labels["team"] = "a"
			mc.Annotations = map[string]string{"note": "b"}
			mc.OwnerReferences = append(mc.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "uid-c"})
		}, "", ""},
		{"the same contents encoded another way are not a difference", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				for _, f := range files(cfg) {
					contents := f.(map[string]any)["contents"].(map[string]any)
					source := contents["source"].(string)
					data, err := base64.StdEncoding.DecodeString(source[strings.IndexByte(source, ',')+1:])
					if err != nil {
						t.Fatal(err)
					}
					contents["source"] = "data:," + url.PathEscape(string(data))
				}
			})
		}, "", ""},
		{"no compression at all, as MachineConfigs written before it was set explicitly, is not a difference", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				for _, f := range files(cfg) {
					delete(f.(map[string]any)["contents"].(map[string]any), "compression")
				}
			})
		}, "", ""},
		{"the same contents gzip-compressed are not a difference", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				f := files(cfg)[1].(map[string]any)["contents"].(map[string]any)
				f["compression"], f["source"] = "gzip", fixtures.GzipDataURL([]byte(`{"default":[{"type":"insecureAcceptAnything"}]}`))
			})
		}, "", ""},
		{"an owner reference to another Image is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) { mc.OwnerReferences[0].UID = "old" }, "owner reference", ""},
		{"a changed role label is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Labels["machineconfiguration.openshift.io/role"] = "master"
		}, "label machineconfiguration.openshift.io/role", ""},
		{"a version annotation, an older build's or MCO's, is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Annotations = map[string]string{"machineconfiguration.openshift.io/generated-by-controller-version": "v0"}
		}, `annotation machineconfiguration.openshift.io/generated-by-controller-version: have "v0", want none`, ""},
		{"an empty version annotation is one too", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Annotations = map[string]string{"machineconfiguration.openshift.io/generated-by-controller-version": ""}
		}, `annotation machineconfiguration.openshift.io/generated-by-controller-version: have "", want none`, ""},
		{"the owner reference to the Image without the controller flag, as older builds and MCO write it, is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.OwnerReferences[0].Controller = nil
		}, "owner reference to Image cluster (uid uid-cluster): not a controller reference", ""},
		{"edited contents are one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				files(cfg)[0].(map[string]any)["contents"].(map[string]any)["source"] = "data:,edited"
			})
		}, "file /etc/containers/registries.conf: contents differ", nodefiles.RegistriesConf},
		{"a changed mode is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) { files(cfg)[1].(map[string]any)["mode"] = 0o600 })
		}, "file /etc/containers/policy.json: attributes differ (mode 0600)", nodefiles.PolicyJSON},
		{"a removed file is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["storage"].(map[string]any)["files"] = files(cfg)[:2]
			})
		}, "01-image-searchRegistries.conf missing", nodefiles.SearchRegistries},
		{"an extra file is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["storage"].(map[string]any)["files"] = append(files(cfg), map[string]any{"path": "/etc/extra", "contents": map[string]any{"source": "data:,x"}})
			})
		}, "file /etc/extra is not generated", "/etc/extra"},
		{"an extra file that does not decode is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["storage"].(map[string]any)["files"] = append(files(cfg), map[string]any{"path": "/etc/extra", "contents": map[string]any{"source": "https://x"}})
			})
		}, "file /etc/extra: contents are not a data URL", "/etc/extra"},
		{"a hand-added systemd unit is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["systemd"] = map[string]any{"units": []any{map[string]any{"name": "x.service"}}}
			})
		}, "holds more than the generated files", ""},
		{"another Ignition version is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) { cfg["ignition"] = map[string]any{"version": "3.4.0"} })
		}, `Ignition version: have "3.4.0", want "3.5.0"`, ""},
		{"kernel arguments are one", func(_ *testing.T, mc *mcfgv1.MachineConfig) { mc.Spec.KernelArguments = []string{"a=b"} }, "kernelArguments", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := desiredWorker(t)
			existing := desired.Object.DeepCopy()
			tc.edit(t, existing)
			have, err := machineconfigs.Decode(existing)
			if err != nil {
				t.Fatal(err)
			}
			diffs := machineconfigs.Differences(existing, have, desired)
			switch {
			case tc.want == "" && len(diffs) > 0:
				t.Errorf("want no difference, got %q", machineconfigs.Strings(diffs))
			case tc.want != "" && (len(diffs) != 1 || !strings.Contains(diffs[0].Text, tc.want) || diffs[0].File != tc.file):
				t.Errorf("want one difference containing %q of file %q, got %+v", tc.want, tc.file, diffs)
			}
		})
	}
}

func TestTwoRendersAreComparedFromTheirFilesInMemory(t *testing.T) {
	a := desiredWorker(t)
	b := desiredWorker(t)
	if d := machineconfigs.Differences(a.Object, a.Config(), b); len(d) != 0 || !a.Same(b) {
		t.Errorf("two identical renders: %q, same %v", machineconfigs.Strings(d), a.Same(b))
	}
	b.Files = append(nodefiles.Files{}, b.Files[:2]...)
	if d := machineconfigs.Differences(a.Object, a.Config(), b); len(d) != 1 || d[0].File != nodefiles.SearchRegistries || a.Same(b) {
		t.Errorf("a file less: %+v, same %v", d, a.Same(b))
	}
}

// What only says which build or controller wrote a MachineConfig is a difference of the build (Difference.Build),
// which `preview` leaves out; another owner is not.
func TestDifferencesOfTheBuildAreMarked(t *testing.T) {
	desired := desiredWorker(t)
	existing := desired.Object.DeepCopy()
	existing.Annotations = map[string]string{machineconfigs.VersionAnnotation: "f1a2b3c"}
	existing.OwnerReferences[0].Controller = nil
	existing.Labels["machineconfiguration.openshift.io/role"] = "master"
	have, err := machineconfigs.Decode(existing)
	if err != nil {
		t.Fatal(err)
	}
	var build, other []string
	for _, d := range machineconfigs.Differences(existing, have, desired) {
		if d.Build {
			build = append(build, d.Text)
		} else {
			other = append(other, d.Text)
		}
	}
	if len(build) != 2 || !strings.HasPrefix(build[0], "annotation "+machineconfigs.VersionAnnotation) || !strings.HasPrefix(build[1], "owner reference") {
		t.Errorf("differences of the build: %q, want the annotation and the controller flag", build)
	}
	if len(other) != 1 || !strings.HasPrefix(other[0], "label ") {
		t.Errorf("other differences: %q, want the role label", other)
	}
	existing.OwnerReferences[0].UID = "old"
	for _, d := range machineconfigs.Differences(existing, have, desired) {
		if strings.HasPrefix(d.Text, "owner reference") && (d.Build || !strings.HasSuffix(d.Text, "missing")) {
			t.Errorf("a reference to another Image: %+v, want a missing reference, not one of the build", d)
		}
	}
}
