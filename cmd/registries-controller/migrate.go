package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/migrate"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
)

type migrateOptions struct {
	manifests  string
	kubeconfig string
	output     string
}

func newMigrateCommand() *cobra.Command {
	o := &migrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate-icsp (-f DIR | --kubeconfig FILE) [-o DIR]",
		Short: "Replace every ImageContentSourcePolicy by an ImageDigestMirrorSet, proven to roll no node",
		Long: `ImageContentSourcePolicy is deprecated. migrate-icsp writes one ImageDigestMirrorSet per
ImageContentSourcePolicy, with the same name and entries, each with mirrorSourcePolicy AllowContactingSource
(what an ImageContentSourcePolicy entry means) and its mirrors without repeats. Where an ImageDigestMirrorSet of
that name exists, it says so: one with the same entries means the policy was migrated before (nothing is
written for it); one written by an earlier migration of the policy is replaced; any other keeps its name and
the new one is named <name>-icsp.

It then proves the swap over the whole input set (every object in -f DIR, or on the cluster): each pool's
MachineConfig rendered with the ImageDigestMirrorSets added, and with them in place of the policies, must be
identical in meaning to the one rendered from the inputs as they are: machineconfigs.Differences, which the
controller uses to decide whether to write, finds no difference in the decoded files, their modes and
attributes, labels, annotations or owner references. So no node rolls, neither after applying the
ImageDigestMirrorSets nor after deleting the policies. It prints what to apply and what to delete.

With -o DIR (created when missing) it writes <name>.yaml per ImageDigestMirrorSet and reports on stdout;
without, it prints the manifests on stdout and reports on stderr. --kubeconfig only reads (get, list, watch).

Exit status: 0 proven neutral (and written); 3 not neutral: what differs is printed and nothing is written;
1 inputs that do not render as they are (every problem printed); 2 error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&o.manifests, "filename", "f", "", "directory of input manifests, as for render --manifests")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "read the inputs from the cluster of this kubeconfig")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "directory to write the ImageDigestMirrorSets into (created when missing)")
	cmd.MarkFlagsMutuallyExclusive("filename", "kubeconfig")
	cmd.MarkFlagsOneRequired("filename", "kubeconfig")
	return cmd
}

func (o *migrateOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	report := stderr
	if o.output != "" {
		report = stdout
	}
	in, from, live, err := o.read(ctx, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(report, "read %s from %s\n", in.Summary(), from)
	plan := migrate.ICSPs(in)
	if len(plan.Migrations) == 0 {
		fmt.Fprintln(report, "no ImageContentSourcePolicy: nothing to migrate")
		return nil
	}
	checker := registriesconf.NewChecker()
	defer checker.Close()
	proof, err := migrate.Prove(in, plan, render.Options{Checker: checker})
	var invalid *inputs.InvalidError
	if errors.As(err, &invalid) {
		fmt.Fprintln(stderr, invalid.Error())
		fmt.Fprintln(stderr, "the inputs do not render as they are, so the swap cannot be proven; nothing written")
		return &exitError{code: exitInvalid}
	}
	if err != nil {
		return err
	}
	printPlan(report, plan)
	if live != nil {
		printLiveDifferences(report, proof, live)
	}
	if !proof.Neutral() {
		printNotNeutral(report, plan, proof)
		return &exitError{code: exitNo}
	}
	fmt.Fprintf(report, "proven neutral, no node rolls: for pools %s, the controller's comparison finds nothing between today's\n"+
		"  MachineConfigs and those rendered %s, nor %s\n"+
		"  (it compares the decoded files, their modes, and the labels, annotations and owner references)\n",
		strings.Join(proof.Pools, ", "), migrate.Added, migrate.Swapped)
	return o.write(stdout, report, plan)
}

// read returns the inputs, where they came from, and for a cluster its Reader (nil for files).
func (o *migrateOptions) read(ctx context.Context, stderr io.Writer) (*inputs.Inputs, string, *cluster.Reader, error) {
	if o.manifests != "" {
		objs, err := inputfiles.ReadDir(o.manifests)
		if err != nil {
			return nil, "", nil, err
		}
		for _, s := range objs.Skipped {
			fmt.Fprintln(stderr, s)
		}
		return &objs.Inputs, o.manifests, nil, nil
	}
	r, cfg, err := readCluster(ctx, o.kubeconfig)
	if err != nil {
		return nil, "", nil, err
	}
	return r.Inputs(), "the cluster at " + cfg.Host, r, nil
}

func printPlan(w io.Writer, plan *migrate.Plan) {
	for _, m := range plan.Migrations {
		entries := len(m.To.Spec.ImageDigestMirrors)
		switch m.Disposition {
		case migrate.Migrated:
			fmt.Fprintf(w, "ImageContentSourcePolicy %q: already migrated (%s)\n", m.From.Name, m.Note)
		default:
			fmt.Fprintf(w, "ImageContentSourcePolicy %q -> ImageDigestMirrorSet %q (%d %s, AllowContactingSource)",
				m.From.Name, m.To.Name, entries, plural(entries, "entry", "entries"))
			if m.Note != "" {
				fmt.Fprintf(w, ": %s", m.Note)
			}
			fmt.Fprintln(w)
		}
	}
}

// printLiveDifferences notes the pools whose generated MachineConfig in the cluster writes other files than a
// render of its inputs: the proof compares renders, and those nodes roll anyway once the controller writes.
// Metadata (e.g. the version annotation of another build) is not compared.
func printLiveDifferences(w io.Writer, proof *migrate.Proof, r *cluster.Reader) {
	for _, want := range proof.Today {
		have, err := r.MachineConfigs().Get(want.Key.Name())
		if err != nil {
			continue // not written yet: nothing to compare
		}
		cfg, err := r.Decoder().Decode(have)
		if err != nil {
			fmt.Fprintf(w, "note: MachineConfig %s in the cluster does not decode: %v\n", want.Key.Name(), err)
			continue
		}
		spec := *want
		spec.Object = want.Object.DeepCopy()
		spec.Object.Labels, spec.Object.Annotations, spec.Object.OwnerReferences = nil, nil, nil
		if d := machineconfigs.Strings(machineconfigs.Differences(have, cfg, &spec)); len(d) > 0 {
			fmt.Fprintf(w, "note: MachineConfig %s in the cluster differs from a render of its inputs (%s): the controller has "+
				"not written it yet, or another writer did; the proof compares renders of the inputs\n", want.Key.Name(), strings.Join(d, "; "))
		}
	}
}

func printNotNeutral(w io.Writer, plan *migrate.Plan, proof *migrate.Proof) {
	fmt.Fprintln(w, "NOT neutral: nodes would roll; nothing written")
	for _, m := range plan.Migrations {
		if m.Disposition == migrate.Replace {
			fmt.Fprintf(w, "ImageDigestMirrorSet %q, from an earlier migration, says more or other than ImageContentSourcePolicy %q "+
				"says now: make them agree (or delete the ImageDigestMirrorSet if the policy is right), then run again\n", m.To.Name, m.From.Name)
		}
	}
	for _, step := range migrate.Steps {
		if invalid := proof.Invalid[step]; invalid != nil {
			fmt.Fprintf(w, "%s, the inputs do not render:\n%s\n", step, invalid.Error())
		}
		for _, d := range proof.Changes {
			if d.Step == step {
				fmt.Fprintf(w, "%s, MachineConfig %s: %s\n", step, d.Key.Name(), strings.Join(d.Lines, "; "))
			}
		}
		for _, l := range proof.Files[step] {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// write writes the ImageDigestMirrorSets to apply, and says what to apply and delete.
func (o *migrateOptions) write(stdout, report io.Writer, plan *migrate.Plan) error {
	writes := plan.Writes()
	docs := make([][]byte, len(writes))
	for i, idms := range writes {
		var err error
		if docs[i], err = idmsYAML(idms); err != nil {
			return err
		}
	}
	var icsps []string
	for _, m := range plan.Migrations {
		icsps = append(icsps, m.From.Name)
	}
	apply := "-f -   # the manifests printed above"
	if o.output != "" {
		files := map[string][]byte{}
		for i, idms := range writes {
			files[filepath.Join(o.output, idms.Name+".yaml")] = docs[i]
		}
		if err := writeAll(files); err != nil {
			return err
		}
		for _, idms := range writes {
			fmt.Fprintf(report, "wrote %s\n", filepath.Join(o.output, idms.Name+".yaml"))
		}
		apply = "-f " + o.output
	} else {
		for i, doc := range docs {
			if i > 0 {
				fmt.Fprintln(stdout, "---")
			}
			if _, err := stdout.Write(doc); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(report, "to migrate, apply the ImageDigestMirrorSets, then delete the ImageContentSourcePolicies:")
	if len(writes) > 0 {
		fmt.Fprintf(report, "  kubectl apply %s\n", apply)
	}
	fmt.Fprintf(report, "  kubectl delete imagecontentsourcepolicy %s\n", strings.Join(icsps, " "))
	return nil
}

// idmsManifest is an ImageDigestMirrorSet as written: what kubectl apply needs, no empty server-side fields.
type idmsManifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Spec configv1.ImageDigestMirrorSetSpec `json:"spec"`
}

func idmsYAML(idms *configv1.ImageDigestMirrorSet) ([]byte, error) {
	m := idmsManifest{APIVersion: configv1.GroupVersion.String(), Kind: inputs.KindImageDigestMirrorSet, Spec: idms.Spec}
	m.Metadata.Name, m.Metadata.Annotations = idms.Name, idms.Annotations
	data, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding ImageDigestMirrorSet %s: %w", idms.Name, err)
	}
	from := idms.Annotations[migrate.MigratedFromAnnotation]
	header := fmt.Sprintf("# Migrated from ImageContentSourcePolicy %q by registries-controller migrate-icsp, which proved\n"+
		"# that applying this and then deleting the ImageContentSourcePolicy changes no node file.\n", from)
	return append([]byte(header), data...), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
