package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/generated"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
	"github.com/openshift/registries-controller/pkg/version"
)

// runLive explains ref against the files the nodes of the pool run now, and says how the answer changes once a
// newer configuration rolling out to the pool is live.
func (o *explainOptions) runLive(ctx context.Context, stdout, stderr io.Writer, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	r, _, err := readCluster(ctx, o.kubeconfig)
	if err != nil {
		return err
	}
	pool := r.Pool(o.pool)
	if pool == nil {
		return fmt.Errorf("MachineConfigPool %s does not exist", o.pool)
	}
	running, files, err := r.Running(pool)
	if err != nil {
		return err
	}
	prov, err := o.provenance(r, pool, files, stderr)
	if err != nil {
		return err
	}
	next, err := rollingOut(r, pool, files)
	if err != nil {
		return err
	}
	signed := o.signed(files, next.files)
	now, err := o.explainFiles(files, ref, prov, signed)
	if err != nil {
		return errors.New(oneLine(err))
	}
	fmt.Fprintf(stdout, "pool %s: its nodes run %s (the pool's status.configuration)\n", o.pool, running)
	if err := now.WriteText(stdout); err != nil {
		return err
	}
	if next.files == nil {
		return nil
	}
	// Compared without provenance: it describes the cluster's objects, which may render neither side.
	plainNow, err := o.explainFiles(files, ref, nil, signed)
	if err != nil {
		return errors.New(oneLine(err))
	}
	plainNext, err := o.explainFiles(next.files, ref, nil, signed)
	if err != nil {
		return errors.New(oneLine(err))
	}
	diffs, err := explain.Differences(plainNow, plainNext)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rolling out: %s, whose files differ from what the nodes run (%s), is not live yet: %s\n",
		next.generated, next.difference, next.state.Message)
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
	out, err := render.Render(in, render.Options{Version: version.Version, Checker: checker})
	var invalid *inputs.InvalidError
	if errors.As(err, &invalid) {
		fmt.Fprintf(stderr, "note: the objects behind each mirror are not named: the cluster's inputs are invalid now "+
			"(%d problems; 'registries-controller wait' prints them), so the nodes keep running files of earlier ones\n", len(invalid.Problems))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	want, err := r.Expect(pool, generated.Registries, out.Files(generated.Registries))
	if err != nil {
		return nil, err
	}
	if d := rollout.Difference(files, want.Files); d != "" {
		fmt.Fprintf(stderr, "note: the objects behind each mirror are not named: the nodes run files rendered from other objects "+
			"than the cluster holds now (%s)\n", d)
		return nil, nil
	}
	return explain.ProvenanceOf(in, out), nil
}

// pending is a configuration rolling out to a pool.
type pending struct {
	// files are what the pool's nodes run at the managed paths once it is live; nil when nothing rolls out.
	files nodefiles.Files
	// generated names the generated MachineConfig that carries it, and difference what differs from what the
	// nodes run now, e.g. "/etc/containers/registries.conf differs".
	generated, difference string
	// state is where the rollout stands.
	state rollout.State
}

// rollingOut returns the configuration that rolls out to pool: its generated MachineConfig, when the files it
// brings are not those the nodes run (files). None when they are, or nothing was generated yet.
func rollingOut(r *cluster.Reader, pool *mcfgv1.MachineConfigPool, files nodefiles.Files) (pending, error) {
	gen, err := r.Generated(pool, generated.Registries)
	if apierrors.IsNotFound(err) {
		return pending{}, nil
	}
	if err != nil {
		return pending{}, err
	}
	genConfig, err := r.Decoder().Decode(gen)
	if err != nil {
		return pending{}, err
	}
	genFiles := genConfig.Files
	want, err := r.Expect(pool, generated.Registries, genFiles)
	if err != nil {
		return pending{}, err
	}
	d := rollout.Difference(files, want.Files)
	if d == "" {
		return pending{}, nil
	}
	st, err := r.Rollout(pool, generated.Registries, genFiles)
	return pending{files: want.Files, generated: gen.Name, difference: d, state: st}, err
}
