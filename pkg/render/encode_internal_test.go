package render

import (
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

func TestTwoMachineConfigsOfOneKeyAreAnInternalError(t *testing.T) {
	files := nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte("a")}}
	outputs := []outputRender{
		written(machineconfigs.Registries, []string{"worker", "master"}, files, nil),
		written(machineconfigs.Registries, []string{"worker"}, files, nil),
	}
	err := (&Output{}).encode(outputs)
	if err == nil || !strings.Contains(err.Error(), "two MachineConfigs rendered as 99-worker-generated-registries") {
		t.Errorf("got %v, want an internal error naming the MachineConfig", err)
	}
	out := &Output{}
	if err := out.encode(outputs[:1]); err != nil || len(out.MachineConfigs) != 2 || out.MachineConfigs[0].Key.Pool != "master" {
		t.Errorf("one per key, in key order: %v, %d", err, len(out.MachineConfigs))
	}
}
