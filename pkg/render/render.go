// Package render is the one pure path from a cluster's mirror configuration to the MachineConfigs every
// pool should carry. The controller and the offline `render` command both call Render, so install-time
// and in-cluster output are byte-identical. Nothing here talks to a cluster, reads a clock, or reads files.
package render

import (
	"fmt"
	"sort"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"

	"github.com/openshift/registries-controller/pkg/registries"
)

// BuiltInPoolLabel marks the pools that get their own generated MachineConfig (master, worker, arbiter).
// Other pools inherit the worker one through their machineConfigSelector.
const BuiltInPoolLabel = "machineconfiguration.openshift.io/mco-built-in"

// DefaultPools are rendered when no pool is given, as at install time.
var DefaultPools = []string{"master", "worker"}

// Inputs is everything a render reads. Objects may come straight from an informer cache: Render never
// modifies them.
type Inputs struct {
	ImageContentSourcePolicies []*operatorv1alpha1.ImageContentSourcePolicy
	ImageDigestMirrorSets      []*configv1.ImageDigestMirrorSet
	ImageTagMirrorSets         []*configv1.ImageTagMirrorSet
	// Image is the Image named "cluster", or nil. Its spec.registrySources adds insecure, blocked,
	// allowed and search registries; the generated MachineConfigs are owned by it.
	Image *configv1.Image
	// ReleaseImage is the release payload (ClusterVersion status.desired.image), "" when unknown.
	ReleaseImage string
	// ReleaseImageField says where ReleaseImage came from, for messages (nil: ClusterVersion "version").
	ReleaseImageField *registries.FieldRef
	// Pools are the MachineConfigPools; only those labelled BuiltInPoolLabel get a MachineConfig. When
	// empty, DefaultPools are rendered.
	Pools []*mcfgv1.MachineConfigPool
	// Version is written into the generated-by-controller-version annotation.
	Version string
}

// Output is a complete render.
type Output struct {
	// Merge holds the node files and the report of how they came about.
	Merge *registries.Result
	// MachineConfigs holds one MachineConfig per rendered pool, sorted by name.
	MachineConfigs []*mcfgv1.MachineConfig
}

// Render computes the MachineConfigs for every built-in pool, merging the mirror configuration once.
// Invalid input gives a *registries.InvalidInputError listing every problem.
func Render(in *Inputs) (*Output, error) {
	merge, err := registries.Merge(in.MergeInputs())
	if err != nil {
		return nil, err
	}
	files := NodeFiles(merge)
	out := &Output{Merge: merge}
	for _, pool := range PoolNames(in.Pools) {
		mc, err := MachineConfig(pool, files, in.Image, in.Version)
		if err != nil {
			return nil, fmt.Errorf("rendering the MachineConfig of pool %s: %w", pool, err)
		}
		out.MachineConfigs = append(out.MachineConfigs, mc)
	}
	return out, nil
}

// MergeInputs returns what the merge reads of in: the mirror objects, the Image's registrySources and
// the release image.
func (in *Inputs) MergeInputs() *registries.Inputs {
	m := &registries.Inputs{
		ImageContentSourcePolicies: in.ImageContentSourcePolicies,
		ImageDigestMirrorSets:      in.ImageDigestMirrorSets,
		ImageTagMirrorSets:         in.ImageTagMirrorSets,
		ReleaseImage:               in.ReleaseImage,
		ReleaseImageField:          in.ReleaseImageField,
	}
	if in.Image != nil {
		m.RegistrySources = in.Image.Spec.RegistrySources
	}
	return m
}

// PoolNames returns the names of the pools that get a generated MachineConfig, sorted: the pools
// labelled BuiltInPoolLabel, or DefaultPools when no pool is given.
func PoolNames(pools []*mcfgv1.MachineConfigPool) []string {
	if len(pools) == 0 {
		return append([]string(nil), DefaultPools...)
	}
	var names []string
	for _, p := range pools {
		if _, ok := p.Labels[BuiltInPoolLabel]; ok {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return names
}

// File is one file as it lands on a node.
type File struct {
	Path string
	Data []byte
}

// NodeFiles returns the files of a merge in the order the reference writes them: registries.conf,
// policy.json, then the search-registries drop-in; files the node keeps as they are are left out.
func NodeFiles(r *registries.Result) []File {
	var files []File
	for _, f := range []File{
		{registries.RegistriesConfPath, r.RegistriesConf},
		{registries.PolicyJSONPath, r.PolicyJSON},
		{registries.SearchRegistriesPath, r.SearchRegistries},
	} {
		if f.Data != nil {
			files = append(files, f)
		}
	}
	return files
}
