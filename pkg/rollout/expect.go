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
// MCO renders a pool's config by merging the MachineConfigs its machineConfigSelector matches in name order, a
// later file replacing an earlier one at the same path. So with the generated 99-worker-generated-registries
// writing registries.conf, a 50-extra writing policy.json, and the render no longer writing policy.json, the
// rendered config must hold the render's registries.conf and 50-extra's policy.json; had nothing else written
// policy.json, it must hold none.
type Want struct {
	// Output is the output judged, e.g. machineconfigs.Registries.
	Output *machineconfigs.Output
	// Generated is the generated MachineConfig whose files the pool gets, e.g. 99-worker-generated-registries.
	Generated string
	// Files are the files the rendered config must hold at the output's paths, sorted by path; a path of the
	// output not listed must be absent. They are the render's files, and, at managed paths the render does not write, what the pool's
	// other MachineConfigs write there (usually nothing).
	Files nodefiles.Files
	// Overrides are files of the render that a MachineConfig sorting after Generated replaces: while there is
	// one, the render cannot go live on the pool.
	Overrides []Override
}

// Override is a file of the render that another MachineConfig replaces.
type Override struct {
	// Path is the node path, e.g. /etc/containers/registries.conf.
	Path string
	// By is the MachineConfig that writes it, e.g. 99-worker-zz-registries.
	By string
}

// Expect returns what the rendered config of pool must hold for files, the render's files of output, to be live
// there, given every MachineConfig of the cluster (configs, decoded with dec). The output's generated MachineConfig
// for the pool (GeneratedFor) plays no part as it is in configs: files take its place, so a render can be judged
// before it is written.
func Expect(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig, dec *machineconfigs.Decoder, output *machineconfigs.Output, files nodefiles.Files) (Want, error) {
	selected, err := Selected(pool, configs)
	if err != nil {
		return Want{}, err
	}
	gen := GeneratedFor(pool, configs, output)
	type written struct {
		data []byte
		by   string
	}
	before, after := map[string]written{}, map[string]written{}
	for _, mc := range selected {
		if mc.Name == gen {
			continue
		}
		managed, err := ManagedFiles(dec, mc, output.Owns)
		if err != nil {
			return Want{}, err
		}
		into := before
		if mc.Name > gen {
			into = after
		}
		for _, f := range managed {
			into[f.Path] = written{data: f.Data, by: mc.Name}
		}
	}
	want := Want{Output: output, Generated: gen}
	ours := map[string]bool{}
	for _, f := range files {
		ours[f.Path] = true
		want.Files = append(want.Files, f)
		if w, ok := after[f.Path]; ok {
			want.Overrides = append(want.Overrides, Override{Path: f.Path, By: w.by})
		}
	}
	for p, w := range before {
		if _, later := after[p]; !later && !ours[p] {
			want.Files = append(want.Files, nodefiles.File{Path: p, Data: w.data})
		}
	}
	for p, w := range after {
		if !ours[p] {
			want.Files = append(want.Files, nodefiles.File{Path: p, Data: w.data})
		}
	}
	sort.Slice(want.Files, func(i, j int) bool { return want.Files[i].Path < want.Files[j].Path })
	sort.Slice(want.Overrides, func(i, j int) bool { return want.Overrides[i].Path < want.Overrides[j].Path })
	return want, nil
}

// Selected returns the MachineConfigs MCO merges into pool's rendered config, sorted by name: those its
// spec.machineConfigSelector matches (a nil selector matches none, an empty one all), leaving out rendered
// configs (those a MachineConfigPool controls).
func Selected(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig) ([]*mcfgv1.MachineConfig, error) {
	selector, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	if err != nil {
		return nil, fmt.Errorf("MachineConfigPool %s: invalid spec.machineConfigSelector: %w", pool.Name, err)
	}
	var out []*mcfgv1.MachineConfig
	for _, mc := range configs {
		if owner := metav1.GetControllerOf(mc); owner != nil && owner.Kind == "MachineConfigPool" {
			continue
		}
		if selector.Matches(labels.Set(mc.Labels)) {
			out = append(out, mc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// GeneratedFor returns the name of output's generated MachineConfig whose files pool's nodes get: a built-in pool's
// own (99-<pool>-generated-registries); for another pool, the last generated MachineConfig of the output its
// selector matches (a custom pool inherits the worker one), or the worker one when it matches none yet.
func GeneratedFor(pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig, output *machineconfigs.Output) string {
	if machineconfigs.BuiltIn(pool) {
		return output.MachineConfigName(pool.Name)
	}
	name := output.MachineConfigName("worker")
	selected, err := Selected(pool, configs)
	if err != nil {
		return name
	}
	for _, mc := range selected {
		if k, ok := machineconfigs.ParseName(mc.Name); ok && k.Output == output {
			name = mc.Name
		}
	}
	return name
}
