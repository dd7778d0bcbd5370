package render

import (
	"fmt"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

// DefaultRenderedBaseBytes is the rendered MachineConfig of a default cluster's pool before this project's
// MachineConfigs, the largest of the platform defaults (master, vSphere: 243,503 bytes, measured with MCO 7ff337a's
// own bootstrap code; docs/benchmarks.md has the others). The offline render budgets against it unless told the
// cluster's figure (docs/semantics.md §3.6).
const DefaultRenderedBaseBytes = 243503

// EstimateRendered returns the size of every pool's rendered MachineConfig without a cluster, pools by name: those
// of pools (the MachineConfigPools of the input; each built-in pool when there is none) and every pool the render
// writes for. A pool's rendered MachineConfig is estimated as the render controller merges it
// (renderedconfig.Estimate): baseBytes, the rendered MachineConfig of a pool selecting the worker's or master's
// MachineConfigs of a default cluster, plus the MachineConfigs its spec.machineConfigSelector selects among this
// render's and others (the MachineConfigs read beside the input, e.g. an installer's; one named as this project's
// is replaced by the render's). So a custom pool that selects the worker role's MachineConfigs besides its own
// (role in (worker, infra)) carries the worker's registries.conf, its own MachineConfigs and the worker's base
// (docs/semantics.md §3.6). A pool without a selector is taken to select its role's MachineConfigs, as the
// built-in pools' selectors do.
func (out *Output) EstimateRendered(baseBytes int, pools []*mcfgv1.MachineConfigPool, others []*mcfgv1.MachineConfig) ([]renderedconfig.Size, error) {
	candidates := make([]*mcfgv1.MachineConfig, 0, len(out.MachineConfigs)+len(others))
	for _, d := range out.MachineConfigs {
		candidates = append(candidates, d.Object)
	}
	for _, mc := range others {
		if !isOurs(mc.Name) {
			candidates = append(candidates, mc)
		}
	}
	byName := map[string]*mcfgv1.MachineConfigPool{}
	for _, p := range pools {
		byName[p.Name] = p
	}
	names := out.AllPools()
	if len(pools) == 0 {
		names = append(names, machineconfigs.BuiltInPools(nil)...)
	}
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	cache := renderedconfig.NewCache()
	cache.AddDesired(out.MachineConfigs...)
	var sizes []renderedconfig.Size
	for _, name := range slices.Compact(names) {
		pool := byName[name]
		if pool == nil || pool.Spec.MachineConfigSelector == nil {
			pool = roleSelecting(name, pool)
		}
		selected, err := renderedconfig.Select(pool, candidates)
		if err != nil {
			return nil, err
		}
		s, err := renderedconfig.Estimate(name, baseBytes, selected, cache)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, s)
	}
	return sizes, nil
}

// roleSelecting returns pool (a new one named name when nil) selecting the MachineConfigs of its role, as a built-in
// pool's selector does.
func roleSelecting(name string, pool *mcfgv1.MachineConfigPool) *mcfgv1.MachineConfigPool {
	if pool == nil {
		pool = &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	} else {
		pool = pool.DeepCopy()
	}
	pool.Spec.MachineConfigSelector = &metav1.LabelSelector{MatchLabels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: name}}
	return pool
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
	// By name: the pools come in the order of the informer's cache, and the message must not change between syncs
	// that find the same (an event, a status write, for nothing).
	slices.SortFunc(refused, func(a, b renderedconfig.Size) int { return strings.Compare(a.Pool, b.Pool) })
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
