package controller

import (
	"testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/render"
)

func TestARenderIsKeptWithoutTheMergeModelOrItsSources(t *testing.T) {
	warning := inputs.Problem{Message: "left out"}
	out := &render.Output{
		Report: &registries.Report{Sources: []registries.SourceReport{{Source: "quay.io/a"}}, Warnings: []inputs.Problem{warning}},
		Merge:  &registries.Result{RegistriesConf: []byte("[[registry]]")},
		Sizes:  []render.Size{{}},
	}
	out.Set.MachineConfigs = []*machineconfigs.Desired{{Key: machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}}}
	kept := keptOutput(out)
	if kept.Merge != nil || len(kept.Report.Sources) != 0 {
		t.Errorf("kept the merge %v or its sources %v", kept.Merge, kept.Report.Sources)
	}
	if len(kept.Report.Warnings) != 1 || len(kept.Set.MachineConfigs) != 1 || len(kept.Sizes) != 1 {
		t.Errorf("lost what a sync writes or reports: %+v", kept)
	}
	if out.Merge == nil || len(out.Report.Sources) != 1 {
		t.Error("changed the render it was given")
	}
	if keptOutput(nil) != nil {
		t.Error("kept something of no render")
	}
}
