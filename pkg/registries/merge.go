package registries

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/containers/image/v5/signature"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// Node file paths of the rendered files.
const (
	RegistriesConfPath   = "/etc/containers/registries.conf"
	PolicyJSONPath       = "/etc/containers/policy.json"
	SearchRegistriesPath = "/etc/containers/registries.conf.d/01-image-searchRegistries.conf"
)

// BaseSearchRegistries is the search list of the node's base registries.conf, which the rendered file
// starts from and replaces.
var BaseSearchRegistries = []string{"registry.access.redhat.com", "docker.io"}

// Result is the merged configuration: the files a node needs, and a report of how they came about.
// A nil file means the node keeps its base file.
type Result struct {
	// Registries is the registries.conf model, as written into RegistriesConf.
	Registries *sysregistriesv2.V2RegistriesConf
	// RegistriesConf is the TOML of /etc/containers/registries.conf; nil when no mirror object exists
	// and no registry is insecure or blocked.
	RegistriesConf []byte
	// Policy is the policy.json model, as written into PolicyJSON.
	Policy *signature.Policy
	// PolicyJSON is /etc/containers/policy.json; nil unless allowed or blocked registries apply.
	PolicyJSON []byte
	// SearchRegistries is the search-registries drop-in; nil unless containerRuntimeSearchRegistries is set.
	SearchRegistries []byte
	// Report says where every mirror came from and what was not applied as written.
	Report Report
}

// Merge computes the node files for the given inputs. It is pure and deterministic: the same inputs,
// in any order, give the same bytes. Invalid inputs give an *InvalidInputError listing every problem;
// any other error is an internal failure. Every file returned has been loaded back with
// containers/image, so a file CRI-O could not load is never produced.
func Merge(in *Inputs) (*Result, error) {
	m, err := buildModel(in)
	if err != nil {
		return nil, err
	}
	res := &Result{Report: Report{Ignored: m.ignored, Warnings: m.plan.warnings}}
	for _, s := range append(append([]*mirrorSet{}, m.digest...), m.tag...) {
		res.Report.Sources = append(res.Report.Sources, s.report())
	}
	if m.registries != nil {
		if err := m.registries.encode(); err != nil {
			return nil, err
		}
		res.Registries, res.RegistriesConf, res.Report.Inherited = m.registries.conf, m.registries.data, m.registries.inherited
	}
	rs := &in.RegistrySources
	if res.PolicyJSON, res.Policy, err = renderPolicy(rs.AllowedRegistries, m.plan); err != nil {
		return nil, err
	}
	if len(rs.ContainerRuntimeSearchRegistries) > 0 {
		search := &sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: rs.ContainerRuntimeSearchRegistries}
		if res.SearchRegistries, err = encodeTOML(search); err != nil {
			return nil, err
		}
	}
	if err := res.loadBack(); err != nil {
		return nil, err
	}
	return res, nil
}

// model is the merge up to the registries.conf model, before any encoding.
type model struct {
	digest, tag []*mirrorSet
	ignored     []Problem
	plan        *blockingPlan
	// registries is nil when no registries.conf is written.
	registries *rendered
}

// buildModel validates the inputs, merges the mirror sets, applies the release payload rule and builds
// the registries.conf model: the part of Merge that corresponds to the reference's EditRegistriesConfig.
func buildModel(in *Inputs) (*model, error) {
	entries := collectEntries(in)
	if ps := validate(in, entries); len(ps) > 0 {
		return nil, &InvalidInputError{Problems: ps}
	}
	m := &model{}
	m.digest, m.tag, m.ignored = mergeMirrorSets(entries)
	rs := &in.RegistrySources
	insecure := scopeItems("spec.registrySources.insecureRegistries", rs.InsecureRegistries)
	blocked := scopeItems("spec.registrySources.blockedRegistries", rs.BlockedRegistries)
	var err error
	if m.plan, err = planBlocking(in, m.digest, m.tag, insecure, blocked); err != nil {
		return nil, err
	}
	// As the reference: any mirror object, even one without entries, means a rendered registries.conf.
	mirrorObjects := len(in.ImageContentSourcePolicies) + len(in.ImageDigestMirrorSets) + len(in.ImageTagMirrorSets)
	switch {
	case m.plan.checked != nil:
		m.registries = m.plan.checked // the payload check rendered exactly this
	case mirrorObjects > 0 || len(insecure) > 0 || len(blocked) > 0:
		if m.registries, err = renderRegistries(m.digest, m.tag, insecure, m.plan.blocked); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func scopeItems(field string, values []string) []scopeItem {
	out := make([]scopeItem, len(values))
	for i, v := range values {
		out[i] = scopeItem{scope: Scope(v), origin: Origin{Object: imageRef, Field: fmt.Sprintf("%s[%d]", field, i)}}
	}
	return out
}

// rendered is a registries.conf model and, once encoded, its bytes.
type rendered struct {
	conf      *sysregistriesv2.V2RegistriesConf
	inherited []InheritedReport
	data      []byte
}

// renderRegistries builds the registries.conf model from the node's base file; the problems that make
// the input impossible to render faithfully come back as an *InvalidInputError.
func renderRegistries(digest, tag []*mirrorSet, insecure, blocked []scopeItem) (*rendered, error) {
	regs, inherited, problems := buildRegistries(digest, tag, insecure, blocked)
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, &InvalidInputError{Problems: problems}
	}
	conf := &sysregistriesv2.V2RegistriesConf{
		UnqualifiedSearchRegistries: append([]string(nil), BaseSearchRegistries...),
	}
	if len(regs) > 0 {
		conf.Registries = regs
	}
	return &rendered{conf: conf, inherited: inherited}, nil
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

// encodeTOML encodes a registries.conf model the way the reference does (BurntSushi/toml), which is what
// makes the bytes identical to those existing clusters carry.
func encodeTOML(conf *sysregistriesv2.V2RegistriesConf) ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
		return nil, fmt.Errorf("encoding registries configuration: %w", err)
	}
	return buf.Bytes(), nil
}

// errLoadBack marks a rendered file that containers/image rejects: always a bug here, never the
// user's input, since the input was validated.
var errLoadBack = errors.New("internal error: a rendered file does not load with containers/image")

// loadBack loads the rendered files with containers/image, as CRI-O would, and checks that the library
// reads back what was meant.
func (r *Result) loadBack() error {
	conf := r.RegistriesConf
	if conf == nil && r.SearchRegistries != nil {
		// The drop-in is read on top of the node's base file.
		var err error
		if conf, err = encodeTOML(&sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: BaseSearchRegistries}); err != nil {
			return err
		}
	}
	if conf != nil {
		dropIns := map[string][]byte{}
		if r.SearchRegistries != nil {
			dropIns["01-image-searchRegistries.conf"] = r.SearchRegistries
		}
		c, err := registriesconf.Load(conf, dropIns)
		if err != nil {
			return fmt.Errorf("%w: %v", errLoadBack, err)
		}
		defer c.Close()
		if r.Registries != nil {
			loaded, err := c.Registries()
			if err != nil {
				return fmt.Errorf("%w: %v", errLoadBack, err)
			}
			if len(loaded) != len(r.Registries.Registries) {
				return fmt.Errorf("%w: %d entries written, %d loaded", errLoadBack, len(r.Registries.Registries), len(loaded))
			}
		}
	}
	if r.PolicyJSON != nil {
		if _, err := signature.NewPolicyFromBytes(r.PolicyJSON); err != nil {
			return fmt.Errorf("%w: policy.json: %v", errLoadBack, err)
		}
	}
	return nil
}
