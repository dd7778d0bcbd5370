package controller

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestARenderIsKeptWithoutTheMergeModelOrItsSources(t *testing.T) {
	warning := inputs.Problem{Message: "left out"}
	merge, err := registries.Merge(&inputs.Inputs{ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{
		fixtures.IDMS("a", fixtures.MirrorEntry{Source: "quay.io/a", Mirrors: []string{"m.local/a"}})}})
	if err != nil {
		t.Fatal(err)
	}
	merge.Report.Warnings = append(merge.Report.Warnings, warning)
	out := &render.Output{Report: &merge.Report, Merge: merge, Sizes: []render.Size{{}}}
	out.Set.MachineConfigs = []*machineconfigs.Desired{{Key: machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}}}
	kept := keptOutput(out)
	if kept.Merge != nil || len(kept.Report.SourceReports()) != 0 {
		t.Errorf("kept the merge %v or its sources %v", kept.Merge, kept.Report.SourceReports())
	}
	if len(kept.Report.Warnings) != 1 || len(kept.Set.MachineConfigs) != 1 || len(kept.Sizes) != 1 {
		t.Errorf("lost what a sync writes or reports: %+v", kept)
	}
	if out.Merge == nil || len(out.Report.SourceReports()) != 1 {
		t.Error("changed the render it was given")
	}
	if keptOutput(nil) != nil {
		t.Error("kept something of no render")
	}
}
