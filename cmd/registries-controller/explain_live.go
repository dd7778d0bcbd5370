package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// runLive explains ref against the files the nodes of the pool run now, and says how the answer changes once a
// newer configuration rolling out to the pool is live.
func (o *explainOptions) runLive(ctx context.Context, stdout, stderr io.Writer, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	r, restCfg, err := readCluster(ctx, o.kubeconfig)
	if err != nil {
		return err
	}
	pool := r.Pool(o.pool)
	if pool == nil {
		return fmt.Errorf("MachineConfigPool %s does not exist", o.pool)
	}
	outputs := []*machineconfigs.Output{machineconfigs.Registries}
	if o.namespace != "" {
		// The kubelet's credential provider files too, read from the same rendered config.
		outputs = append(outputs, machineconfigs.CredentialProviders)
		if o.ns, err = o.liveNamespace(ctx, restCfg, o.pool, render.Platform(r.Inputs())); err != nil {
			return err
		}
	}
	state, err := r.PoolState(pool, outputs...)
	if err != nil {
		return err
	}
	if state.RunningErr != nil {
		return state.RunningErr
	}
	files := state.Running
	prov, err := o.provenance(r, pool, files, stderr)
	if err != nil {
		return err
	}
	var next nodefiles.Files
	if state.RollingOut() {
		next = state.Expected
	}
	signed := o.signed(files, next)
	now, err := o.explainFiles(files, ref, prov, signed)
	if err != nil {
		return oneLineError{err}
	}
	fmt.Fprintf(stdout, "pool %s: its nodes run %s (the pool's status.configuration)\n", o.pool, state.Rendered)
	if err := now.WriteText(stdout); err != nil {
		return err
	}
	if next == nil {
		return nil
	}
	// Compared without provenance: it describes the cluster's objects, which may render neither side.
	plainNext, err := o.explainFiles(next, ref, nil, signed)
	if err != nil {
		return oneLineError{err}
	}
	diffs, err := explain.AnswerChanges(now.WithoutProvenance(), plainNext)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rolling out: %s, whose files differ from what the nodes run (%s), is not live yet: %s\n",
		strings.Join(state.Generated, ", "), state.Difference, state.State.Message)
	if len(diffs) == 0 {
		fmt.Fprintln(stdout, "  once it is live, the answer is the same")
		return nil
	}
	fmt.Fprintln(stdout, "  once it is live, the answer changes:")
	for _, d := range diffs {
		fmt.Fprintf(stdout, "  %s\n", d)
	}
	return nil
}

// explainFiles loads a node's files and explains ref under them.
func (o *explainOptions) explainFiles(files nodefiles.Files, ref string, prov *explain.Provenance, signed bool) (*explain.Explanation, error) {
	cfg, err := explain.Load(files)
	if err != nil {
		return nil, err
	}
	defer cfg.Close()
	return o.explain(cfg, files, ref, prov, signed)
}

// provenance returns where the entries of files came from when they are what the cluster's objects render now;
// otherwise nil, with a note saying why the objects are not named.
func (o *explainOptions) provenance(r *cluster.Reader, pool *mcfgv1.MachineConfigPool, files nodefiles.Files, stderr io.Writer) (*explain.Provenance, error) {
	in := r.Inputs()
	checker := registriesconf.NewChecker()
	defer checker.Close()
	out, err := render.Render(in, render.Options{Checker: checker})
	var invalid *inputs.InvalidError
	if errors.As(err, &invalid) {
		fmt.Fprintf(stderr, "note: the objects behind each mirror are not named: the cluster's inputs are invalid now "+
			"(%d problems; 'registries-controller wait' prints them), so the nodes keep running files of earlier ones\n", len(invalid.Problems))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	want, err := r.Expect(pool, machineconfigs.Registries, out.MachineConfigs)
	if err != nil {
		return nil, err
	}
	if d := rollout.Difference(machineconfigs.Registries.Select(files), want.Files); d != "" {
		fmt.Fprintf(stderr, "note: the objects behind each mirror are not named: the nodes run files rendered from other objects "+
			"than the cluster holds now (%s)\n", d)
		return nil, nil
	}
	return explain.ProvenanceOf(in, out), nil
}
