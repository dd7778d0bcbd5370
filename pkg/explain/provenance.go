package explain

import (
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
)

// Provenance says where the entries of a rendered configuration came from. All its methods accept a
// nil receiver and then know nothing.
type Provenance struct {
	// Report is the merge report: the objects behind every mirror, and the inherited entries.
	Report *registries.Report
	// RegistrySources is the Image "cluster" spec.registrySources the configuration was rendered from.
	RegistrySources configv1.RegistrySources
	// ClusterImagePolicies and ImagePolicies are the signature policies it was rendered from.
	ClusterImagePolicies []*configv1.ClusterImagePolicy
	ImagePolicies        []*configv1.ImagePolicy
}

// policyOrigins names the policy objects' scope fields equal to scope: every ClusterImagePolicy, and the
// ImagePolicies of namespace ns.
func (p *Provenance) policyOrigins(scope, ns string) []string {
	var out []string
	for _, c := range p.ClusterImagePolicies {
		for i, s := range c.Spec.Scopes {
			if string(s) == scope {
				out = append(out, fmt.Sprintf("%s spec.scopes[%d]", inputs.ObjectRef{Kind: inputs.KindClusterImagePolicy, Name: c.Name}, i))
			}
		}
	}
	for _, ip := range p.ImagePolicies {
		if ip.Namespace != ns || ns == "" {
			continue
		}
		for i, s := range ip.Spec.Scopes {
			if string(s) == scope {
				out = append(out, fmt.Sprintf("%s spec.scopes[%d]", inputs.ObjectRef{Kind: inputs.KindImagePolicy, Namespace: ip.Namespace, Name: ip.Name}, i))
			}
		}
	}
	sort.Strings(out)
	return out
}

// inheritedFrom returns the source whose mirrors the entry with this scope inherited, or "".
func (p *Provenance) inheritedFrom(scope string) string {
	if p == nil || p.Report == nil {
		return ""
	}
	for _, i := range p.Report.Inherited {
		if i.Scope == scope {
			return i.From
		}
	}
	return ""
}

// sourceReports returns the reports of a source, digest group first, as the entry lists its mirrors.
func (p *Provenance) sourceReports(source string) []registries.SourceReport {
	var out []registries.SourceReport
	for _, g := range []registries.Group{registries.DigestGroup, registries.TagGroup} {
		for _, s := range p.Report.SourceReports() {
			if s.Source == source && s.Group == g {
				out = append(out, s)
			}
		}
	}
	return out
}

// mirrorOrigins names the object fields behind one mirror of reg. The merge writes an entry's mirrors
// as the digest group's then the tag group's, and an inherited entry copies its source's in the same
// order, so the mirror's position finds its report.
func (p *Provenance) mirrorOrigins(reg *sysregistriesv2.Registry, m sysregistriesv2.Endpoint) []string {
	if p == nil || p.Report == nil || reg == nil {
		return nil
	}
	source, note := reg.Prefix, ""
	if from := p.inheritedFrom(reg.Prefix); from != "" {
		source, note = from, fmt.Sprintf(" (inherited from source %q)", from)
	}
	var merged []registries.MirrorReport
	for _, s := range p.sourceReports(source) {
		merged = append(merged, s.Mirrors...)
	}
	if len(merged) != len(reg.Mirrors) {
		return nil
	}
	var out []string
	for i, have := range reg.Mirrors {
		if have == m {
			for _, o := range merged[i].Origins {
				out = append(out, o.String()+note)
			}
			break
		}
	}
	return out
}

// blockedBy names what blocks the entry with this scope: NeverContactSource on its source (or the
// source it inherits from), and the blocked registries that cover it.
func (p *Provenance) blockedBy(scope string) []string {
	if p == nil {
		return nil
	}
	var out []string
	if p.Report != nil {
		sources := []string{scope}
		if from := p.inheritedFrom(scope); from != "" {
			sources = append(sources, from)
		}
		for _, src := range sources {
			for _, s := range p.Report.SourceReports() {
				if s.Source != src || !s.NeverContactSource {
					continue
				}
				for _, o := range s.Entries {
					out = append(out, fmt.Sprintf("mirrorSourcePolicy NeverContactSource for source %q (%s)", src, o))
				}
			}
		}
	}
	out = append(out, p.covering("blockedRegistries", p.RegistrySources.BlockedRegistries, scope)...)
	return out
}

// insecureBy names the insecure registries that cover a location.
func (p *Provenance) insecureBy(location string) []string {
	if p == nil {
		return nil
	}
	return p.covering("insecureRegistries", p.RegistrySources.InsecureRegistries, location)
}

// covering returns the items of an Image registrySources list whose scope contains s, and that the merge
// did not leave out (those are in the report's warnings).
func (p *Provenance) covering(list string, items []string, s string) []string {
	var out []string
	for i, item := range items {
		field := fmt.Sprintf("spec.registrySources.%s[%d]", list, i)
		if registries.Scope(item).Contains(registries.Scope(s)) && !p.leftOut(field) {
			out = append(out, fmt.Sprintf("Image %q %s (%q)", inputs.ImageConfigName, field, item))
		}
	}
	return out
}

func (p *Provenance) leftOut(field string) bool {
	if p.Report == nil {
		return false
	}
	for _, w := range p.Report.Warnings {
		if w.At.Object.Kind == inputs.KindImage && w.At.Field == field {
			return true
		}
	}
	return false
}

// Rendered is a configuration rendered from cluster objects and loaded as a node loads it.
type Rendered struct {
	// Pool is the pool whose files were taken.
	Pool string
	// Files are that pool's node files, of every output: the mirror and signature configuration, and the kubelet's
	// credential provider files.
	Files nodefiles.Files
	// Platform is the cluster's platform, as the inputs' Infrastructure says ("" without one, rendered as None).
	Platform configv1.PlatformType
	// Config is the loaded configuration: base registries.conf when none is rendered, and the search
	// drop-in when there is one. Close releases it.
	Config *registriesconf.Config
	// Provenance says where each entry came from.
	Provenance *Provenance
}

// Close releases the loaded configuration.
func (r *Rendered) Close() { r.Config.Close() }

// workerPool is the pool whose files Render takes when it is rendered.
const workerPool = "worker"

// RenderPool renders in with render.Render, the path the controller uses, takes the files the worker pool's
// MachineConfigs write (or the first built-in pool's when there is no worker pool), merged as they land on a node
// (render.Output.PoolFiles), and loads them.
func RenderPool(in *inputs.Inputs, opts render.Options) (*Rendered, error) {
	out, err := render.Render(in, opts)
	if err != nil {
		return nil, err
	}
	if len(out.Pools) == 0 {
		return nil, fmt.Errorf("no pool to render for: no MachineConfigPool carries the %s label", machineconfigs.BuiltInPoolLabel)
	}
	pool := out.Pools[0]
	if slices.Contains(out.Pools, workerPool) {
		pool = workerPool
	}
	files := out.PoolFiles(pool)
	cfg, err := Load(files)
	if err != nil {
		return nil, err
	}
	return &Rendered{Pool: pool, Files: files, Platform: render.Platform(in), Config: cfg, Provenance: ProvenanceOf(in, out)}, nil
}

// ProvenanceOf says where the entries of out, a render of in, came from.
func ProvenanceOf(in *inputs.Inputs, out *render.Output) *Provenance {
	return &Provenance{Report: out.Report, RegistrySources: *in.RegistrySources(),
		ClusterImagePolicies: in.ClusterImagePolicies, ImagePolicies: in.ImagePolicies}
}

// Load loads the registries configuration of a node's files with containers/image: registries.conf (the base
// file when none is written) and the registries.conf.d drop-ins.
func Load(files nodefiles.Files) (*registriesconf.Config, error) {
	dropIns := map[string][]byte{}
	for _, f := range files.Under(nodefiles.DropInDir) {
		dropIns[path.Base(f.Path)] = f.Data
	}
	return registriesconf.Load(files.Content(nodefiles.RegistriesConf), dropIns)
}
