package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/registryprobe"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/verify"
)

// verifyOptions are the flags of verify, and of preview --verify (checkFlags).
type verifyOptions struct {
	releaseImage string
	filename     string
	running      bool
	manifests    string
	config       string
	dropIns      string
	kubeconfig   string
	pool         string
	checkFlags
}

// checkFlags say how the registries are asked and how the answer is printed; preview --verify shares them.
type checkFlags struct {
	authFile    string
	certsDir    string
	output      string
	timeout     time.Duration
	concurrency int
	perRegistry int
	// namespace and serviceAccount: check with the credentials of the pods of namespace (verify_namespace.go).
	namespace      string
	serviceAccount string
	// ns, when set, are the credentials of a namespace's pods (--namespace), used instead of the global pull
	// secret alone where crio-credential-provider's file decides them.
	ns *namespaceCreds
}

func (c *checkFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&c.output, "output", "o", "text", "text or json")
	c.addWithoutOutput(cmd)
}

// addWithoutOutput adds the flags of how the registries are asked.
func (c *checkFlags) addWithoutOutput(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.authFile, "authfile", "", "the node's global pull secret (e.g. a copy of /var/lib/kubelet/config.json): the credentials each place is asked with")
	cmd.Flags().StringVar(&c.certsDir, "certs-dir", "", "a certs.d directory (HOST[:PORT]/*.crt), as the node's /etc/containers/certs.d: CAs trusted per registry")
	cmd.Flags().DurationVar(&c.timeout, "timeout", 10*time.Second, "bound of each request to a registry")
	cmd.Flags().IntVar(&c.concurrency, "concurrency", 32, "requests in flight, overall")
	cmd.Flags().IntVar(&c.perRegistry, "per-registry", 8, "requests in flight to one registry")
	cmd.Flags().StringVar(&c.namespace, "namespace", "", "with --kubeconfig: check with the credentials of a pod of this namespace (its dockerconfigjson secrets, as crio-credential-provider copies them)")
	cmd.Flags().StringVar(&c.serviceAccount, "service-account", defaultServiceAccount, "with --namespace: the service account of the pods, whose permission to list secrets the plugin needs")
}

func newVerifyCommand() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use: "verify (--release-image REF | -f FILE | --running) (--manifests DIR | --config FILE [--drop-ins DIR] | --kubeconfig FILE [--pool worker])" +
			" [--authfile FILE] [--namespace NS [--service-account default]] [--certs-dir DIR] [-o json]",
		Short: "Ask the registries whether every pull of a set of images works under a mirror configuration",
		Long: `verify checks a set of images against a mirror configuration by asking the registries, and says, per
image, whether a node's pull works and from where.

Images (any combination): --release-image REF, the release image and every image its
release-manifests/image-references names (read from its layers through the configuration, as a node pulls
it: what an upgrade or a new node pulls); --running with --kubeconfig, the images of the cluster's pods; -f
FILE, a list of references (one a line) or Kubernetes manifests whose pod specs name images.

Configuration: --manifests DIR (what 'render' produces from the directory, the worker pool's files),
--config registries.conf, or --kubeconfig (what the nodes of --pool run now, as 'explain --kubeconfig'
reads it; get, list and watch only). For each image, the places a node tries, in order (containers/image's
pull sources, as 'explain'), and each registry's answer to a manifest request by digest or tag (HEAD, then GET):
has it, not found, unauthorized or forbidden (and with which credentials), TLS failure (naming the certificate
problem), unreachable or timed out; or not tried (blocked, a digest-only mirror and a tag reference). Every
mirror is asked; the source only when no mirror has the image.

Credentials as a node has them: --authfile, the global pull secret; with --namespace NS (and --kubeconfig),
those of a pod of NS: the namespace's kubernetes.io/dockerconfigjson secrets as CRI-O's crio-credential-provider
copies them over the global pull secret's keys (what 'explain --namespace' says, for the pool's provider file
and the pods' --service-account). Each answer names the key and secret used; values are never printed, logged
or written. CAs per registry from --certs-dir, as /etc/containers/certs.d on a node.

The failing pulls come first with every place's answer, then the summary: per mirror the images it lacks,
every NeverContactSource entry whose mirrors lack an image, the sources a pull contacts, the images no
place serves. Only read requests are sent; a progress line is shown when stderr is a terminal.

Exit status: 0 every pull works from the places the configuration allows; 1 a pull fails; 2 an error (the
configuration or the release image could not be read).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.releaseImage == "" && o.filename == "" && !o.running {
				return errors.New("nothing to check: give --release-image, -f or --running")
			}
			if o.running && o.kubeconfig == "" {
				return errors.New("--running needs --kubeconfig")
			}
			if o.namespace != "" && o.kubeconfig == "" {
				return errors.New("--namespace needs --kubeconfig: the namespace's secrets are read from the cluster")
			}
			if err := o.checkNamespaceFlag(cmd); err != nil {
				return err
			}
			if o.output != "text" && o.output != "json" {
				return fmt.Errorf("-o %q: want text or json", o.output)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&o.releaseImage, "release-image", "", "check this release image and every image its release-manifests/image-references names")
	cmd.Flags().StringVarP(&o.filename, "filename", "f", "", "check the images of this file: references one a line, or manifests whose pod specs name images")
	cmd.Flags().BoolVar(&o.running, "running", false, "with --kubeconfig: check the images of the cluster's pods")
	cmd.Flags().StringVar(&o.manifests, "manifests", "", "the configuration: what render produces from this directory of manifests")
	cmd.Flags().StringVar(&o.config, "config", "", "the configuration: this registries.conf")
	cmd.Flags().StringVar(&o.dropIns, "drop-ins", "", "directory of registries.conf drop-ins (*.conf), with --config")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "the configuration the nodes of --pool run now, in the cluster of this kubeconfig")
	cmd.Flags().StringVar(&o.pool, "pool", "worker", "with --kubeconfig: the MachineConfigPool whose nodes' files to read")
	o.checkFlags.add(cmd)
	cmd.MarkFlagsMutuallyExclusive("config", "manifests", "kubeconfig")
	cmd.MarkFlagsOneRequired("config", "manifests", "kubeconfig")
	cmd.MarkFlagsMutuallyExclusive("drop-ins", "manifests")
	cmd.MarkFlagsMutuallyExclusive("drop-ins", "kubeconfig")
	return cmd
}

func (o *verifyOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	cfg, prov, err := o.load(ctx, stderr)
	if err != nil {
		var invalid *inputs.InvalidError
		if errors.As(err, &invalid) {
			fmt.Fprintln(stderr, invalid.Error())
			return &exitError{code: 2}
		}
		return oneLineError{err}
	}
	defer cfg.Close()
	images, err := o.images(ctx, cfg)
	if err != nil {
		return oneLineError{err}
	}
	return o.check(ctx, stdout, stderr, cfg, prov, images)
}

// load loads the configuration to verify against, and where its entries came from when known.
func (o *verifyOptions) load(ctx context.Context, stderr io.Writer) (*registriesconf.Config, *explain.Provenance, error) {
	switch {
	case o.config != "":
		cfg, err := registriesconf.LoadFile(o.config, o.dropIns)
		return cfg, nil, err
	case o.manifests != "":
		r, err := renderManifests(o.manifests, o.releaseImage, stderr)
		if err != nil {
			return nil, nil, err
		}
		return r.Config, r.Provenance, nil
	}
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	r, restCfg, err := readCluster(ctx, o.kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	pool := r.Pool(o.pool)
	if pool == nil {
		return nil, nil, fmt.Errorf("MachineConfigPool %s does not exist", o.pool)
	}
	outputs := []*machineconfigs.Output{machineconfigs.Registries}
	if o.namespace != "" {
		// The kubelet's credential provider files too, read from the same rendered config.
		outputs = append(outputs, machineconfigs.CredentialProviders)
	}
	state, err := r.PoolState(pool, outputs...)
	if err != nil {
		return nil, nil, err
	}
	if state.RunningErr != nil {
		return nil, nil, state.RunningErr
	}
	fmt.Fprintf(stderr, "pool %s: its nodes run %s (the pool's status.configuration)\n", o.pool, state.Rendered)
	if o.namespace != "" {
		o.ns, err = o.readNamespaceCreds(ctx, restCfg, o.pool, render.Platform(r.Inputs()), state.Running, stderr)
		if err != nil {
			return nil, nil, err
		}
	}
	cfg, err := explain.Load(state.Running)
	return cfg, nil, err
}

// check asks the registries about images under cfg, prints the report and returns exit status 1 when a pull fails.
func (c *checkFlags) check(ctx context.Context, stdout, stderr io.Writer, cfg *registriesconf.Config, prov *explain.Provenance, images []verify.Named) error {
	places, err := explainAll(cfg, prov, c.authFile, c.ns, images)
	if err != nil {
		return oneLineError{err}
	}
	prober := registryprobe.New(registryprobe.Options{Timeout: c.timeout, Concurrency: c.concurrency, PerRegistry: c.perRegistry, CertsDir: c.certsDir})
	defer prober.Close()
	progress := newProgress(stderr)
	start := time.Now()
	askAll(ctx, prober, places, c.concurrency, progress)
	progress.finish()
	st := prober.Stats()
	fmt.Fprintf(stderr, "asked %d places of %d images: %d requests over %d connections in %v\n",
		progress.total, len(places.images), st.Requests, st.Connections, time.Since(start).Round(time.Millisecond))
	report := verify.Judge(places.images)
	if c.output == "json" {
		err = report.WriteJSON(stdout)
	} else {
		err = report.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if !report.OK() {
		return &exitError{code: 1}
	}
	return nil
}

// stderrIsTerminal reports whether w is a terminal, where the progress line is shown.
func stderrIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}
