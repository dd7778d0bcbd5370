package render

import (
	"fmt"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

// DefaultRenderedBaseBytes is the rendered MachineConfig of a default cluster's pool before this project's
// MachineConfigs, the largest of the platform defaults (master, vSphere: 243,503 bytes, measured with MCO 7ff337a's
// own bootstrap code; docs/benchmarks.md has the others). The offline render budgets against it unless told the
// cluster's figure (docs/semantics.md §3.6).
const DefaultRenderedBaseBytes = 243503

// EstimateRendered returns, for every pool the render writes for, the size of its rendered MachineConfig without a
// cluster: baseBytes plus what the pool's MachineConfigs of this render add to it (renderedconfig.Estimate).
func (out *Output) EstimateRendered(baseBytes int) ([]renderedconfig.Size, error) {
	var sizes []renderedconfig.Size
	for _, pool := range out.AllPools() {
		var ours []*mcfgv1.MachineConfig
		for _, d := range out.MachineConfigs {
			if d.Key.Pool == pool {
				ours = append(ours, d.Object)
			}
		}
		s, err := renderedconfig.Estimate(pool, baseBytes, ours)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, s)
	}
	return sizes, nil
}

// CheckRendered returns the problems of every pool whose rendered MachineConfig the render's MachineConfigs would
// leave over the limit the render controller accepts (renderedconfig.Size.Refused), nil when there is none: one on
// the Image "cluster" naming the pools, their rendered sizes, the largest contributors of this project's input and
// the largest other MachineConfigs of each pool, and one on each of the ten objects contributing most. Nothing may
// then be written (docs/semantics.md §3.6).
func CheckRendered(out *Output, sizes []renderedconfig.Size) *inputs.InvalidError {
	var refused []renderedconfig.Size
	for _, s := range sizes {
		if s.Refused() {
			refused = append(refused, s)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	contributed := contributors(out, machineconfigs.Registries)
	var ours []string
	for _, c := range contributed {
		ours = append(ours, fmt.Sprintf("%s (about %s bytes)", c.ref, thousands(c.bytes)))
	}
	if len(ours) == 0 {
		ours = []string{"none named"}
	}
	var pools, names []string
	largest := 0
	for _, s := range refused {
		names = append(names, s.Pool)
		largest = max(largest, s.Bytes)
		line := fmt.Sprintf("pool %s would be %s bytes", s.Pool, thousands(s.Bytes))
		if others := s.Largest(isOurs); others != "" {
			line += "; its largest other MachineConfigs: " + others
		}
		pools = append(pools, line)
	}
	value := strings.Join(names, ", ")
	ps := []inputs.Problem{{At: inputs.FieldRef{Object: inputs.ImageRef, Field: "spec"}, Value: value,
		Message: fmt.Sprintf("with this configuration the rendered MachineConfig of %s is over the %s bytes (1.5 MiB) the "+
			"machine-config-operator accepts, and the pool would get no configuration at all (%s; the largest contributors of the "+
			"mirror configuration: %s)",
			plural(len(names), "pool "+value, "pools "+value), thousands(renderedconfig.MaxBytes), strings.Join(pools, "; "), strings.Join(ours, ", ")),
		Fix: "remove mirror objects no longer needed, or merge entries that list the same mirrors; or make the pool's other MachineConfigs smaller"}}
	for _, c := range contributed {
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: c.ref, Field: "spec"}, Value: value,
			Message: fmt.Sprintf("contributes about %s bytes to a rendered MachineConfig of %s bytes (pool %s), more than the %s bytes (1.5 MiB) "+
				"the machine-config-operator accepts", thousands(c.bytes), thousands(largest), value, thousands(renderedconfig.MaxBytes)),
			Fix: "one of the ten largest contributors: remove it if it is no longer needed, or merge it with objects listing the same mirrors"})
	}
	inputs.SortProblems(ps)
	return &inputs.InvalidError{Problems: ps}
}

// RenderedWarnings returns a warning for every rendered MachineConfig at 80% of the limit or more that is not refused.
func RenderedWarnings(sizes []renderedconfig.Size) []string {
	var ws []string
	for _, s := range sizes {
		if s.Near() && !s.Refused() {
			w := s.String() + ": a few more mirror entries and the pool gets no configuration at all"
			if others := s.Largest(isOurs); others != "" {
				w += " (its largest other MachineConfigs: " + others + ")"
			}
			ws = append(ws, w)
		}
	}
	return ws
}

// isOurs reports whether a MachineConfig is named as one this project writes.
func isOurs(name string) bool {
	_, ok := machineconfigs.ParseName(name)
	return ok
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
