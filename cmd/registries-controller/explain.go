package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/version"
)

type explainOptions struct {
	config       string
	dropIns      string
	manifests    string
	releaseImage string
	namespace    string
}

func newExplainCommand() *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain IMAGE-REF (--config FILE [--drop-ins DIR] | --manifests DIR [--release-image REF] [--namespace NS])",
		Short: "Show where a node pulls an image from: the matching entry, the ordered attempts, whether the source is contacted",
		Long: `explain answers, with containers/image's own matching and pull-source logic (what CRI-O runs), how a
pull of IMAGE-REF proceeds: which [[registry]] entry matches, the places the pull tries in order (each
rewritten reference, digest-only or tag-only, insecure, refused because blocked), the mirrors it skips,
and whether the source itself is ever contacted.

With --config, it reads a registries.conf (and the *.conf drop-ins in --drop-ins). With --manifests, it
renders the objects in the directory as 'render' does, takes the worker pool's files, and also names the
object and field behind each mirror and each blocked or insecure setting. When signature policies
(ClusterImagePolicy, ImagePolicy) are rendered, or with --namespace, it also says which signature
requirement applies (the cluster's policy.json, or /etc/crio/policies/NS.json for the pods of namespace NS
when it has one) and, for each place the pull tries, whether signatures are read from sigstore attachments.

A reference without tag is pulled as :latest; a short name (no registry) is refused, since CRI-O tries
each search registry in turn. Errors (unreadable or unparsable file, malformed reference) are one line,
exit status 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "registries.conf to read")
	cmd.Flags().StringVar(&o.dropIns, "drop-ins", "", "directory of registries.conf drop-ins (*.conf), with --config")
	cmd.Flags().StringVar(&o.manifests, "manifests", "", "directory of input manifests to render")
	cmd.Flags().StringVar(&o.releaseImage, "release-image", "", "release payload reference, with --manifests; overrides the ClusterVersion")
	cmd.Flags().StringVar(&o.namespace, "namespace", "", "with --manifests: explain the signature policy for the pods of this namespace")
	cmd.MarkFlagsMutuallyExclusive("config", "manifests")
	cmd.MarkFlagsOneRequired("config", "manifests")
	cmd.MarkFlagsMutuallyExclusive("drop-ins", "manifests")
	cmd.MarkFlagsMutuallyExclusive("release-image", "config")
	cmd.MarkFlagsMutuallyExclusive("namespace", "config")
	return cmd
}

func (o *explainOptions) run(stdout, stderr io.Writer, ref string) error {
	cfg, prov, files, err := o.load(stderr)
	if err != nil {
		var invalid *inputs.InvalidError
		if errors.As(err, &invalid) {
			fmt.Fprintln(stderr, invalid.Error())
			return &exitError{code: 2}
		}
		return errors.New(oneLine(err))
	}
	defer cfg.Close()
	e, err := explain.Explain(cfg, ref, prov)
	if err != nil {
		return errors.New(oneLine(err))
	}
	if _, signed := files.Get(nodefiles.SigstoreRegistries); signed || o.namespace != "" {
		if err := explain.ExplainSignatures(e, files, o.namespace, prov); err != nil {
			return errors.New(oneLine(err))
		}
	}
	return e.WriteText(stdout)
}

func (o *explainOptions) load(stderr io.Writer) (*registriesconf.Config, *explain.Provenance, nodefiles.Files, error) {
	if o.config != "" {
		cfg, err := registriesconf.LoadFile(o.config, o.dropIns)
		return cfg, nil, nil, err
	}
	objs, err := inputfiles.ReadDir(o.manifests)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, s := range objs.Skipped {
		fmt.Fprintln(stderr, s)
	}
	objs.ReleaseImageFlag = o.releaseImage
	checker := registriesconf.NewChecker()
	defer checker.Close()
	r, err := explain.Render(&objs.Inputs, render.Options{Version: version.Version, Checker: checker})
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintf(stderr, "rendered %s from %s; files of pool %s\n", objs.Summary(), o.manifests, r.Pool)
	return r.Config, r.Provenance, r.Files, nil
}
