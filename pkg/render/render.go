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
	"slices"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
)

// Checker loads rendered files as a node would and fails when containers/image rejects one of them. It returns
// how many [[registry]] entries the library read from registries.conf (0 when none is written), so the render
// can tell that every entry it wrote is one the library uses.
type Checker interface {
	Check(files nodefiles.Files) (entries int, err error)
}

// Options are what a render needs besides the inputs.
type Options struct {
	// Checker loads the rendered files back (registriesconf.NewChecker()); required.
	Checker Checker
	// InstallTime renders as MCO's bootstrap does, before the cluster exists (`render`): a ContainerRuntimeConfig's
	// MachineConfigs carry no suffix, and a second one on a pool is refused (docs/semantics.md §11.3).
	InstallTime bool
}

// Output is a complete render.
type Output struct {
	// Report says where every mirror came from and what was not applied as written.
	Report *registries.Report
	// Merge is the merged mirror configuration, with the registries.conf model.
	Merge *registries.Result
	// Policies is the signature side: policy.json, the signature policies and their per-object outcomes.
	Policies *imagepolicy.Result
	// Credentials is the render of the CRIOCredentialProviderConfig, nil unless its output is Written.
	Credentials *credentialprovider.Result
	// ContainerRuntime is the render of the ContainerRuntimeConfigs (pools, suffixes), nil while their output is
	// Unmanaged.
	ContainerRuntime *ContainerRuntime
	// Set is the desired set: the built-in pools rendered for, what the render wants of each output, and every
	// MachineConfig it wants with the files it writes (the one place rendered files live).
	machineconfigs.Set
	// Sizes are how large each MachineConfig is, in the order of Set.MachineConfigs (the size budget,
	// MaxMachineConfigBytes).
	Sizes []Size
}

// errCheck marks rendered files that containers/image rejects: always a bug here, never the user's input,
// since the input was validated.
var errCheck = errors.New("internal error: a rendered file does not load with containers/image")

// Render computes the node files and the MachineConfig of every built-in pool: the mirror merge, then the
// signature policies on top of it (pkg/imagepolicy), the credential providers (pkg/credentialprovider), then one
// load of every file with containers/image. Invalid input gives an *inputs.InvalidError listing every problem, of
// the mirror objects, the signature policies and the CRIOCredentialProviderConfig alike. A MachineConfig larger
// than etcd accepts (MaxMachineConfigBytes) is invalid input too, named on the Image "cluster" and on the ten
// objects contributing most; the Output is then returned with the error, for its Sizes.
func Render(in *inputs.Inputs, opts Options) (*Output, error) {
	if opts.Checker == nil {
		return nil, errors.New("render: no Checker given")
	}
	merge, err := registries.Merge(in)
	allPools := in.Pools
	if opts.InstallTime {
		allPools = installTimePools(in)
	}
	ctrcfgs, ctrcfgResult, ctrcfgProblems, ctrcfgWarnings := containerRuntime(in, allPools, opts.InstallTime)
	var invalid *inputs.InvalidError
	if errors.As(err, &invalid) || err == nil {
		// Report the other objects' own problems too, so that each object shows all of them at once.
		var ps []inputs.Problem
		if invalid != nil {
			ps = slices.Clone(invalid.Problems)
			ps = append(ps, imagepolicy.Problems(in)...)
		}
		ps = append(ps, ctrcfgProblems...)
		// The CRIOCredentialProviderConfig has no rules besides its CRD's, which the API server applies (offline,
		// pkg/inputfiles through pkg/crdvalidation).
		if len(ps) > 0 {
			inputs.SortProblems(ps)
			return nil, &inputs.InvalidError{Problems: ps}
		}
	}
	if err != nil {
		return nil, err
	}
	policies, err := imagepolicy.RenderPolicies(in, merge)
	if err != nil {
		return &Output{Policies: policies}, err
	}
	merge.Report.Warnings = append(merge.Report.Warnings, policies.Warnings...)
	pools := machineconfigs.BuiltInPools(in.Pools)
	creds, credsResult, credsWarnings, err := credentials(in, pools)
	if err != nil {
		return nil, err
	}
	merge.Report.Warnings = append(merge.Report.Warnings, credsWarnings...)
	merge.Report.Warnings = append(merge.Report.Warnings, ctrcfgWarnings...)
	files := nodeFiles(merge, policies)
	out := &Output{Report: &merge.Report, Merge: merge, Policies: policies, Credentials: credsResult, ContainerRuntime: ctrcfgResult}
	out.Pools = pools
	// One render per row of machineconfigs.Outputs, in its order: a new output adds its renderer here.
	outputs := []outputRender{
		written(machineconfigs.Registries, pools, files, imageOwnerReference(in.Image)),
		creds,
		ctrcfgs,
	}
	// The load-back runs while the MachineConfigs are encoded: on a node with more than one core the render then
	// takes about as long as the load alone.
	checked := make(chan error, 1)
	go func() { checked <- check(opts.Checker, files, merge) }()
	err = out.encode(outputs)
	if checkErr := <-checked; checkErr != nil {
		return nil, checkErr
	}
	if err != nil {
		return nil, err
	}
	if out.Sizes, err = sizes(out); err != nil {
		return nil, err
	}
	if ps := sizeProblems(out); len(ps) > 0 {
		// Too large to write: invalid input, reported as such (nothing is written), with the output for its sizes.
		inputs.SortProblems(ps)
		return out, &inputs.InvalidError{Problems: ps}
	}
	return out, nil
}

// encode builds the desired set of outputs: what the render wants of each, and every MachineConfig of the written
// ones, in key order.
func (out *Output) encode(outputs []outputRender) error {
	for i := range outputs {
		mcs, err := outputs[i].machineConfigs()
		if err != nil {
			return err
		}
		out.Outputs = append(out.Outputs, outputs[i].state)
		out.MachineConfigs = append(out.MachineConfigs, mcs...)
	}
	slices.SortStableFunc(out.MachineConfigs, func(a, b *machineconfigs.Desired) int { return a.Key.Compare(b.Key) })
	for i := 1; i < len(out.MachineConfigs); i++ {
		if k := out.MachineConfigs[i].Key; k == out.MachineConfigs[i-1].Key {
			return fmt.Errorf("internal error: two MachineConfigs rendered as %s", k.Name())
		}
	}
	return nil
}

// check loads files back with the Checker, and makes sure containers/image uses every [[registry]] entry
// written.
func check(checker Checker, files nodefiles.Files, merge *registries.Result) error {
	entries, err := checker.Check(files)
	if err != nil {
		return fmt.Errorf("%w: %v", errCheck, err)
	}
	if merge.Registries != nil && entries != len(merge.Registries.Registries) {
		return fmt.Errorf("%w: %d [[registry]] entries written, %d loaded", errCheck, len(merge.Registries.Registries), entries)
	}
	return nil
}

// nodeFiles returns the files in the order MCO writes them (docs/semantics.md §9.6): registries.conf,
// policy.json, sigstore-registries.yaml, the namespace policies sorted by namespace, then the search-registries
// drop-in; files the node keeps as they are are left out.
func nodeFiles(r *registries.Result, p *imagepolicy.Result) nodefiles.Files {
	var files nodefiles.Files
	all := []nodefiles.File{
		{Path: nodefiles.RegistriesConf, Data: r.RegistriesConf},
		{Path: nodefiles.PolicyJSON, Data: p.PolicyJSON},
		{Path: nodefiles.SigstoreRegistries, Data: p.SigstoreRegistries},
	}
	all = append(all, p.NamespacePolicies...)
	all = append(all, nodefiles.File{Path: nodefiles.SearchRegistries, Data: r.SearchRegistries})
	for _, f := range all {
		if f.Data != nil {
			files = append(files, f)
		}
	}
	return files
}
