// Package render is the one path from a cluster's inputs to the MachineConfigs every pool should carry. The
// controller, the offline `render` command and the live-cluster tools all call Render, so install-time and
// in-cluster output are byte-identical.
//
// Everything here is pure (no client, clock or file) except the one injected Checker: before a render returns
// files, the Checker loads them as a node would, with containers/image, which reads configuration only from
// files. That load is the only filesystem access of a render; the production Checker is
// registriesconf.NewChecker, and it loads each distinct set of files once.
package render

import (
	"errors"
	"fmt"
	"sort"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
)

// BuiltInPoolLabel marks the pools that get their own generated MachineConfig (master, worker, arbiter).
// Other pools inherit the worker one through their machineConfigSelector.
const BuiltInPoolLabel = "machineconfiguration.openshift.io/mco-built-in"

// defaultPools are rendered when no pool is given, as at install time.
var defaultPools = []string{"master", "worker"}

// Checker loads rendered files as a node would and fails when containers/image rejects one of them. It returns
// how many [[registry]] entries the library read from registries.conf (0 when none is written), so the render
// can tell that every entry it wrote is one the library uses.
type Checker interface {
	Check(files nodefiles.Files) (entries int, err error)
}

// Options are what a render needs besides the inputs.
type Options struct {
	// Version is written into the generated-by-controller-version annotation.
	Version string
	// Checker loads the rendered files back (registriesconf.NewChecker()); required.
	Checker Checker
}

// Output is a complete render.
type Output struct {
	// Files are the node files every pool gets, in MachineConfig order.
	Files nodefiles.Files
	// Report says where every mirror came from and what was not applied as written.
	Report *registries.Report
	// Merge is the merged mirror configuration, with the registries.conf model.
	Merge *registries.Result
	// MachineConfigs holds one MachineConfig per rendered pool, sorted by name.
	MachineConfigs []*mcfgv1.MachineConfig
}

// errCheck marks rendered files that containers/image rejects: always a bug here, never the user's input,
// since the input was validated.
var errCheck = errors.New("internal error: a rendered file does not load with containers/image")

// Render computes the node files and the MachineConfig of every built-in pool, merging the inputs once and
// loading the result back once. Invalid input gives an *inputs.InvalidError listing every problem.
func Render(in *inputs.Inputs, opts Options) (*Output, error) {
	if opts.Checker == nil {
		return nil, errors.New("render: no Checker given")
	}
	merge, err := registries.Merge(in)
	if err != nil {
		return nil, err
	}
	files := nodeFiles(merge)
	entries, err := opts.Checker.Check(files)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCheck, err)
	}
	if merge.Registries != nil && entries != len(merge.Registries.Registries) {
		return nil, fmt.Errorf("%w: %d [[registry]] entries written, %d loaded", errCheck, len(merge.Registries.Registries), entries)
	}
	out := &Output{Files: files, Report: &merge.Report, Merge: merge}
	for _, pool := range PoolNames(in.Pools) {
		mc, err := machineConfig(pool, files, in.Image, opts.Version)
		if err != nil {
			return nil, fmt.Errorf("rendering the MachineConfig of pool %s: %w", pool, err)
		}
		out.MachineConfigs = append(out.MachineConfigs, mc)
	}
	return out, nil
}

// PoolNames returns the names of the pools that get a generated MachineConfig, sorted: the pools
// labelled BuiltInPoolLabel, or master and worker when no pool is given (at install time).
func PoolNames(pools []*mcfgv1.MachineConfigPool) []string {
	if len(pools) == 0 {
		return append([]string(nil), defaultPools...)
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

// nodeFiles returns the files of a merge in the order the reference writes them: registries.conf,
// policy.json, then the search-registries drop-in; files the node keeps as they are are left out.
func nodeFiles(r *registries.Result) nodefiles.Files {
	var files nodefiles.Files
	for _, f := range []nodefiles.File{
		{Path: nodefiles.RegistriesConf, Data: r.RegistriesConf},
		{Path: nodefiles.PolicyJSON, Data: r.PolicyJSON},
		{Path: nodefiles.SearchRegistries, Data: r.SearchRegistries},
	} {
		if f.Data != nil {
			files = append(files, f)
		}
	}
	return files
}
