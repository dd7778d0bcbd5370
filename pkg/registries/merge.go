package registries

import (
	"fmt"
	"slices"
	"sync"

	"github.com/containers/image/v5/pkg/sysregistriesv2"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// Result is the merged mirror configuration: the files a node needs, and a report of how they came about.
// A nil file means the node keeps its base file (or has none).
type Result struct {
	// Registries is the registries.conf model, as written into RegistriesConf; nil when none is written.
	Registries *sysregistriesv2.V2RegistriesConf
	// RegistriesConf is the TOML of /etc/containers/registries.conf; nil when no mirror object exists
	// and no registry is insecure or blocked.
	RegistriesConf []byte
	// Policy is what policy.json needs from the merge; pkg/imagepolicy renders the file.
	Policy PolicyScopes
	// SearchRegistries is the search-registries drop-in; nil unless containerRuntimeSearchRegistries is set.
	SearchRegistries []byte
	// Report says where every mirror came from and what was not applied as written.
	Report Report

	loaded func() (*registriesconf.Config, error)
}

// Loaded returns Registries as containers/image holds it once loaded, for lookups in memory (which entry
// governs a scope, where a pull goes); nil when Registries is. It is built on first use, since only the signature
// side asks and building it costs a share of the merge that grows with the entries (docs/benchmarks.md), and it is
// safe for concurrent use.
func (r *Result) Loaded() (*registriesconf.Config, error) {
	if r.loaded == nil {
		return nil, nil
	}
	return r.loaded()
}

// Merge computes the mirror configuration's node files for the given inputs. It is pure and deterministic:
// the same inputs, in any order, give the same bytes, and nothing outside the process is read or written.
// Invalid inputs give an *inputs.InvalidError listing every problem; any other error is an internal
// failure. The caller loads the files back with containers/image before using them (render.Render does).
func Merge(in *inputs.Inputs) (*Result, error) {
	m, err := buildModel(in)
	if err != nil {
		return nil, err
	}
	res := &Result{Report: Report{Ignored: m.ignored, Warnings: m.plan.warnings}}
	digest, tag := m.digest, m.tag
	res.Report.sources = sync.OnceValue(func() []SourceReport {
		out := make([]SourceReport, 0, len(digest)+len(tag))
		for _, s := range append(append([]*mirrorSet{}, digest...), tag...) {
			out = append(out, s.report())
		}
		return out
	})
	if m.registries != nil {
		if err := m.registries.encode(); err != nil {
			return nil, err
		}
		res.Registries, res.loaded, res.RegistriesConf = m.registries.conf, m.registries.model, m.registries.data
		res.Report.Inherited = m.registries.inherited
	}
	rs := in.RegistrySources()
	res.Policy = policyScopes(scopeItems("spec.registrySources.allowedRegistries", rs.AllowedRegistries), m.plan)
	if len(rs.ContainerRuntimeSearchRegistries) > 0 {
		search := &sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: rs.ContainerRuntimeSearchRegistries}
		if res.SearchRegistries, err = encodeTOML(search); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// model is the merge up to the registries.conf model, before any encoding.
type model struct {
	digest, tag []*mirrorSet
	ignored     []inputs.Problem
	plan        *blockingPlan
	// registries is nil when no registries.conf is written.
	registries *rendered
}

// buildModel validates the inputs, merges the mirror sets, applies the release payload rule and builds
// the registries.conf model: the part of Merge that corresponds to MCO's EditRegistriesConfig.
func buildModel(in *inputs.Inputs) (*model, error) {
	entries := collectEntries(in)
	if ps := validate(in, entries); len(ps) > 0 {
		return nil, &inputs.InvalidError{Problems: ps}
	}
	m := &model{}
	m.digest, m.tag, m.ignored = mergeMirrorSets(entries)
	rs := in.RegistrySources()
	insecure := scopeItems("spec.registrySources.insecureRegistries", rs.InsecureRegistries)
	blocked := scopeItems("spec.registrySources.blockedRegistries", rs.BlockedRegistries)
	var err error
	if m.plan, err = planBlocking(in, m.digest, m.tag, insecure, blocked); err != nil {
		return nil, err
	}
	// As MCO: any mirror object, even one without entries, means a rendered registries.conf.
	switch {
	case m.plan.checked != nil:
		m.registries = m.plan.checked // the payload check rendered exactly this
	case in.MirrorObjects() > 0 || len(insecure) > 0 || len(blocked) > 0:
		if m.registries, err = renderRegistries(m.digest, m.tag, insecure, m.plan.blocked); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func scopeItems(field string, values []string) []scopeItem {
	out := make([]scopeItem, len(values))
	for i, v := range values {
		out[i] = scopeItem{scope: Scope(v), origin: inputs.FieldRef{Object: inputs.ImageRef, Field: fmt.Sprintf("%s[%d]", field, i)}}
	}
	return out
}

// rendered is a registries.conf model, what containers/image would hold once it loads it, and, once encoded,
// its bytes.
type rendered struct {
	conf *sysregistriesv2.V2RegistriesConf
	// model returns conf as containers/image would hold it (registriesconf.FromModel), built on first use.
	model     func() (*registriesconf.Config, error)
	inherited []InheritedReport
	data      []byte
}

// renderRegistries builds the registries.conf model from the node's base file; the problems that make
// the input impossible to render faithfully come back as an *inputs.InvalidError.
func renderRegistries(digest, tag []*mirrorSet, insecure, blocked []scopeItem) (*rendered, error) {
	regs, inherited, problems := buildRegistries(digest, tag, insecure, blocked)
	if len(problems) > 0 {
		inputs.SortProblems(problems)
		return nil, &inputs.InvalidError{Problems: problems}
	}
	conf := &sysregistriesv2.V2RegistriesConf{
		UnqualifiedSearchRegistries: slices.Clone(nodefiles.BaseSearchRegistries),
	}
	if len(regs) > 0 {
		conf.Registries = regs
	}
	model := sync.OnceValues(func() (*registriesconf.Config, error) {
		loaded, err := registriesconf.FromModel(conf)
		if err != nil {
			return nil, fmt.Errorf("internal error: containers/image would not load the rendered registries.conf: %w", err)
		}
		return loaded, nil
	})
	return &rendered{conf: conf, model: model, inherited: inherited}, nil
}

// encode fills data, once.
func (r *rendered) encode() error {
	if r.data != nil {
		return nil
	}
	var err error
	r.data, err = encodeTOML(r.conf)
	return err
}

// encodeTOML encodes a registries.conf model byte for byte as MCO does (BurntSushi/toml), which is
// what makes the bytes identical to those existing clusters carry.
func encodeTOML(conf *sysregistriesv2.V2RegistriesConf) ([]byte, error) {
	data, err := registriesconf.Encode(conf)
	if err != nil {
		return nil, fmt.Errorf("encoding registries configuration: %w", err)
	}
	return data, nil
}
