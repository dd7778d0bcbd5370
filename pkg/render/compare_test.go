package render_test

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/render"
)

func desiredWorker(t *testing.T) *mcfgv1.MachineConfig {
	t.Helper()
	out, err := render.Render(exampleInputs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.MachineConfigs[1]
}

// editIgnition changes the generated Ignition JSON of mc through a generic map.
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
	}{
		{"an identical MachineConfig has none", func(*testing.T, *mcfgv1.MachineConfig) {}, ""},
		{"labels and annotations of other owners are not differences", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Labels["team"] = "a"
			mc.Annotations["note"] = "b"
		}, ""},
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
		}, ""},
		{"an owner reference to another Image is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) { mc.OwnerReferences[0].UID = "old" }, "owner reference"},
		{"a changed role label is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Labels["machineconfiguration.openshift.io/role"] = "master"
		}, "label machineconfiguration.openshift.io/role"},
		{"another controller version is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) {
			mc.Annotations["machineconfiguration.openshift.io/generated-by-controller-version"] = "v0"
		}, "annotation"},
		{"edited contents are one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				files(cfg)[0].(map[string]any)["contents"].(map[string]any)["source"] = "data:,edited"
			})
		}, "file /etc/containers/registries.conf: contents differ"},
		{"a changed mode is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) { files(cfg)[1].(map[string]any)["mode"] = 0o600 })
		}, "file /etc/containers/policy.json: mode"},
		{"a removed file is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["storage"].(map[string]any)["files"] = files(cfg)[:2]
			})
		}, "01-image-searchRegistries.conf missing"},
		{"an extra file is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["storage"].(map[string]any)["files"] = append(files(cfg), map[string]any{"path": "/etc/extra", "contents": map[string]any{"source": "data:,x"}})
			})
		}, "file /etc/extra is not generated"},
		{"a hand-added systemd unit is one", func(t *testing.T, mc *mcfgv1.MachineConfig) {
			editIgnition(t, mc, func(cfg map[string]any) {
				cfg["systemd"] = map[string]any{"units": []any{map[string]any{"name": "x.service"}}}
			})
		}, "holds more than the generated files"},
		{"kernel arguments are one", func(_ *testing.T, mc *mcfgv1.MachineConfig) { mc.Spec.KernelArguments = []string{"a=b"} }, "kernelArguments"},
		{"a config that is not Ignition is one", func(_ *testing.T, mc *mcfgv1.MachineConfig) { mc.Spec.Config.Raw = []byte(`"x"`) }, "not an Ignition config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := desiredWorker(t)
			existing := desired.DeepCopy()
			tc.edit(t, existing)
			diffs := render.Differences(existing, desired)
			switch {
			case tc.want == "" && len(diffs) > 0:
				t.Errorf("want no difference, got %q", diffs)
			case tc.want != "" && (len(diffs) != 1 || !strings.Contains(diffs[0], tc.want)):
				t.Errorf("want one difference containing %q, got %q", tc.want, diffs)
			}
		})
	}
}
