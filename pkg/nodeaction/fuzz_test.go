package nodeaction

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/sysregistriesv2"

	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// FuzzClassify builds two sides from the fuzz input (an old registries.conf model, a new one made from it
// by a few edits, and optionally a search drop-in on each side; see fuzzSides), encodes them, and checks:
//
//  1. a change that alters a pull source of any reference of a small corpus (a digest and a tag reference
//     below every entry scope and mirror location of either side), or the effective search list, as
//     containers/image computes them, is never predicted as "none", and its minimal action is not "none"
//     either;
//  2. the minimal action is never above the action;
//  3. Classify does not fail on files containers/image loads;
//  4. the action is the one the daemon's rules give, restated independently (daemonDrainsForRegistriesConf
//     for registries.conf; no policy covers the search drop-in, so it reboots);
//  5. Diff describes a change exactly when Classify finds a changed file, and a single-node cluster never
//     drains, doing otherwise the same.
//
// The seeds are in testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		old, new := fuzzSides(data)
		res, classifyErr := Classify(old.files, new.files, DefaultPolicy(), Options{})
		oldConf, oldErr := old.load()
		if oldErr == nil {
			defer oldConf.Close()
		}
		newConf, newErr := new.load()
		if newErr == nil {
			defer newConf.Close()
		}
		loads := oldErr == nil && newErr == nil
		if classifyErr != nil {
			if loads {
				t.Fatalf("Classify fails on files containers/image loads: %v\nold:\n%s\nnew:\n%s", classifyErr, old, new)
			}
			return
		}
		if res.Minimal.Level() > res.Action.Level() {
			t.Fatalf("minimal %s above action %s\nold:\n%s\nnew:\n%s", res.Minimal, res.Action, old, new)
		}
		if changes, err := Diff(old.files, new.files); err != nil || (len(changes) == 0) != (len(res.Changed) == 0) {
			t.Fatalf("Diff: %d changes, error %v, for %d changed files\nold:\n%s\nnew:\n%s", len(changes), err, len(res.Changed), old, new)
		}
		if sno, err := Classify(old.files, new.files, DefaultPolicy(), Options{SingleNode: true}); err != nil || sno.Action.Drain || sno.Action.Level() != res.Action.Level() && res.Action.Level() != LevelDrain {
			t.Fatalf("single node: %v, error %v, for %s elsewhere", sno.Action, err, res.Action)
		}
		want, err := expectedAction(old, new)
		if err != nil {
			t.Fatalf("the restated rule cannot read files Classify read: %v", err)
		}
		if res.Action.String() != want.String() {
			t.Fatalf("action %s, the daemon's rule restated gives %s\nold:\n%s\nnew:\n%s\nreasons: %v", res.Action, want, old, new, res.Reasons)
		}
		if !loads {
			return
		}
		if what := pullsDiffer(t, oldConf, newConf, fuzzReferences(old.conf, new.conf)); what != "" {
			if res.Action.Level() == LevelNone || res.Minimal.Level() == LevelNone {
				t.Fatalf("%s, yet the action is %s and the minimal %s\nold:\n%s\nnew:\n%s", what, res.Action, res.Minimal, old, new)
			}
		}
	})
}

// fuzzSide is one side built from fuzz bytes: the model and the files encoded from it.
type fuzzSide struct {
	conf   *sysregistriesv2.V2RegistriesConf // nil: registries.conf not written
	search []string                          // the drop-in's list; nil with dropIn false: no drop-in
	dropIn bool
	files  nodefiles.Files
}

func (s fuzzSide) String() string {
	var b strings.Builder
	for _, f := range s.files {
		fmt.Fprintf(&b, "--- %s\n%s\n", f.Path, f.Data)
	}
	return b.String()
}

// load reads the side as a node's containers/image would.
func (s fuzzSide) load() (*registriesconf.Config, error) {
	dropIns := map[string][]byte{}
	if data, ok := s.files.Get(nodefiles.SearchRegistries); ok {
		dropIns["01-image-searchRegistries.conf"] = data
	}
	conf, _ := s.files.Get(nodefiles.RegistriesConf)
	if conf == nil {
		conf = nodefiles.Base(nodefiles.RegistriesConf)
	}
	return registriesconf.Load(conf, dropIns)
}

// expectedAction is what the daemon does with the default policies, from the spec's rules.
func expectedAction(old, new fuzzSide) (Action, error) {
	o, _ := old.files.Get(nodefiles.SearchRegistries)
	n, _ := new.files.Get(nodefiles.SearchRegistries)
	if old.dropIn != new.dropIn || !bytes.Equal(o, n) {
		return reboot, nil
	}
	oc, nc := old.registriesConf(), new.registriesConf()
	if bytes.Equal(oc, nc) {
		return none, nil
	}
	drains, err := daemonDrainsForRegistriesConf(oc, nc)
	if drains {
		return drainAndReloadCRIO, err
	}
	return reloadCRIO, err
}

func (s fuzzSide) registriesConf() []byte {
	if data, ok := s.files.Get(nodefiles.RegistriesConf); ok {
		return data
	}
	return nodefiles.Base(nodefiles.RegistriesConf)
}

// Fuzz vocabularies: small, so that sides overlap often, with nested and wildcard scopes.
var (
	fuzzScopes    = []string{"a.io", "a.io/ns", "a.io/ns/app", "b.io:5000", "*.c.io", "x.c.io/team"}
	fuzzLocations = []string{"l.io", "l.io/x", "a.io/ns"}
	fuzzMirrors   = []string{"m1.io", "m2.io/mirror", "m3.io:5000/ns", "a.io/mirror"}
	fuzzPulls     = []string{"", sysregistriesv2.MirrorByDigestOnly, sysregistriesv2.MirrorByTagOnly, sysregistriesv2.MirrorAll}
	fuzzSearch    = []string{"a.io", "b.io", "c.io"}
)

// fuzzReader reads choices from fuzz bytes; an exhausted input reads as zeros.
type fuzzReader struct{ data []byte }

func (r *fuzzReader) byte() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

func (r *fuzzReader) bit() bool                 { return r.byte()&1 == 1 }
func (r *fuzzReader) upTo(n int) int            { return int(r.byte()) % (n + 1) }
func (r *fuzzReader) pick(from []string) string { return from[int(r.byte())%len(from)] }

// fuzzSides reads the two sides. Layout: the old model (see model), then edits (a count, then one opcode and
// its operands each, see edit) that make the new model from it, then one byte per side whose low bit says
// whether registries.conf is written and whose next bit whether a search drop-in exists, each drop-in's list
// (see list) following.
func fuzzSides(data []byte) (fuzzSide, fuzzSide) {
	r := &fuzzReader{data: data}
	old := r.model()
	new := cloneConf(old)
	for range r.upTo(6) {
		r.edit(new)
	}
	var sides [2]fuzzSide
	for i, conf := range []*sysregistriesv2.V2RegistriesConf{old, new} {
		b := r.byte()
		s := fuzzSide{}
		if b&1 == 0 {
			s.conf = conf
			data, err := registriesconf.Encode(conf)
			if err != nil {
				panic(err) // the model has no aliases: Encode cannot fail
			}
			s.files = append(s.files, nodefiles.File{Path: nodefiles.RegistriesConf, Data: data})
		}
		if b&2 != 0 {
			s.dropIn, s.search = true, r.list()
			data, err := registriesconf.Encode(&sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: s.search})
			if err != nil {
				panic(err)
			}
			s.files = append(s.files, nodefiles.File{Path: nodefiles.SearchRegistries, Data: data})
		}
		sides[i] = s
	}
	return sides[0], sides[1]
}

// model reads a search list and up to 4 entries.
func (r *fuzzReader) model() *sysregistriesv2.V2RegistriesConf {
	c := &sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: r.list()}
	for range r.upTo(4) {
		c.Registries = append(c.Registries, r.entry())
	}
	return c
}

// list reads a search list of up to 3 hosts.
func (r *fuzzReader) list() []string {
	out := []string{}
	for range r.upTo(3) {
		out = append(out, r.pick(fuzzSearch))
	}
	return out
}

// entry reads a scope (as a location, or a prefix with a location), three flags and up to 3 mirrors.
func (r *fuzzReader) entry() sysregistriesv2.Registry {
	reg := sysregistriesv2.Registry{}
	r.setScope(&reg, r.pick(fuzzScopes))
	flags := r.byte()
	reg.Blocked, reg.Insecure, reg.MirrorByDigestOnly = flags&1 != 0, flags&2 != 0, flags&4 != 0
	for range r.upTo(3) {
		reg.Mirrors = append(reg.Mirrors, r.mirror())
	}
	return reg
}

func (r *fuzzReader) setScope(reg *sysregistriesv2.Registry, scope string) {
	switch {
	case strings.HasPrefix(scope, "*."):
		reg.Prefix, reg.Location = scope, ""
		if r.bit() {
			reg.Location = r.pick(fuzzLocations)
		}
	case r.bit():
		reg.Prefix, reg.Location = scope, r.pick(append([]string{scope}, fuzzLocations...))
	default:
		reg.Prefix, reg.Location = "", scope
	}
}

func (r *fuzzReader) mirror() sysregistriesv2.Endpoint {
	return sysregistriesv2.Endpoint{Location: r.pick(fuzzMirrors), PullFromMirror: r.pick(fuzzPulls), Insecure: r.bit()}
}

// edit applies one edit to c: an opcode byte, then its operands.
func (r *fuzzReader) edit(c *sysregistriesv2.V2RegistriesConf) {
	op := r.byte() % 12
	if op == 0 {
		c.Registries = append(c.Registries, r.entry())
		return
	}
	if op == 1 {
		c.UnqualifiedSearchRegistries = r.list()
		return
	}
	if len(c.Registries) == 0 {
		return
	}
	i := int(r.byte()) % len(c.Registries)
	reg := &c.Registries[i]
	switch op {
	case 2:
		c.Registries = slices.Delete(c.Registries, i, i+1)
	case 3:
		reg.Blocked = !reg.Blocked
	case 4:
		reg.Insecure = !reg.Insecure
	case 5:
		reg.MirrorByDigestOnly = !reg.MirrorByDigestOnly
	case 6:
		reg.Mirrors = append(reg.Mirrors, r.mirror())
	case 7:
		r.setScope(reg, r.pick(fuzzScopes))
	case 8:
		c.Registries = append(c.Registries, *reg) // the same scope twice: the later table wins
	}
	if len(reg.Mirrors) == 0 || op < 9 {
		return
	}
	j := int(r.byte()) % len(reg.Mirrors)
	switch op {
	case 9:
		reg.Mirrors = slices.Delete(reg.Mirrors, j, j+1)
	case 10:
		reg.Mirrors[j].PullFromMirror = r.pick(fuzzPulls)
	case 11:
		reg.Mirrors[j].Insecure = !reg.Mirrors[j].Insecure
		reg.Mirrors[0], reg.Mirrors[j] = reg.Mirrors[j], reg.Mirrors[0]
	}
}

func cloneConf(c *sysregistriesv2.V2RegistriesConf) *sysregistriesv2.V2RegistriesConf {
	out := *c
	out.UnqualifiedSearchRegistries = slices.Clone(c.UnqualifiedSearchRegistries)
	out.Registries = slices.Clone(c.Registries)
	for i := range out.Registries {
		out.Registries[i].Mirrors = slices.Clone(out.Registries[i].Mirrors)
	}
	return &out
}

// fuzzReferences returns a digest and a tag reference below every scope and mirror location of both models
// (a wildcard scope gets a host of its domain).
func fuzzReferences(confs ...*sysregistriesv2.V2RegistriesConf) []string {
	var names []string
	add := func(s string) {
		if s = strings.Replace(s, "*.", "w.", 1); s != "" && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	for _, s := range fuzzScopes {
		add(s)
	}
	for _, c := range confs {
		if c == nil {
			continue
		}
		for _, reg := range c.Registries {
			add(reg.Prefix)
			add(reg.Location)
			for _, m := range reg.Mirrors {
				add(m.Location)
			}
		}
	}
	var refs []string
	for _, n := range names {
		refs = append(refs, n+"/img@sha256:"+strings.Repeat("a", 64), n+"/img:v1")
	}
	return refs
}

// pullsDiffer returns what differs between the two configurations for the references, "" when nothing
// does: the effective search list, or the sources a pull tries (their references, blocked and insecure
// flags), an error counting as a value.
func pullsDiffer(t *testing.T, old, new *registriesconf.Config, refs []string) string {
	t.Helper()
	oldSearch, err1 := old.UnqualifiedSearchRegistries()
	newSearch, err2 := new.UnqualifiedSearchRegistries()
	if !slices.Equal(oldSearch, newSearch) || fmt.Sprint(err1) != fmt.Sprint(err2) {
		return fmt.Sprintf("the search list changes: %v -> %v", oldSearch, newSearch)
	}
	for _, s := range refs {
		ref, err := registriesconf.ParseReference(s)
		if err != nil {
			t.Fatalf("corpus reference %q: %v", s, err)
		}
		if o, n := sources(old, ref), sources(new, ref); o != n {
			return fmt.Sprintf("the pull sources of %s change: %s -> %s", s, o, n)
		}
	}
	return ""
}

func sources(c *registriesconf.Config, ref reference.Named) string {
	pull, err := c.PullSources(ref)
	if err != nil {
		return "error: " + err.Error()
	}
	var parts []string
	for _, s := range pull.Sources {
		parts = append(parts, fmt.Sprintf("%s blocked=%t insecure=%t", s.Reference, s.Blocked, s.Insecure))
	}
	return strings.Join(parts, "; ")
}
