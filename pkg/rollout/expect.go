package rollout

import (
	"fmt"
	"sort"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Want is what a pool's rendered config must hold at the paths one output owns (machineconfigs.Output.Owns) for the
// output's render to be live there.
//
// MCO renders a pool's config by merging the MachineConfigs its machineConfigSelector matches (docs/semantics.md
// §3.5: the worker role's first, each group in name order), a later file replacing an earlier one at the same path.
// So with 99-worker-generated-registries writing registries.conf, a 50-extra writing policy.json, and the render
// no longer writing policy.json, the rendered config must hold the render's registries.conf and 50-extra's
// policy.json; had nothing else written policy.json, it must hold none.
type Want struct {
	// Output is the output judged, e.g. machineconfigs.Registries.
	Output *machineconfigs.Output
	// Files are the files the rendered config must hold at the output's paths, sorted by path; a path of the
	// output not listed must be absent. They are the render's files (the output's desired MachineConfigs the pool
	// selects, merged), and, at managed paths the render does not write, what the pool's other MachineConfigs
	// write there (usually nothing).
	Files nodefiles.Files
	// Overrides are files of the render that a MachineConfig merged after the render's replaces: while there is
	// one, the render cannot go live on the pool.
	Overrides []Override
}

// Override is a file of the render that another MachineConfig replaces.
type Override struct {
	// Path is the node path, e.g. /etc/containers/registries.conf.
	Path string
	// By is the MachineConfig that writes it, e.g. 99-worker-zz-registries; Over is the render's MachineConfig whose
	// file it replaces, e.g. 99-worker-generated-registries.
	By, Over string
}

// Expect returns what the rendered config of pool must hold for ours, the desired MachineConfigs of a render (of
// every output and pool: those of output whose role label pool's selector matches count, as MCO selects them), to
// be live there, given every MachineConfig of the cluster (configs, decoded with dec). The output's MachineConfigs as
// the cluster holds them play no part: the desired ones take the place of those of their names, and the others that
// are ours go (machineconfigs.Plan deletes them), so a render can be judged before it is written.
func Expect(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig, dec *machineconfigs.Decoder, output *machineconfigs.Output, ours []*machineconfigs.Desired) (Want, error) {
	selector, err := poolSelector(pool)
	if err != nil {
		return Want{}, err
	}
	var merged []merging
	desired := map[string]bool{}
	for _, d := range ours {
		if d.Key.Output == output && selector.Matches(labels.Set(d.Object.Labels)) {
			desired[d.Object.Name] = true
			merged = append(merged, merging{name: d.Object.Name, role: d.Object.Labels[mcfgv1.MachineConfigRoleLabelKey], files: d.Files, ours: true})
		}
	}
	for _, mc := range selectedBy(selector, configs) {
		if desired[mc.Name] || replaced(mc, output) {
			continue
		}
		managed, err := ManagedFiles(dec, mc, output.Owns)
		if err != nil {
			return Want{}, err
		}
		merged = append(merged, merging{name: mc.Name, role: mc.Labels[mcfgv1.MachineConfigRoleLabelKey], files: managed})
	}
	machineconfigs.SortForMerge(merged, func(m merging) (string, string) { return m.name, m.role })
	return want(output, merged), nil
}

// merging is one MachineConfig of a pool's merge, with its files at the output's paths.
type merging struct {
	name, role string
	files      nodefiles.Files
	// ours is true for the render's MachineConfigs.
	ours bool
}

// replaced reports whether mc, selected by a pool, is a MachineConfig of output that is ours (machineconfigs.Ours):
// a render replaces or deletes it.
func replaced(mc *mcfgv1.MachineConfig, output *machineconfigs.Output) bool {
	key, ok := machineconfigs.ParseName(mc.Name)
	return ok && key.Output == output && machineconfigs.Ours(key, mc)
}

// want merges configs, in merge order: at a path the render writes, the render's last file (a later MachineConfig
// of another writer replacing it is an Override); elsewhere the last file written there.
func want(output *machineconfigs.Output, configs []merging) Want {
	type last struct {
		data []byte
		by   string
	}
	anyone, ours := map[string]last{}, map[string]last{}
	for _, m := range configs {
		for _, f := range m.files {
			anyone[f.Path] = last{data: f.Data, by: m.name}
			if m.ours {
				ours[f.Path] = last{data: f.Data, by: m.name}
			}
		}
	}
	w := Want{Output: output}
	for p, a := range anyone {
		o, isOurs := ours[p]
		switch {
		case !isOurs:
			w.Files = append(w.Files, nodefiles.File{Path: p, Data: a.data})
		default:
			w.Files = append(w.Files, nodefiles.File{Path: p, Data: o.data})
			if a.by != o.by {
				w.Overrides = append(w.Overrides, Override{Path: p, By: a.by, Over: o.by})
			}
		}
	}
	sort.Slice(w.Files, func(i, j int) bool { return w.Files[i].Path < w.Files[j].Path })
	sort.Slice(w.Overrides, func(i, j int) bool { return w.Overrides[i].Path < w.Overrides[j].Path })
	return w
}

// Selected returns the MachineConfigs MCO merges into pool's rendered config, in merge order
// (machineconfigs.SortForMerge): those its spec.machineConfigSelector matches (a nil selector matches none, an empty
// one all), leaving out rendered configs (those a MachineConfigPool controls).
func Selected(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig) ([]*mcfgv1.MachineConfig, error) {
	selector, err := poolSelector(pool)
	if err != nil {
		return nil, err
	}
	return selectedBy(selector, configs), nil
}

// poolSelector returns pool's spec.machineConfigSelector as a selector.
func poolSelector(pool *mcfgv1.MachineConfigPool) (labels.Selector, error) {
	selector, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	if err != nil {
		return nil, fmt.Errorf("MachineConfigPool %s: invalid spec.machineConfigSelector: %w", pool.Name, err)
	}
	return selector, nil
}

// selectedBy returns the MachineConfigs of configs selector matches, rendered ones left out, in merge order.
func selectedBy(selector labels.Selector, configs []*mcfgv1.MachineConfig) []*mcfgv1.MachineConfig {
	var out []*mcfgv1.MachineConfig
	for _, mc := range configs {
		if owner := metav1.GetControllerOf(mc); owner != nil && owner.Kind == "MachineConfigPool" {
			continue
		}
		if selector.Matches(labels.Set(mc.Labels)) {
			out = append(out, mc)
		}
	}
	machineconfigs.SortForMerge(out, machineconfigs.ObjectNameRole)
	return out
}

// Generated returns the MachineConfigs of output pool selects that are ours (machineconfigs.Ours), in merge order:
// as the cluster holds them, those whose files its nodes get from the output.
func Generated(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig, output *machineconfigs.Output) ([]*mcfgv1.MachineConfig, error) {
	selected, err := Selected(pool, configs)
	if err != nil {
		return nil, err
	}
	var out []*mcfgv1.MachineConfig
	for _, mc := range selected {
		if replaced(mc, output) {
			out = append(out, mc)
		}
	}
	return out, nil
}
