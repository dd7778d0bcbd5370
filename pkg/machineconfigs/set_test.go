package machineconfigs_test

import (
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestMachineConfigsMergeWorkerRoleFirstThenByName(t *testing.T) {
	configs := []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("99-infra-generated-containerruntime", "infra"), fixtures.MachineConfig("00-worker", "worker"),
		fixtures.MachineConfig("50-a", "infra"), fixtures.MachineConfig("99-worker-generated-containerruntime", "worker"),
	}
	machineconfigs.SortForMerge(configs, machineconfigs.ObjectNameRole)
	var names []string
	for _, mc := range configs {
		names = append(names, mc.Name)
	}
	want := "00-worker 99-worker-generated-containerruntime 50-a 99-infra-generated-containerruntime"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("merge order %s, want %s", got, want)
	}
}

func TestAPoolsFilesAreItsMachineConfigsMergedTheLaterWinningPerPath(t *testing.T) {
	debug := fixtures.File(logLevel.Path, "[crio]\n  [crio.runtime]\n    log_level = \"info\"\n")
	storage := fixtures.File("/etc/containers/storage.conf", "[storage]\n")
	s := set([]machineconfigs.OutputState{written(perObject)},
		want(t, machineconfigs.Key{Pool: "master", Output: machineconfigs.Registries}, otherConf),
		want(t, machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, conf),
		want(t, machineconfigs.Key{Pool: "infra", Output: perObject}, storage),
		want(t, machineconfigs.Key{Pool: "worker", Output: perObject, Suffix: 1}, debug),
		want(t, machineconfigs.Key{Pool: "worker", Output: perObject}, logLevel, storage),
	)
	// The -1 of the second object replaces the first object's drop-in in its place; registries sorts after both.
	if got, want := s.PoolFiles("worker"), (nodefiles.Files{debug, storage, conf}); !reflect.DeepEqual(got, want) {
		t.Errorf("worker's files %v, want %v", got.Paths(), want.Paths())
	}
	if got := s.OutputFiles("worker", perObject); !reflect.DeepEqual(got, nodefiles.Files{debug, storage}) {
		t.Errorf("worker's files of the per-object output: %v", got.Paths())
	}
	if got := s.PoolFiles("infra"); !reflect.DeepEqual(got, nodefiles.Files{storage}) {
		t.Errorf("a custom pool gets its own MachineConfigs' files only: %v", got.Paths())
	}
	if got := s.PoolsOf(perObject); !reflect.DeepEqual(got, []string{"infra", "worker"}) {
		t.Errorf("pools of the per-object output: %v", got)
	}
	if got := s.PoolsOf(machineconfigs.Registries); !reflect.DeepEqual(got, []string{"master", "worker"}) {
		t.Errorf("pools of registries: %v, want the built-in pools", got)
	}
	if got := s.AllPools(); !reflect.DeepEqual(got, []string{"infra", "master", "worker"}) {
		t.Errorf("every pool: %v", got)
	}
	if !s.SameFiles(s) || s.SameFiles(set(nil, want(t, machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, conf))) {
		t.Errorf("SameFiles compares every MachineConfig's files")
	}
}

func TestAnOutputTheSetDoesNotListIsUnmanaged(t *testing.T) {
	s := set([]machineconfigs.OutputState{{Output: machineconfigs.CredentialProviders, State: machineconfigs.Removed, Why: "gone"}})
	if st := s.StateOf(perObject); st.State != machineconfigs.Unmanaged || st.Why != "not rendered" {
		t.Errorf("state of an unlisted output: %+v", st)
	}
	if got := s.Managed(); !reflect.DeepEqual(got, []*machineconfigs.Output{machineconfigs.Registries, machineconfigs.CredentialProviders}) {
		t.Errorf("managed %v", got)
	}
}
