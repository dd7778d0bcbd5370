package machineconfigs_test

import (
	"reflect"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/fixtures"
)

var (
	conf      = fixtures.File(nodefiles.RegistriesConf, "[[registry]]\n  location = \"quay.io/a\"\n")
	otherConf = fixtures.File(nodefiles.RegistriesConf, "[[registry]]\n  location = \"quay.io/b\"\n")
	logLevel  = fixtures.File("/etc/crio/crio.conf.d/01-ctrcfg-logLevel", "[crio]\n  [crio.runtime]\n    log_level = \"debug\"\n")
	provider  = fixtures.File("/etc/kubernetes/credential-providers/generic-credential-provider.yaml", "kind: CredentialProviderConfig\n")
)

// want returns the desired MachineConfig of key writing files, as a render wants it: controlled by a
// ContainerRuntimeConfig named after the suffix for the per-object output, by the Image "cluster" otherwise.
func want(t *testing.T, key machineconfigs.Key, files ...nodefiles.File) *machineconfigs.Desired {
	t.Helper()
	raw, err := machineconfigs.Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	owner := key.Output.Owner.Reference("cluster", "uid-cluster")
	if key.Output == perObject {
		name := []string{"a", "b", "c"}[min(key.Suffix, 2)]
		owner = key.Output.Owner.Reference(name, types.UID("uid-"+name))
	}
	return machineconfigs.NewDesired(key, files, raw, owner)
}

// held returns the object of d as the API server holds it after the controller wrote it.
func held(d *machineconfigs.Desired) *mcfgv1.MachineConfig {
	mc := d.Object.DeepCopy()
	mc.UID, mc.ResourceVersion = types.UID("uid-"+mc.Name), "1"
	return mc
}

// withoutOwners and withRole change a MachineConfig as an admin's differs from ours.
func withoutOwners(mc *mcfgv1.MachineConfig) *mcfgv1.MachineConfig {
	mc.OwnerReferences = nil
	return mc
}

func withRole(mc *mcfgv1.MachineConfig, role string) *mcfgv1.MachineConfig {
	mc.Labels[mcfgv1.MachineConfigRoleLabelKey] = role
	return mc
}

// set returns a desired set of the built-in pools master and worker: registries written, the others as given.
func set(states []machineconfigs.OutputState, ds ...*machineconfigs.Desired) *machineconfigs.Set {
	return &machineconfigs.Set{
		Pools:          []string{"master", "worker"},
		Outputs:        append([]machineconfigs.OutputState{{Output: machineconfigs.Registries, State: machineconfigs.Written}}, states...),
		MachineConfigs: ds,
	}
}

func written(o *machineconfigs.Output) machineconfigs.OutputState {
	return machineconfigs.OutputState{Output: o, State: machineconfigs.Written}
}

// planLines says what a plan does, one "op name: reasons" per action.
func planLines(actions []machineconfigs.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, string(a.Op)+" "+a.Key.Name()+": "+a.Reason())
	}
	return out
}

func TestPlan(t *testing.T) {
	registries := func(pool string) machineconfigs.Key {
		return machineconfigs.Key{Pool: pool, Output: machineconfigs.Registries}
	}
	providers := func(pool string) machineconfigs.Key {
		return machineconfigs.Key{Pool: pool, Output: machineconfigs.CredentialProviders}
	}
	runtime := func(pool string, suffix int) machineconfigs.Key {
		return machineconfigs.Key{Pool: pool, Output: perObject, Suffix: suffix}
	}
	for _, tc := range []struct {
		name     string
		existing func(t *testing.T) []*mcfgv1.MachineConfig
		desired  func(t *testing.T) *machineconfigs.Set
		opts     machineconfigs.PlanOptions
		want     []string
	}{{
		name:     "a missing MachineConfig is created",
		existing: func(*testing.T) []*mcfgv1.MachineConfig { return nil },
		desired:  func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
		want:     []string{"create 99-worker-generated-registries: missing"},
	}, {
		name: "a MachineConfig that says what the render says is left alone",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, registries("worker"), conf))}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
	}, {
		name: "a MachineConfig whose file differs is updated, saying which",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, registries("worker"), otherConf))}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
		want:    []string{"update 99-worker-generated-registries: file /etc/containers/registries.conf: contents differ"},
	}, {
		name: "a MachineConfig an older build wrote is updated, metadata alone: its version annotation dropped, its reference a controller's",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{fixtures.WrittenBy(held(want(t, registries("worker"), conf)), "v0.9.0")}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
		want: []string{`update 99-worker-generated-registries: annotation machineconfiguration.openshift.io/generated-by-controller-version: ` +
			`have "v0.9.0", want none (MCO's render controller refuses another build's); owner reference to Image cluster (uid uid-cluster): not a controller reference`},
	}, {
		name: "MCO's, its build in the annotation, is taken over alike, a credential providers one too",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{fixtures.WrittenBy(held(want(t, providers("worker"), provider)), "f1a2b3c")}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{written(machineconfigs.CredentialProviders)}, want(t, providers("worker"), provider))
		},
		want: []string{`update 97-worker-generated-credentialproviderconfig: annotation machineconfiguration.openshift.io/generated-by-controller-version: ` +
			`have "f1a2b3c", want none (MCO's render controller refuses another build's); owner reference to CRIOCredentialProviderConfig cluster (uid uid-cluster): not a controller reference`},
	}, {
		name: "but not when any build will do, as for preview, which runs another build than the controller",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{fixtures.WrittenBy(held(want(t, registries("worker"), conf)), "v0.9.0")}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
		opts:    machineconfigs.PlanOptions{AnyBuild: true},
	}, {
		name: "any build will do, but not any content",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{fixtures.WrittenBy(held(want(t, registries("worker"), otherConf)), "v0.9.0")}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
		opts:    machineconfigs.PlanOptions{AnyBuild: true},
		want:    []string{"update 99-worker-generated-registries: file /etc/containers/registries.conf: contents differ"},
	}, {
		name: "a MachineConfig that does not decode is updated, the error its reason",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			mc := held(want(t, registries("worker"), conf))
			mc.Spec.Config.Raw = []byte("not json")
			return []*mcfgv1.MachineConfig{mc}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil, want(t, registries("worker"), conf)) },
		want: []string{"update 99-worker-generated-registries: MachineConfig 99-worker-generated-registries: spec.config is not an " +
			"Ignition config: invalid character 'o' in literal null (expecting 'u')"},
	}, {
		name: "a suffixed MachineConfig of a per-object output is created under its suffix",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, runtime("worker", 0), logLevel))}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{written(perObject)}, want(t, runtime("worker", 0), logLevel), want(t, runtime("worker", 2), logLevel))
		},
		want: []string{"create 99-worker-generated-containerruntime-2: missing"},
	}, {
		name: "a custom pool's MachineConfig is created, and the built-in pools get none they are not selected for",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, registries("worker"), conf))}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{written(perObject)}, want(t, registries("worker"), conf), want(t, runtime("infra", 0), logLevel))
		},
		want: []string{"create 99-infra-generated-containerruntime: missing"},
	}, {
		name: "a per-object MachineConfig no object renders any more is deleted, its pool still selected by another",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, runtime("worker", 0), logLevel)), held(want(t, runtime("worker", 1), logLevel))}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{written(perObject)}, want(t, runtime("worker", 0), logLevel))
		},
		want: []string{"delete 99-worker-generated-containerruntime-1: no ContainerRuntimeConfig renders 99-worker-generated-containerruntime-1 any more"},
	}, {
		name: "the per-object MachineConfig of a pool no object selects any more is deleted, a custom pool's too",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, runtime("infra", 3), logLevel))}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set([]machineconfigs.OutputState{written(perObject)}) },
		want:    []string{"delete 99-infra-generated-containerruntime-3: no ContainerRuntimeConfig selects pool infra any more, or the pool is gone"},
	}, {
		name: "an admin's MachineConfig named like ours without a controller reference to its kind is kept",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{withoutOwners(held(want(t, runtime("worker", 3), logLevel)))}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set([]machineconfigs.OutputState{written(perObject)}) },
	}, {
		name: "an admin's MachineConfig named like ours, with neither owner reference nor version annotation, is kept, its pool gone",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{withoutOwners(held(want(t, registries("arbiter"), conf)))}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil) },
	}, {
		name: "a version annotation does not make a per-object output's MachineConfig ours without the controller reference",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{fixtures.WrittenBy(withoutOwners(held(want(t, runtime("worker", 3), logLevel))), "f1a2b3c")}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set([]machineconfigs.OutputState{written(perObject)}) },
	}, {
		name: "an older build's MachineConfig of a pool that is gone is deleted, by its plain reference and annotation or by the annotation alone (install time)",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{fixtures.WrittenBy(held(want(t, registries("arbiter"), conf)), "v0.9.0"),
				fixtures.WrittenBy(withoutOwners(held(want(t, providers("arbiter"), provider))), "v0.9.0")}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{written(machineconfigs.CredentialProviders)})
		},
		want: []string{"delete 97-arbiter-generated-credentialproviderconfig: pool is gone", "delete 99-arbiter-generated-registries: pool is gone"},
	}, {
		name: "a MachineConfig named like ours whose role label names another pool is kept",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{withRole(held(want(t, registries("arbiter"), conf)), "worker")}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil) },
	}, {
		name: "names that merely contain an output's name are never ours, nor suffixes past -9 or of a per-pool output",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			mine := held(want(t, runtime("worker", 0), logLevel))
			mine.Name = "50-worker-generated-containerruntime-mine"
			ten := held(want(t, runtime("worker", 0), logLevel))
			ten.Name = "99-worker-generated-containerruntime-10"
			suffixed := held(want(t, registries("worker"), conf))
			suffixed.Name = "99-worker-generated-registries-1"
			return []*mcfgv1.MachineConfig{mine, ten, suffixed}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set([]machineconfigs.OutputState{written(perObject)}) },
	}, {
		name: "our MachineConfig of a pool that is gone is deleted",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, registries("arbiter"), conf))}
		},
		desired: func(t *testing.T) *machineconfigs.Set { return set(nil) },
		want:    []string{"delete 99-arbiter-generated-registries: pool is gone"},
	}, {
		name: "a removed output's MachineConfigs are deleted, saying why it is removed",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, providers("worker"), provider)), held(want(t, providers("master"), provider))}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{{Output: machineconfigs.CredentialProviders, State: machineconfigs.Removed,
				Why: `there is no CRIOCredentialProviderConfig "cluster"`}})
		},
		want: []string{
			`delete 97-master-generated-credentialproviderconfig: there is no CRIOCredentialProviderConfig "cluster"`,
			`delete 97-worker-generated-credentialproviderconfig: there is no CRIOCredentialProviderConfig "cluster"`,
		},
	}, {
		name: "an unmanaged output's MachineConfigs are left alone, listed or not",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, providers("worker"), provider)), held(want(t, runtime("worker", 0), logLevel))}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{{Output: machineconfigs.CredentialProviders, State: machineconfigs.Unmanaged, Why: "the feature gate is off"}})
		},
	}, {
		name: "creates and updates come in the set's order, then deletes by name",
		existing: func(t *testing.T) []*mcfgv1.MachineConfig {
			return []*mcfgv1.MachineConfig{held(want(t, registries("worker"), otherConf)), held(want(t, registries("arbiter"), conf)),
				held(want(t, runtime("infra", 0), logLevel))}
		},
		desired: func(t *testing.T) *machineconfigs.Set {
			return set([]machineconfigs.OutputState{written(perObject)},
				want(t, registries("master"), conf), want(t, registries("worker"), conf), want(t, runtime("worker", 0), logLevel))
		},
		want: []string{
			"create 99-master-generated-registries: missing",
			"update 99-worker-generated-registries: file /etc/containers/registries.conf: contents differ",
			"create 99-worker-generated-containerruntime: missing",
			"delete 99-arbiter-generated-registries: pool is gone",
			"delete 99-infra-generated-containerruntime: no ContainerRuntimeConfig selects pool infra any more, or the pool is gone",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := planLines(machineconfigs.Plan(tc.existing(t), machineconfigs.NewDecoder(10), tc.desired(t), tc.opts))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

func TestAPlanCarriesWhatEachWriteNeeds(t *testing.T) {
	desired := want(t, machineconfigs.Key{Pool: "worker", Output: perObject, Suffix: 1}, logLevel)
	if ref := desired.Object.OwnerReferences; len(ref) != 1 || ref[0].Name != "b" || !ptr.Deref(ref[0].Controller, false) ||
		!ptr.Deref(ref[0].BlockOwnerDeletion, false) || desired.Owner == nil || desired.Owner.Kind != "ContainerRuntimeConfig" {
		t.Fatalf("a per-object output's MachineConfig is controlled by its object: %+v", ref)
	}
	stale := held(want(t, machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, conf))
	actions := machineconfigs.Plan([]*mcfgv1.MachineConfig{stale}, nil, set([]machineconfigs.OutputState{written(perObject)}, desired), machineconfigs.PlanOptions{})
	if len(actions) != 2 {
		t.Fatalf("actions %q", planLines(actions))
	}
	if c := actions[0]; c.Op != machineconfigs.Create || c.Want != desired || c.Have != nil {
		t.Errorf("create: %+v", c)
	}
	if d := actions[1]; d.Op != machineconfigs.Delete || d.Have != stale || d.Want != nil {
		t.Errorf("delete: %+v", d)
	}
}

// A ContainerRuntimeConfig's MachineConfig carries no version annotation (MCO's render controller refuses one of
// another build); the controller reference to its object says it is ours, as it says so of MCO's own.
func TestContainerRuntimeMachineConfigsAreOursByTheirControllerReference(t *testing.T) {
	key := machineconfigs.Key{Pool: "worker", Output: machineconfigs.ContainerRuntime, Suffix: 1}
	owner := machineconfigs.ContainerRuntime.Owner.Reference("b", types.UID("uid-b"))
	d := machineconfigs.NewDesired(key, nodefiles.Files{logLevel}, []byte(`{"ignition":{"version":"3.5.0"}}`), owner)
	if len(d.Object.Annotations) != 0 {
		t.Errorf("annotations %v, want none", d.Object.Annotations)
	}
	if d.Object.Name != "99-worker-generated-containerruntime-1" || len(d.Object.OwnerReferences) != 1 ||
		!*d.Object.OwnerReferences[0].Controller || !*d.Object.OwnerReferences[0].BlockOwnerDeletion {
		t.Errorf("MachineConfig %s, owners %v", d.Object.Name, d.Object.OwnerReferences)
	}
	if !machineconfigs.Ours(key, d.Object) {
		t.Error("not ours")
	}
	mcos := d.Object.DeepCopy()
	mcos.Annotations = map[string]string{machineconfigs.VersionAnnotation: "f1a2b3c"}
	if !machineconfigs.Ours(key, mcos) {
		t.Error("MCO's MachineConfig of the object is not taken over")
	}
	admins := d.Object.DeepCopy()
	admins.OwnerReferences = nil
	if machineconfigs.Ours(key, admins) {
		t.Error("an admin's MachineConfig named alike, without the controller reference, is taken for ours")
	}
}

// The registries and credential providers MachineConfigs carry no version annotation either, and a controller
// reference to the Image or the CRIOCredentialProviderConfig, which blocks nothing (no blockOwnerDeletion: no
// permission on the owner's finalizers needed). What older builds and MCO wrote, their build in the annotation and
// a plain reference, is still ours; a MachineConfig named alike with neither is an admin's.
func TestRegistriesAndCredentialProvidersMachineConfigsAreOursByTheirControllerReference(t *testing.T) {
	for _, o := range []*machineconfigs.Output{machineconfigs.Registries, machineconfigs.CredentialProviders} {
		key := machineconfigs.Key{Pool: "worker", Output: o}
		d := machineconfigs.NewDesired(key, nodefiles.Files{conf}, []byte(`{"ignition":{"version":"3.5.0"}}`), o.Owner.Reference("cluster", "uid-cluster"))
		if len(d.Object.Annotations) != 0 {
			t.Errorf("%s: annotations %v, want none", o, d.Object.Annotations)
		}
		if refs := d.Object.OwnerReferences; len(refs) != 1 || !ptr.Deref(refs[0].Controller, false) || refs[0].BlockOwnerDeletion != nil {
			t.Errorf("%s: owners %+v, want one controller reference blocking nothing", o, refs)
		}
		if !machineconfigs.Ours(key, d.Object) {
			t.Errorf("%s: not ours", o)
		}
		for _, build := range []string{"v0.9.0", "f1a2b3c", ""} {
			if old := fixtures.WrittenBy(d.Object.DeepCopy(), build); !machineconfigs.Ours(key, old) {
				t.Errorf("%s: written by %q with a plain reference, not ours", o, build)
			}
			if installed := fixtures.WrittenBy(withoutOwners(d.Object.DeepCopy()), build); !machineconfigs.Ours(key, installed) {
				t.Errorf("%s: written by %q at install time (no owner), not ours", o, build)
			}
		}
		if admins := withoutOwners(d.Object.DeepCopy()); machineconfigs.Ours(key, admins) {
			t.Errorf("%s: an admin's MachineConfig named alike, with neither reference nor annotation, is taken for ours", o)
		}
		plain := fixtures.WrittenBy(d.Object.DeepCopy(), "")
		plain.Annotations = nil
		if machineconfigs.Ours(key, plain) {
			t.Errorf("%s: a plain reference alone is taken for ours", o)
		}
	}
}
