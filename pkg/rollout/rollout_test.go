package rollout_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/rollout"
	"github.com/openshift/registries-controller/test/fixtures"
)

const workerGenerated = "99-worker-generated-registries"

var (
	conf    = nodefiles.File{Path: nodefiles.RegistriesConf, Data: []byte("[[registry]]\n  location = \"quay.io/new\"\n")}
	oldConf = nodefiles.File{Path: nodefiles.RegistriesConf, Data: []byte("[[registry]]\n  location = \"quay.io/old\"\n")}
	policy  = nodefiles.File{Path: nodefiles.PolicyJSON, Data: []byte(`{"default":[{"type":"reject"}]}`)}
	base    = nodefiles.File{Path: "/etc/mcosim/pool", Data: []byte("worker\n")}
)

// workerConfig returns a MachineConfig of the worker role writing files; a rendered one (owned by the worker pool,
// without the role label) when name starts with "rendered-".
func workerConfig(name string, files ...nodefiles.File) *mcfgv1.MachineConfig {
	mc := fixtures.MachineConfig(name, "worker", files...)
	if strings.HasPrefix(name, "rendered-") {
		mc.Labels = nil
		mc.OwnerReferences = []metav1.OwnerReference{{Kind: "MachineConfigPool", Name: "worker", Controller: ptr.To(true)}}
	}
	return mc
}

// poolModifier changes the pool under construction.
type poolModifier func(*mcfgv1.MachineConfigPool)

// workerPool returns the built-in worker pool, generation 2, with spec.configuration target and status.configuration
// current, machines nodes all updated and ready, its status of generation 2, Updated True.
func workerPool(current, target string, machines int32, mods ...poolModifier) *mcfgv1.MachineConfigPool {
	p := fixtures.Pool("worker", true)
	p.Generation = 2
	p.Spec.Configuration.Name = target
	p.Status = mcfgv1.MachineConfigPoolStatus{
		ObservedGeneration: 2, MachineCount: machines, UpdatedMachineCount: machines, ReadyMachineCount: machines,
		Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: current}},
	}
	setPoolCondition(p, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionTrue, "")
	for _, m := range mods {
		m(p)
	}
	return p
}

// setPoolCondition sets the status and message of p's condition of type t, adding it when p has none.
func setPoolCondition(p *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType, s corev1.ConditionStatus, msg string) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			p.Status.Conditions[i].Status, p.Status.Conditions[i].Message = s, msg
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, mcfgv1.MachineConfigPoolCondition{Type: t, Status: s, Message: msg})
}

func updating(updated int32) poolModifier {
	return func(p *mcfgv1.MachineConfigPool) {
		p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount = updated, updated
		setPoolCondition(p, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "")
	}
}

func lookupIn(configs []*mcfgv1.MachineConfig) rollout.Lookup {
	return func(name string) (*mcfgv1.MachineConfig, error) {
		for _, mc := range configs {
			if mc.Name == name {
				return mc, nil
			}
		}
		return nil, apierrors.NewNotFound(mcfgv1.Resource("machineconfigs"), name)
	}
}

// desiredOn returns the render's registries MachineConfig of pool writing files.
func desiredOn(pool string, files nodefiles.Files) []*machineconfigs.Desired {
	return []*machineconfigs.Desired{machineconfigs.NewDesired(machineconfigs.Key{Pool: pool, Output: machineconfigs.Registries}, files, nil, nil)}
}

func TestJudge(t *testing.T) {
	cases := []struct {
		name    string
		files   nodefiles.Files
		configs func(t *testing.T) []*mcfgv1.MachineConfig
		pool    *mcfgv1.MachineConfigPool
		phase   rollout.Phase
		message string
	}{{
		name:  "every node on a rendered config carrying the files is live",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("00-worker", base), workerConfig(workerGenerated, conf), workerConfig("rendered-worker-new", base, conf)}
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 5),
		phase:   rollout.Live,
		message: "5/5 nodes on rendered-worker-new",
	}, {
		name:  "while nodes update, the status still names the old config: pending with the count on the new one",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-old", base, oldConf), workerConfig("rendered-worker-new", base, conf)}
		},
		pool:    workerPool("rendered-worker-old", "rendered-worker-new", 5, updating(2)),
		phase:   rollout.Pending,
		message: "2/5 nodes updated to rendered-worker-new",
	}, {
		name:  "before MCO renders the change, pending says what the newest rendered config lacks",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-old", base, oldConf)}
		},
		pool:    workerPool("rendered-worker-old", "rendered-worker-old", 5),
		phase:   rollout.Pending,
		message: "waiting for a rendered config with the change (the newest, rendered-worker-old, does not carry it: /etc/containers/registries.conf differs)",
	}, {
		name:  "a status of an older generation is pending even with every count equal",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-new", conf)}
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 3, func(p *mcfgv1.MachineConfigPool) { p.Status.ObservedGeneration = 1 }),
		phase:   rollout.Pending,
		message: "rendered-worker-new carries the change; waiting for the pool's status to count its nodes",
	}, {
		name:  "Updated False is pending even with every count equal",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-new", conf)}
		},
		pool: workerPool("rendered-worker-new", "rendered-worker-new", 3, func(p *mcfgv1.MachineConfigPool) {
			setPoolCondition(p, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "")
		}),
		phase:   rollout.Pending,
		message: "3/3 nodes updated to rendered-worker-new",
	}, {
		name:  "a file the render no longer writes must be gone",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-new", conf, policy)}
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 3),
		phase:   rollout.Pending,
		message: "waiting for a rendered config with the change (the newest, rendered-worker-new, does not carry it: /etc/containers/policy.json present)",
	}, {
		name:  "unless another MachineConfig of the pool writes it",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("50-policy", policy), workerConfig("rendered-worker-new", conf, policy)}
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 3),
		phase:   rollout.Live,
		message: "3/3 nodes on rendered-worker-new",
	}, {
		name:  "a MachineConfig sorting after the generated one that replaces its file keeps it from going live",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("99-worker-zz", oldConf), workerConfig("rendered-worker-x", oldConf)}
		},
		pool:    workerPool("rendered-worker-x", "rendered-worker-x", 3),
		phase:   rollout.Pending,
		message: "cannot go live: MachineConfig 99-worker-zz replaces /etc/containers/registries.conf (it sorts after 99-worker-generated-registries)",
	}, {
		name:  "the generated MachineConfig as the cluster holds it plays no part",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig(workerGenerated, oldConf, policy), workerConfig("rendered-worker-new", conf)}
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 3),
		phase:   rollout.Live,
		message: "3/3 nodes on rendered-worker-new",
	}, {
		name:  "a degraded pool quotes its condition",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-old", oldConf), workerConfig("rendered-worker-new", conf)}
		},
		pool: workerPool("rendered-worker-old", "rendered-worker-new", 3, updating(1), func(p *mcfgv1.MachineConfigPool) {
			setPoolCondition(p, mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionTrue, `Node worker-1 is reporting: "disk full"`)
		}),
		phase:   rollout.Degraded,
		message: `NodeDegraded: Node worker-1 is reporting: "disk full"`,
	}, {
		name:  "a rendered config not in the cache yet is pending",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return nil
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 3),
		phase:   rollout.Pending,
		message: "waiting for a rendered config with the change (the newest, rendered-worker-new, is not found yet)",
	}, {
		name:  "a paused pool says so",
		files: nodefiles.Files{conf},
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-old", oldConf), workerConfig("rendered-worker-new", conf)}
		},
		pool:    workerPool("rendered-worker-old", "rendered-worker-new", 3, updating(0), func(p *mcfgv1.MachineConfigPool) { p.Spec.Paused = true }),
		phase:   rollout.Pending,
		message: "0/3 nodes updated to rendered-worker-new (the pool is paused)",
	}, {
		name:  "a pool without machines is live once its status names a config carrying the files",
		files: nil,
		configs: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{workerConfig("rendered-worker-new", base)}
		},
		pool:    workerPool("rendered-worker-new", "rendered-worker-new", 0),
		phase:   rollout.Live,
		message: "0/0 nodes on rendered-worker-new",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			configs := tc.configs(t)
			want, err := rollout.Expect(tc.pool, configs, nil, machineconfigs.Registries, desiredOn("worker", tc.files))
			if err != nil {
				t.Fatal(err)
			}
			got := rollout.Judge(tc.pool, lookupIn(configs), nil, want)
			if got.Phase != tc.phase || got.Message != tc.message {
				t.Errorf("got %s %q\nwant %s %q", got.Phase, got.Message, tc.phase, tc.message)
			}
		})
	}
}

// gzippedConfig returns a MachineConfig writing path gzip-compressed, and an unmanaged file with an unknown
// compression.
func gzippedConfig(t *testing.T, name, path string, data []byte) *mcfgv1.MachineConfig {
	t.Helper()
	ign := map[string]any{
		"ignition": map[string]any{"version": "3.4.0"},
		"storage": map[string]any{"files": []any{
			map[string]any{"path": path, "contents": map[string]any{
				"compression": "gzip", "source": fixtures.GzipDataURL(data)}},
			map[string]any{"path": "/etc/other", "contents": map[string]any{"compression": "zstd", "source": "https://example.com/x"}},
		}},
		"systemd": map[string]any{"units": []any{map[string]any{"name": "x.service", "enabled": true}}},
	}
	raw, err := json.Marshal(ign)
	if err != nil {
		t.Fatal(err)
	}
	mc := workerConfig(name)
	mc.Spec.Config.Raw = raw
	return mc
}

func TestOtherMachineConfigsAreReadWhateverTheyHoldBesidesManagedFiles(t *testing.T) {
	extra := gzippedConfig(t, "50-policy", nodefiles.PolicyJSON, policy.Data)
	files, err := rollout.ManagedFiles(nil, extra, machineconfigs.Managed)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != nodefiles.PolicyJSON || !bytes.Equal(files[0].Data, policy.Data) {
		t.Errorf("managed files of a gzip config: %+v", files)
	}
	rendered := gzippedConfig(t, "rendered-worker-new", nodefiles.PolicyJSON, policy.Data)
	p := workerPool("rendered-worker-new", "rendered-worker-new", 1)
	configs := []*mcfgv1.MachineConfig{extra, rendered}
	want, err := rollout.Expect(p, configs, nil, machineconfigs.Registries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st := rollout.Judge(p, lookupIn(configs), nil, want); st.Phase != rollout.Live {
		t.Errorf("a rendered config with units and an unreadable unmanaged file: %s %s", st.Phase, st.Message)
	}
}

func TestACustomPoolGetsTheGeneratedConfigItSelects(t *testing.T) {
	infra := fixtures.Pool("infra", false)
	infra.Spec.MachineConfigSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"},
	}}}
	render := slices.Concat(desiredOn("master", nodefiles.Files{oldConf}), desiredOn("worker", nodefiles.Files{conf}))
	expect := func(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig) string {
		want, err := rollout.Expect(pool, configs, nil, machineconfigs.Registries, render)
		if err != nil {
			t.Fatal(err)
		}
		return string(want.Files.Content(nodefiles.RegistriesConf))
	}
	if got := expect(infra, nil); got != string(conf.Data) {
		t.Errorf("with no generated config yet: %q, want the worker one's", got)
	}
	master := workerConfig("99-master-generated-registries")
	master.Labels[mcfgv1.MachineConfigRoleLabelKey] = "master"
	if got := expect(infra, []*mcfgv1.MachineConfig{master, workerConfig(workerGenerated)}); got != string(conf.Data) {
		t.Errorf("infra expects %q, want the worker one's", got)
	}
	if got := expect(fixtures.Pool("master", true), nil); got != string(oldConf.Data) {
		t.Errorf("master expects %q, want its own", got)
	}
	selected, err := rollout.Selected(infra, []*mcfgv1.MachineConfig{master, workerConfig("rendered-worker-x"), workerConfig("50-b"), workerConfig("10-a")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mc := range selected {
		names = append(names, mc.Name)
	}
	if strings.Join(names, " ") != "10-a 50-b" {
		t.Errorf("selected %v, want the worker configs in name order, without the rendered one", names)
	}
}

func TestOnACustomPoolItsOwnMachineConfigReplacesTheWorkerOneAlthoughItSortsFirst(t *testing.T) {
	infra := fixtures.Pool("infra", false)
	infra.Spec.MachineConfigSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"},
	}}}
	// MCO merges the worker role's MachineConfigs first: 99-infra-... comes after 99-worker-... although it sorts
	// before it by name.
	ours := slices.Concat(desiredOn("worker", nodefiles.Files{conf}), desiredOn("infra", nodefiles.Files{oldConf}))
	want, err := rollout.Expect(infra, nil, nil, machineconfigs.Registries, ours)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(want.Files.Content(nodefiles.RegistriesConf)); got != string(oldConf.Data) || len(want.Overrides) != 0 {
		t.Errorf("infra expects %q with overrides %v; want the infra one's, no override", got, want.Overrides)
	}
	// Another writer's MachineConfig of the infra role replaces a worker one's file the same way: an override.
	want, err = rollout.Expect(infra, []*mcfgv1.MachineConfig{fixtures.MachineConfig("10-infra-registries", "infra", policy)}, nil,
		machineconfigs.Registries, desiredOn("worker", nodefiles.Files{conf, policy}))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Overrides) != 1 || want.Overrides[0].By != "10-infra-registries" || want.Overrides[0].Over != workerGenerated {
		t.Errorf("overrides %+v, want 10-infra-registries over %s", want.Overrides, workerGenerated)
	}
}
