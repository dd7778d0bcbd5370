package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

// renderedBudget is what the controller would find of the pools' rendered MachineConfigs once the preview's
// MachineConfigs are written (docs/semantics.md §3.6).
type renderedBudget struct {
	sizes []renderedconfig.Size
	// notes are the pools that cannot be measured, and why: the controller leaves them out too.
	notes []string
	// refused is what the controller would report instead of writing: a pool's rendered MachineConfig over the limit.
	refused *inputs.InvalidError
}

// measureRendered measures every pool's rendered MachineConfig as the controller does before it writes: from the
// pool's current rendered MachineConfig (status.configuration.name) and every MachineConfig it selects, with this
// project's MachineConfigs replaced by what the render wants (the actions the controller would carry out).
func measureRendered(out *render.Output, pools []*mcfgv1.MachineConfigPool, existing []*mcfgv1.MachineConfig, decoder *machineconfigs.Decoder) renderedBudget {
	var ours []*mcfgv1.MachineConfig
	for _, mc := range existing {
		if machineconfigs.IsGenerated(mc) {
			ours = append(ours, mc)
		}
	}
	actions := machineconfigs.Plan(ours, decoder, &out.Set, machineconfigs.PlanOptions{})
	pools = slices.SortedFunc(slices.Values(pools), func(a, b *mcfgv1.MachineConfigPool) int { return strings.Compare(a.Name, b.Name) })
	all, errs := renderedconfig.MeasurePools(pools, existing, actions, renderedconfig.NewCache())
	var b renderedBudget
	for i, err := range errs {
		if err != nil {
			b.notes = append(b.notes, fmt.Sprintf("the rendered MachineConfig of pool %s cannot be measured (the controller leaves it out too): %v", pools[i].Name, err))
			continue
		}
		b.sizes = append(b.sizes, all[i])
	}
	b.refused = render.CheckRendered(out, b.sizes)
	return b
}

// print prints each pool's rendered MachineConfig with its share of the limit, the notes, and the warnings of those
// at 80% or more; over the limit, the events the controller would record instead of writing.
func (b renderedBudget) print(w io.Writer) {
	fmt.Fprintf(w, "\nthe pools' rendered MachineConfigs, as the machine-config-operator would merge them after the change "+
		"(it refuses one over %s bytes, and the pool then gets no configuration at all):\n", renderedconfig.Thousands(renderedconfig.MaxBytes))
	for _, s := range b.sizes {
		fmt.Fprintf(w, "  pool %s: %s bytes, %d%%\n", s.Pool, renderedconfig.Thousands(s.Bytes), s.Percent())
	}
	for _, n := range b.notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if b.refused != nil {
		printInvalid(w, b.refused)
		return
	}
	for _, warning := range render.RenderedWarnings(b.sizes) {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
}
