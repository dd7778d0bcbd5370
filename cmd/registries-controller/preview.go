package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodeaction"
	"github.com/openshift/registries-controller/pkg/preview"
	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
)

// Exit statuses of preview, from the table every subcommand shares (exitstatus.go).
const (
	previewSame    = exitOK
	previewChanged = exitNo
	// previewInvalid: the inputs with the changes would be invalid, so the controller would apply nothing.
	previewInvalid = exitInvalid
)

// previewTimeout bounds reading the cluster.
const previewTimeout = 2 * time.Minute

type previewOptions struct {
	files      []string
	deletes    []string
	kubeconfig string
	verbose    bool
	// verify, with the check flags, runs verify's checks on the configuration the manifests would produce
	// (preview_verify.go).
	verify       bool
	verifyImages string
	releaseImage string
	checkFlags
}

func newPreviewCommand() *cobra.Command {
	o := &previewOptions{}
	cmd := &cobra.Command{
		Use:   "preview [-f PATH]... [--delete KIND/NAME]... [--kubeconfig FILE] [--verbose]",
		Short: "Show what applying manifests (or deleting objects) would change on each pool's nodes, before applying them",
		Long: `preview reads the cluster's inputs exactly as the controller gathers them (the same code, get, list
and watch only), overlays the objects of the -f files as kubectl apply would leave them (an object of the
same kind and name replaces the cluster's; a new one is added) and removes the --delete objects, renders
with the controller's function, and compares each built-in pool's generated MachineConfig with the one the
cluster holds now.

-f takes a file, a directory (its *.yaml, *.yml and *.json files, not recursing) or - for stdin, as
kubectl apply -f does, and may be repeated; objects that are not inputs (a Namespace, ...) are skipped
with a note. --delete takes KIND/NAME, or KIND/NAMESPACE/NAME for ImagePolicy, KIND as written in YAML
(ImageDigestMirrorSet/team-a, ImagePolicy/payments/signed), and may be repeated. At least one of the
two is needed.

For each pool it prints the change by meaning (the format of 'diff') and the action a node takes, with
the cluster's node disruption policy (the MachineConfiguration "cluster"'s
status.nodeDisruptionPolicyStatus.clusterPolicies, or the daemon's defaults, with a note, when there is
none or it may not be read) and on a single-node cluster (Infrastructure "cluster" SingleReplica) without
drains, plus the minimal safe action when it is smaller. It notes a pool whose nodes do not all run its
MachineConfig yet (a rollout in progress), and what the nodes still on the older files would do. Warnings
(parts of the input not applied) are grouped as render groups them (--verbose lists all). Invalid input:
every problem, as the controller's InvalidMirrorConfiguration event on each object says it.

It then prints each pool's rendered MachineConfig as the machine-config-operator would merge it after the
change (the pool's current rendered MachineConfig, status.configuration.name, with the MachineConfigs the
pool selects and this project's replaced by the preview's) and its share of the 1,572,864 bytes (1.5 MiB) the
operator accepts, with a warning at 80%. Over the limit the controller would write nothing: preview prints
the events it would record instead, and exits 1.

It writes nothing, neither to the cluster (no server-side dry run, which needs write permission) nor
to disk.

With --verify it then asks the registries, as 'verify' does, whether every pull of the release image the
cluster runs or moves to (or --release-image) and its payload, and of the images of --verify-images, works
under the configuration the worker pool would get, and prints verify's report after the preview.

Exit status: 0 nothing would change; 3 the controller would write a MachineConfig (not 1 as kubectl diff:
1 means refused input in every subcommand); 1 the result would be invalid or a pool's rendered MachineConfig over
the limit, so nothing would be applied, or
with --verify a pull would fail; 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return o.run(ctx, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringArrayVarP(&o.files, "filename", "f", nil, "file, directory or - (stdin) of manifests to apply; repeatable")
	cmd.Flags().StringArrayVar(&o.deletes, "delete", nil, "object to delete, KIND/NAME or KIND/NAMESPACE/NAME (ImagePolicy); repeatable")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
	cmd.Flags().BoolVar(&o.verbose, "verbose", false, "list every warning; repeated warnings are grouped, five shown per reason")
	cmd.MarkFlagsOneRequired("filename", "delete")
	o.addVerifyFlags(cmd)
	return cmd
}

func (o *previewOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	deletes, err := o.parseDeletes()
	if err != nil {
		return err
	}
	objs, err := inputfiles.Read(o.files, stdin)
	if err != nil {
		return err
	}
	for _, s := range objs.Skipped {
		fmt.Fprintln(stderr, s)
	}
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	r, cfg, err := readCluster(ctx, o.kubeconfig)
	if err != nil {
		return err
	}
	nodes, err := cluster.ReadNodeDisruption(ctx, cfg)
	if err != nil {
		return err
	}
	in := r.Inputs()
	next, edits, err := preview.Overlay(in, objs.Objects, deletes)
	if err != nil {
		return err
	}
	// Print only once everything is computed: an error leaves nothing half printed.
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "read %s from the cluster at %s\n", in.Summary(), cfg.Host)
	printEdits(&buf, edits)
	checker := registriesconf.NewChecker()
	defer checker.Close()
	out, err := render.Render(next, render.Options{Checker: checker})
	var invalid *inputs.InvalidError
	if errors.As(err, &invalid) {
		printInvalid(&buf, invalid)
		_, err := buf.WriteTo(stdout)
		return errors.Join(err, &exitError{code: previewInvalid})
	}
	if err != nil {
		return err
	}
	existing, err := r.MachineConfigs().List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing MachineConfigs: %w", err)
	}
	// The pools' rendered MachineConfigs must fit, as the controller checks before it writes (docs/semantics.md §3.6).
	budget := measureRendered(out, next.Pools, existing, r.Decoder())
	if budget.refused != nil {
		budget.print(&buf)
		_, err := buf.WriteTo(stdout)
		return errors.Join(err, &exitError{code: previewInvalid})
	}
	pools, err := preview.Compare(machineconfigs.BuiltInPools(in.Pools), out, existing, r.Decoder())
	if err != nil {
		return err
	}
	printNodeDisruption(&buf, nodes)
	p := &poolPrinter{w: &buf, reader: r, policy: nodes.Policy, opts: nodeaction.Options{SingleNode: nodes.SingleNode}, desired: out.MachineConfigs}
	changed, err := p.printAll(pools)
	if err != nil {
		return err
	}
	printReport(&buf, out.Report, o.verbose)
	printSizeWarnings(&buf, out)
	budget.print(&buf)
	if _, err := buf.WriteTo(stdout); err != nil {
		return err
	}
	if o.verify {
		if err := o.verifyPulls(ctx, stdout, stderr, next); err != nil {
			return err
		}
	}
	if changed {
		return &exitError{code: previewChanged}
	}
	return nil
}

func (o *previewOptions) parseDeletes() ([]preview.Delete, error) {
	var out []preview.Delete
	for _, s := range o.deletes {
		k, ref, err := inputs.ParseObjectRef(s)
		if err != nil {
			return nil, fmt.Errorf("--delete %w", err)
		}
		out = append(out, preview.Delete{Kind: k, Ref: ref})
	}
	return out, nil
}

func printEdits(w io.Writer, edits []preview.Edit) {
	fmt.Fprintln(w, "with these changes:")
	for _, e := range edits {
		if e.Op == preview.OpDeleted {
			fmt.Fprintf(w, "  %s deleted (--delete)\n", e.Ref)
			continue
		}
		fmt.Fprintf(w, "  %s %s, from %s\n", e.Ref, e.Op, e.Where)
	}
}

// printInvalid prints, for each object with problems, the Warning event the controller would record on it.
func printInvalid(w io.Writer, invalid *inputs.InvalidError) {
	fmt.Fprintf(w, "invalid: the controller would apply nothing, and every MachineConfig would keep its last good content; "+
		"it would record these events:\n")
	for _, m := range invalid.EventMessages() {
		msg := strings.ReplaceAll(m.Message, "\n", "\n    ")
		fmt.Fprintf(w, "  %s: Warning %s: %s\n", m.Object, reasons.InvalidMirrorConfiguration, msg)
	}
}

func printNodeDisruption(w io.Writer, nodes *cluster.NodeDisruption) {
	fmt.Fprintf(w, "node disruption policies: %s\n", nodes.Policy.Source)
	if nodes.SingleNode {
		fmt.Fprintf(w, "single-node cluster (Infrastructure %q status.controlPlaneTopology SingleReplica): nodes never drain\n", cluster.InfrastructureName)
	}
	for _, n := range nodes.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
