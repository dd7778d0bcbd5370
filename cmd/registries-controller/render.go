package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/spf13/cobra"
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

type renderOptions struct {
	manifests    string
	output       string
	releaseImage string
	nodeRoot     string
	verbose      bool
	// renderedBaseBytes is each pool's rendered MachineConfig before this project's (docs/semantics.md §3.6).
	renderedBaseBytes int
}

func newRenderCommand() *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render --manifests DIR --output DIR [--release-image REF] [--node-root DIR] [--rendered-base-bytes N] [--verbose]",
		Short: "Render the MachineConfigs for the objects in a directory, offline (the install-time path)",
		Long: `render reads every *.yaml, *.yml and *.json file in --manifests (multi-document YAML and List
objects included), takes the ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Image,
ClusterImagePolicy, ImagePolicy, CRIOCredentialProviderConfig, FeatureGate, Infrastructure, MachineConfigPool
and ClusterVersion objects, and writes into --output the MachineConfigs of every built-in pool, byte for byte
what the controller writes in a cluster: 99-<pool>-generated-registries.yaml, and, for a
CRIOCredentialProviderConfig named "cluster", 97-<pool>-generated-credentialproviderconfig.yaml (the
Infrastructure's status.platformStatus.type picks the provider file; without one, the generic file, as on
platform None).

With --node-root, it also writes the files as they land on a node:
<root>/<pool>/etc/containers/registries.conf, <root>/<pool>/etc/containers/policy.json,
<root>/<pool>/etc/containers/registries.d/sigstore-registries.yaml, <root>/<pool>/etc/crio/policies/<ns>.json,
<root>/<pool>/etc/kubernetes/credential-providers/<ecr|gcr|acr|generic>-credential-provider.yaml,
<root>/<pool>/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf and so on.

Invalid input, including what the API server's validation would refuse (e.g. a CRIOCredentialProviderConfig
with another name or a matchImages entry its rules reject): every problem is printed, nothing is written, and
the exit status is 1.

The machine-config-operator merges every MachineConfig of a pool into its rendered MachineConfig and refuses one
over 1,572,864 bytes (1.5 MiB); the pool then gets no configuration at all. render adds the MachineConfigs it
writes to --rendered-base-bytes, the size of a pool's rendered MachineConfig without them (default 243503, the
largest of a default cluster); read the cluster's figure with
  oc get machineconfig $(oc get mcp worker -o jsonpath='{.status.configuration.name}') -o json | wc -c
(and the same for master). A custom pool's rendered MachineConfig is estimated as MCO merges it: the same base
(a custom pool normally selects the worker role's MachineConfigs besides its own) plus this project's
MachineConfigs its machineConfigSelector selects (the worker's registries.conf too) and the MachineConfigs in
--manifests it selects; those count for the built-in pools too. At 80% it warns; over it, it is invalid input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&o.manifests, "manifests", "", "directory of input manifests (required)")
	cmd.Flags().StringVar(&o.output, "output", "", "directory to write the MachineConfigs into (required)")
	cmd.Flags().StringVar(&o.releaseImage, "release-image", "", "release payload reference; overrides the ClusterVersion in --manifests")
	cmd.Flags().StringVar(&o.nodeRoot, "node-root", "", "also write the node files under DIR/<pool>/")
	cmd.Flags().IntVar(&o.renderedBaseBytes, "rendered-base-bytes", render.DefaultRenderedBaseBytes,
		"bytes of each pool's rendered MachineConfig without this project's MachineConfigs (the cluster's figure: see --help)")
	cmd.Flags().BoolVar(&o.verbose, "verbose", false, "list every warning; repeated warnings are grouped, five shown per reason")
	_ = cmd.MarkFlagRequired("manifests")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func (o *renderOptions) run(stdout, stderr io.Writer) error {
	objs, err := inputfiles.ReadDir(o.manifests)
	var refused *inputs.InvalidError
	if err != nil && !errors.As(err, &refused) {
		return err
	}
	for _, s := range objs.Skipped {
		fmt.Fprintln(stderr, s)
	}
	objs.ReleaseImageFlag = o.releaseImage
	checker := registriesconf.NewChecker()
	defer checker.Close()
	// The objects the API server would accept are rendered even when others are refused, so that every problem
	// is reported at once: the CRDs' (objs.Refused), then the project's own checks on what passes them.
	out, err := render.Render(&objs.Inputs, render.Options{Checker: checker, InstallTime: true})
	var rendered []renderedconfig.Size
	var yamls [][]byte
	var yamlErrs []error
	var encoding sync.WaitGroup
	if err == nil {
		// Each MachineConfig's YAML is written while the budget is measured, each on its own goroutine: a
		// megabyte each for the registries MachineConfigs, thrown away if the budget refuses them.
		yamls, yamlErrs = make([][]byte, len(out.MachineConfigs)), make([]error, len(out.MachineConfigs))
		for i, mc := range out.MachineConfigs {
			encoding.Go(func() { yamls[i], yamlErrs[i] = machineConfigYAML(mc.Object) })
		}
		// The pools' rendered MachineConfigs must fit too (docs/semantics.md §3.6).
		if rendered, err = out.EstimateRendered(o.renderedBaseBytes, objs.Pools, objs.MachineConfigs); err == nil {
			if refused := render.CheckRendered(out, rendered); refused != nil {
				err = refused
			}
		}
	}
	encoding.Wait()
	var invalid *inputs.InvalidError
	if errors.As(err, &invalid) || refused != nil {
		problems := slices.Clone(objs.Refused)
		if invalid != nil {
			for _, p := range invalid.Problems {
				if p.Where == "" {
					p.Where = objs.WhereOf(p.At.Object)
				}
				problems = append(problems, p)
			}
		}
		inputs.SortProblems(problems)
		fmt.Fprintln(stderr, (&inputs.InvalidError{Problems: problems}).Error())
		fmt.Fprintln(stderr, "nothing written")
		return &exitError{code: 1}
	}
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for i, mc := range out.MachineConfigs {
		if yamlErrs[i] != nil {
			return yamlErrs[i]
		}
		files[filepath.Join(o.output, mc.Key.Name()+".yaml")] = yamls[i]
	}
	if o.nodeRoot != "" {
		for _, pool := range out.AllPools() {
			for _, f := range out.PoolFiles(pool) {
				files[filepath.Join(o.nodeRoot, pool, filepath.FromSlash(f.Path))] = f.Data
			}
		}
	}
	if err := writeAll(files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "read %s from %s\n", objs.Summary(), o.manifests)
	for _, output := range out.Managed() {
		printWritten(stdout, o.output, out.Of(output))
	}
	if o.nodeRoot != "" {
		fmt.Fprintf(stdout, "node files under %s/<pool>/\n", o.nodeRoot)
	}
	printReport(stderr, out.Report, o.verbose)
	printSizeWarnings(stderr, out)
	for _, w := range render.RenderedWarnings(rendered) {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return nil
}

// printWritten lists the MachineConfigs of one output written into dir and their files: each run of MachineConfigs
// writing the same files (every pool's, for an output with one per pool) is listed with its files once.
func printWritten(w io.Writer, dir string, mcs []*machineconfigs.Desired) {
	for i := 0; i < len(mcs); {
		j := i + 1
		for j < len(mcs) && slices.EqualFunc(mcs[j].Files, mcs[i].Files, nodefiles.File.Equal) {
			j++
		}
		for _, mc := range mcs[i:j] {
			fmt.Fprintf(w, "wrote %s\n", filepath.Join(dir, mc.Key.Name()+".yaml"))
		}
		for _, f := range mcs[i].Files {
			fmt.Fprintf(w, "  %s (%d bytes)\n", f.Path, len(f.Data))
		}
		i = j
	}
}

// printSizeWarnings prints a warning for every MachineConfig at 80% of the size etcd accepts or more.
func printSizeWarnings(w io.Writer, out *render.Output) {
	for _, s := range out.SizeWarnings() {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

// printReport prints the warnings and notes of a render. Warnings with the same reason are grouped, five values
// shown per reason unless verbose (`--verbose`: -v is klog's).
func printReport(w io.Writer, r *registries.Report, verbose bool) {
	for _, line := range warningLines(r.Warnings, verbose) {
		fmt.Fprintf(w, "warning: %s\n", line)
	}
	for _, p := range r.Ignored {
		fmt.Fprintf(w, "note: %s\n", p)
	}
}

// warningLines groups warnings with the same reason (inputs.GroupProblems): five listed per reason, or all
// when verbose. render and preview print them alike.
func warningLines(ws []inputs.Problem, verbose bool) []string {
	f := inputs.GroupFormat{More: " (--verbose lists them all)"}
	if verbose {
		f.Shown = -1
	}
	return f.Format(inputs.GroupProblems(ws))
}

// machineConfigYAML prints a MachineConfig as a manifest, without the empty server-side fields.
func machineConfigYAML(mc *mcfgv1.MachineConfig) ([]byte, error) {
	data, err := marshalYAML(mc)
	if err != nil {
		return nil, fmt.Errorf("encoding MachineConfig %s: %w", mc.Name, err)
	}
	return []byte(strings.Replace(string(data), "  creationTimestamp: null\n", "", 1)), nil
}

// marshalYAML returns sigs.k8s.io/yaml.Marshal(obj), byte for byte, faster for a MachineConfig: that function
// encodes obj as JSON and parses the JSON back with the YAML parser (to tell integers from floats) before emitting
// YAML, and the YAML parser took a fifth of render's time on the megabyte-long data URL of a large registries.conf.
// Here encoding/json decodes it; an object with any number but an integer (which the YAML parser would read as
// the same int) takes sigs.k8s.io/yaml's path, so the output cannot differ (TestMarshalYAMLIsSigsYAML).
func marshalYAML(obj any) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v, ok := integersOnly(v)
	if !ok {
		return yaml.JSONToYAML(data)
	}
	// The YAML emitter goes through a long string character by character; a data URL it writes as it is (a plain
	// scalar: printable ASCII, no space, no '#', beginning with "data:") is emitted as a short placeholder of the same
	// kind and put in afterwards.
	var long []string
	if !bytes.Contains(data, []byte(placeholderPrefix)) {
		v = placeholders(v, &long)
	}
	out, err := yamlv2.Marshal(v)
	if err != nil || len(long) == 0 {
		return out, err
	}
	pairs := make([]string, 0, 2*len(long))
	for i, s := range long {
		pairs = append(pairs, placeholder(i), s)
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(out))), nil
}

// placeholderPrefix begins the stand-in of a long string; placeholders are used only when it occurs nowhere in
// the JSON.
const placeholderPrefix = "registriescontrollerlongscalar"

func placeholder(i int) string { return placeholderPrefix + strconv.Itoa(i) + "z" }

// placeholders replaces in v the long strings the YAML emitter writes unchanged by placeholders, appending them
// to long.
func placeholders(v any, long *[]string) any {
	switch v := v.(type) {
	case string:
		if len(v) >= 4096 && writtenAsIs(v) {
			*long = append(*long, v)
			return placeholder(len(*long) - 1)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = placeholders(e, long)
		}
	case []any:
		for k, e := range v {
			v[k] = placeholders(e, long)
		}
	}
	return v
}

// writtenAsIs reports whether go-yaml v2 writes s as a plain scalar, unchanged, in any block context: a data URL
// of characters that are no YAML indicator inside a scalar (no space, so the emitter never folds it; no '#'; no
// character outside printable ASCII), whose "data:" beginning resolves to no other type.
func writtenAsIs(s string) bool {
	if !strings.HasPrefix(s, "data:") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte(";,:/+=%._-~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// integersOnly replaces every json.Number of v by the int the YAML parser reads it as, and reports false for a
// number that is not an integer of the int range.
func integersOnly(v any) (any, bool) {
	switch v := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(v), 10, strconv.IntSize)
		return int(i), err == nil
	case map[string]any:
		for k, e := range v {
			e, ok := integersOnly(e)
			if !ok {
				return nil, false
			}
			v[k] = e
		}
	case []any:
		for k, e := range v {
			e, ok := integersOnly(e)
			if !ok {
				return nil, false
			}
			v[k] = e
		}
	}
	return v, true
}

// writeAll writes every file through a temporary name and a rename, after everything was rendered: an error leaves
// no half-written file behind, though the files written before it stay (the set is not written atomically).
func writeAll(files map[string][]byte) error {
	for path, data := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return nil
}
