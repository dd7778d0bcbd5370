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
)

type explainOptions struct {
	config       string
	dropIns      string
	manifests    string
	releaseImage string
	namespace    string
	kubeconfig   string
	pool         string
	authFile     string
	// filename and serviceAccount are about the pods of namespace (explain_namespace.go); ns is what is known of
	// them once read.
	filename       string
	serviceAccount string
	ns             *namespaceFacts
}

func newExplainCommand() *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use: "explain IMAGE-REF (--config FILE [--drop-ins DIR] | --manifests DIR [--release-image REF] | --kubeconfig FILE [--pool worker])" +
			" [--namespace NS [-f SECRETS] [--service-account default]] [--authfile FILE]",
		Short: "Show where a node pulls an image from: the matching entry, the ordered attempts, whether the source is contacted",
		Long: `explain answers, with containers/image's own matching and pull-source logic (what CRI-O runs), how a
pull of IMAGE-REF proceeds: which [[registry]] entry matches, the places the pull tries in order (each
rewritten reference, digest-only or tag-only, insecure, refused because blocked), the mirrors it skips,
and whether the source itself is ever contacted.

With --config, it reads a registries.conf (and the *.conf drop-ins in --drop-ins). With --manifests, it
renders the objects in the directory as 'render' does, takes the worker pool's files, and also names the
object and field behind each mirror and each blocked or insecure setting. With --kubeconfig, it reads the
files the nodes of --pool (default worker) run now: the rendered config the pool's status names (get,
list and watch only). It names the objects behind each mirror when those files are what the cluster's
objects render, and when a newer configuration is still rolling out to the pool, it says so and how the
answer changes once it is live.

When signature policies (ClusterImagePolicy, ImagePolicy) are rendered, or with --namespace, it also says
which signature requirement applies (the cluster's policy.json, or /etc/crio/policies/NS.json for the pods
of namespace NS when it has one) and, for each place the pull tries, whether signatures are read from
sigstore attachments.

With --namespace NS it also says which credentials the pull uses for the pods of NS through CRI-O's
crio-credential-provider (a CRIOCredentialProviderConfig): whether the image is sent to the plugin (the
platform's provider file in the pool's files, matched as the kubelet matches, and which cloud provider runs
too), the mirrors the plugin takes (all of the registries.conf entry, whatever pull-from-mirror says), which
key of which kubernetes.io/dockerconfigjson secret of NS it copies for each (its plain string-prefix rule,
surprises such as "mirror.local" matching "mirror.localhost:5000" included), and which key each place the
pull tries then uses, or the global pull secret, or none (a warning). Only names and keys are read and
printed, never a secret's value. It warns when the pool's kubelet never reads the provider file (platforms
None, External, PowerVS and others: docs/semantics.md §10.3) and when the service account of the pods
(--service-account, default "default") may not list secrets in NS, which the plugin needs and nothing grants
by default. Offline, the secrets are read from -f/--filename (a file or directory of Secret manifests, as
'kubectl get secret -n NS -o yaml' prints them; only those of NS count) and the service account cannot be
checked. With --kubeconfig, it lists the dockerconfigjson secrets of NS (if you may not, it says so and goes
on without their keys), reads the Infrastructure for the platform, and creates a SubjectAccessReview for the
service account: a review object, which changes nothing in the cluster.

With --authfile (the node's global pull secret, e.g. a copy of /var/lib/kubelet/config.json, which CRI-O
reads as its global_auth_file), it says for each place the pull tries whether the file holds credentials
for it, with containers/image's own lookup, and warns about a mirror without credentials where the source
has some: if the mirror requires authentication, pulls from it fail with 401 Unauthorized.

A reference without tag is pulled as :latest; a short name (no registry) is refused, since CRI-O tries
each search registry in turn. Errors (unreadable or unparsable file, malformed reference, no such pool)
are one line, exit status 2. Invalid manifests (what the API server would refuse by a CRD, and the project's
own checks) print every problem, exit status 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("pool") && o.kubeconfig == "" {
				return errors.New("--pool needs --kubeconfig")
			}
			if err := o.checkNamespaceFlags(cmd.Flags().Changed("service-account")); err != nil {
				return err
			}
			if o.kubeconfig != "" {
				return o.runLive(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
			}
			return o.run(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "registries.conf to read")
	cmd.Flags().StringVar(&o.dropIns, "drop-ins", "", "directory of registries.conf drop-ins (*.conf), with --config")
	cmd.Flags().StringVar(&o.manifests, "manifests", "", "directory of input manifests to render")
	cmd.Flags().StringVar(&o.releaseImage, "release-image", "", "release payload reference, with --manifests; overrides the ClusterVersion")
	cmd.Flags().StringVar(&o.namespace, "namespace", "", "with --manifests or --kubeconfig: explain the signature policy and the mirror credentials for the pods of this namespace")
	cmd.Flags().StringVarP(&o.filename, "filename", "f", "", "with --manifests and --namespace: the namespace's Secret manifests (a file or directory, as 'kubectl get secret -o yaml' prints them); only names and keys are read")
	cmd.Flags().StringVar(&o.serviceAccount, "service-account", defaultServiceAccount, "with --namespace: the service account of the pods, whose permission to list secrets the plugin needs")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "read the files the nodes of --pool run now from the cluster of this kubeconfig")
	cmd.Flags().StringVar(&o.pool, "pool", "worker", "with --kubeconfig: the MachineConfigPool whose nodes' files to read")
	cmd.Flags().StringVar(&o.authFile, "authfile", "", "the node's global pull secret (e.g. a copy of /var/lib/kubelet/config.json): say which attempts it has credentials for")
	cmd.MarkFlagsMutuallyExclusive("config", "manifests", "kubeconfig")
	cmd.MarkFlagsOneRequired("config", "manifests", "kubeconfig")
	cmd.MarkFlagsMutuallyExclusive("drop-ins", "manifests")
	cmd.MarkFlagsMutuallyExclusive("drop-ins", "kubeconfig")
	cmd.MarkFlagsMutuallyExclusive("release-image", "config")
	cmd.MarkFlagsMutuallyExclusive("release-image", "kubeconfig")
	cmd.MarkFlagsMutuallyExclusive("namespace", "config")
	cmd.MarkFlagsMutuallyExclusive("filename", "kubeconfig")
	cmd.MarkFlagsMutuallyExclusive("filename", "config")
	return cmd
}

func (o *explainOptions) run(stdout, stderr io.Writer, ref string) error {
	r, err := o.load(stderr)
	if err != nil {
		var invalid *inputs.InvalidError
		if errors.As(err, &invalid) {
			fmt.Fprintln(stderr, invalid.Error())
			return &exitError{code: exitInvalid}
		}
		return oneLineError{err}
	}
	defer r.Close()
	if o.namespace != "" {
		if o.ns, err = o.offlineNamespace(r.Pool, r.Platform); err != nil {
			return oneLineError{err}
		}
	}
	e, err := o.explain(r.Config, r.Files, ref, r.Provenance, o.signed(r.Files))
	if err != nil {
		return oneLineError{err}
	}
	return e.WriteText(stdout)
}

// signed reports whether explanations of files say which signatures a pull needs: when signature policies
// are rendered into them, or a namespace was asked about.
func (o *explainOptions) signed(files ...nodefiles.Files) bool {
	for _, fs := range files {
		if _, ok := fs.Get(nodefiles.SigstoreRegistries); ok {
			return true
		}
	}
	return o.namespace != ""
}

// explain explains ref under cfg, loaded from files: the pull, the signatures when signed, and the credentials
// when an auth file is given.
func (o *explainOptions) explain(cfg *registriesconf.Config, files nodefiles.Files, ref string, prov *explain.Provenance, signed bool) (*explain.Explanation, error) {
	e, err := explain.Explain(cfg, ref, prov)
	if err != nil {
		return nil, err
	}
	if signed {
		if err := explain.ExplainSignatures(e, files, o.namespace, prov); err != nil {
			return nil, err
		}
	}
	if o.authFile != "" {
		if err := explain.ExplainCredentials(e, cfg, o.authFile); err != nil {
			return nil, err
		}
	}
	if o.ns != nil {
		if err := explain.ExplainNamespaceCredentials(e, cfg, o.ns.input(o.namespace, files)); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// load loads the configuration to explain: a registries.conf, or the worker pool's files of a render of the
// manifests (with the objects behind each entry, and the platform).
func (o *explainOptions) load(stderr io.Writer) (*explain.Rendered, error) {
	if o.config != "" {
		cfg, err := registriesconf.LoadFile(o.config, o.dropIns)
		if err != nil {
			return nil, err
		}
		return &explain.Rendered{Config: cfg}, nil
	}
	return renderManifests(o.manifests, o.releaseImage, stderr)
}

// renderManifests renders the manifests of dir as `render` does (releaseImage as its --release-image) and returns
// the worker pool's files, with the objects behind each entry; it prints the files it skipped and what it rendered
// on stderr. explain and verify read a directory of manifests with it.
func renderManifests(dir, releaseImage string, stderr io.Writer) (*explain.Rendered, error) {
	objs, err := inputfiles.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, s := range objs.Skipped {
		fmt.Fprintln(stderr, s)
	}
	objs.ReleaseImageFlag = releaseImage
	checker := registriesconf.NewChecker()
	defer checker.Close()
	r, err := explain.RenderPool(&objs.Inputs, render.Options{Checker: checker})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "rendered %s from %s; files of pool %s\n", objs.Summary(), dir, r.Pool)
	return r, nil
}
