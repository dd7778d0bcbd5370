package nodeaction

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// input is what every rule reads: both sides, raw and decoded once, and the paths that change.
type input struct {
	Old, New side
	// Changed lists the node paths whose contents change, in fileOrder.
	Changed []string
}

// side is one side of a change.
type side struct {
	// Files are the written files.
	Files nodefiles.Files
	// Conf is registries.conf decoded as the machine-config daemon decodes it (the base file when none
	// is written).
	Conf *registriesConf
	// DropIn is the search drop-in decoded, nil when it does not exist.
	DropIn *sysregistriesv2.V2RegistriesConf
	// Policies are policy.json (the base file when none is written) and the namespace policies, decoded as
	// generic JSON, by node path.
	Policies map[string]any
	// RegistriesD are the registries.d files written, decoded, by node path.
	RegistriesD map[string]*registriesD
}

// content returns what the node has at p on this side: the written contents or the base file, and whether
// a file exists there at all.
func (s *side) content(p string) ([]byte, bool) {
	if data, ok := s.Files.Get(p); ok {
		return data, true
	}
	base := nodefiles.Base(p)
	return base, base != nil
}

// registriesConf is a registries.conf as the machine-config daemon sees it.
type registriesConf struct {
	sysregistriesv2.V2RegistriesConf
	// ByScope maps each entry's scope (its prefix, or its location when the prefix is empty) to the
	// entry; a later entry with the same scope replaces an earlier one, as in the daemon.
	ByScope map[string]sysregistriesv2.Registry
	// Scopes are the keys of ByScope, sorted.
	Scopes []string
}

// entryScope returns the key the daemon gives an entry: its prefix, or its location when the prefix is
// empty.
func entryScope(r *sysregistriesv2.Registry) string {
	if r.Prefix != "" {
		return r.Prefix
	}
	return r.Location
}

// parseRegistries decodes a registries.conf with BurntSushi/toml into containers/image's types, without
// the library's normalization, as the machine-config daemon does.
func parseRegistries(data []byte) (*registriesConf, error) {
	r := &registriesConf{ByScope: map[string]sysregistriesv2.Registry{}}
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&r.V2RegistriesConf); err != nil {
		return nil, err
	}
	for _, reg := range r.Registries {
		s := entryScope(&reg)
		if _, dup := r.ByScope[s]; !dup {
			r.Scopes = append(r.Scopes, s)
		}
		r.ByScope[s] = reg
	}
	sort.Strings(r.Scopes)
	return r, nil
}

func parseDropIn(data []byte) (*sysregistriesv2.V2RegistriesConf, error) {
	c := &sysregistriesv2.V2RegistriesConf{}
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, err
	}
	return c, nil
}

func parsePolicy(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// registriesD is a registries.d file (containers-registries.d(5)): per-scope signature storage settings.
type registriesD struct {
	// DefaultDocker holds the settings for scopes no Docker key matches, nil when absent.
	DefaultDocker map[string]any `json:"default-docker"`
	// Docker maps a scope (e.g. "quay.io/myorg") to its settings, e.g. {"use-sigstore-attachments": true}.
	Docker map[string]map[string]any `json:"docker"`
}

func parseRegistriesD(data []byte) (*registriesD, error) {
	d := &registriesD{}
	if err := yaml.Unmarshal(data, d); err != nil {
		return nil, err
	}
	return d, nil
}

// newInput decodes both sides. An error names the file and the side that does not parse.
func newInput(old, new nodefiles.Files) (*input, error) {
	in := &input{}
	for _, s := range []struct {
		name  string
		files nodefiles.Files
		into  *side
	}{{"old", old, &in.Old}, {"new", new, &in.New}} {
		if err := s.into.decode(s.files); err != nil {
			return nil, fmt.Errorf("%s %w", s.name, err)
		}
	}
	in.Changed = changedPaths(&in.Old, &in.New)
	return in, nil
}

// decode fills a side from its files; an error names the file.
func (s *side) decode(files nodefiles.Files) error {
	s.Files = files
	s.Policies = map[string]any{}
	s.RegistriesD = map[string]*registriesD{}
	var err error
	conf, _ := s.content(nodefiles.RegistriesConf)
	if s.Conf, err = parseRegistries(conf); err != nil {
		return fmt.Errorf("%s: not a registries.conf: %w", nodefiles.RegistriesConf, err)
	}
	if data, ok := files.Get(nodefiles.SearchRegistries); ok {
		if s.DropIn, err = parseDropIn(data); err != nil {
			return fmt.Errorf("%s: not a registries.conf drop-in: %w", nodefiles.SearchRegistries, err)
		}
	}
	policyJSON, _ := s.content(nodefiles.PolicyJSON)
	if s.Policies[nodefiles.PolicyJSON], err = parsePolicy(policyJSON); err != nil {
		return fmt.Errorf("%s: not JSON: %w", nodefiles.PolicyJSON, err)
	}
	for _, f := range files {
		switch kindOf(f.Path) {
		case namespacePolicyFile:
			if s.Policies[f.Path], err = parsePolicy(f.Data); err != nil {
				return fmt.Errorf("%s: not JSON: %w", f.Path, err)
			}
		case registriesDFile:
			if s.RegistriesD[f.Path], err = parseRegistriesD(f.Data); err != nil {
				return fmt.Errorf("%s: not a registries.d YAML file: %w", f.Path, err)
			}
		}
	}
	return nil
}

// fileKind says which rule reads a node path.
type fileKind int

const (
	registriesConfFile fileKind = iota
	policyJSONFile
	registriesDFile
	namespacePolicyFile
	searchDropInFile
	containerRuntimeFile
	otherFile
)

func kindOf(p string) fileKind {
	switch {
	case p == nodefiles.RegistriesConf:
		return registriesConfFile
	case p == nodefiles.PolicyJSON:
		return policyJSONFile
	case p == nodefiles.SearchRegistries:
		return searchDropInFile
	case path.Dir(p) == nodefiles.RegistriesDir:
		return registriesDFile
	}
	if _, ok := nodefiles.IsNamespacePolicy(p); ok {
		return namespacePolicyFile
	}
	if p == nodefiles.StorageConf || strings.HasPrefix(p, nodefiles.CRIODropInPrefix) {
		return containerRuntimeFile
	}
	return otherFile
}

// changedPaths returns every path written on either side (or with a base file) whose contents differ,
// or that exists on one side only, sorted by fileOrder.
func changedPaths(old, new *side) []string {
	var out []string
	for _, p := range append(append(old.Files.Paths(), new.Files.Paths()...), nodefiles.RegistriesConf, nodefiles.PolicyJSON) {
		if slices.Contains(out, p) {
			continue
		}
		o, inOld := old.content(p)
		n, inNew := new.content(p)
		if inOld != inNew || !bytes.Equal(o, n) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return fileOrder(out[i], out[j]) })
	return out
}

// fileOrder orders node paths as the MachineConfig lists them (docs/semantics.md §9.6), then any other
// path, each group sorted.
func fileOrder(a, b string) bool {
	if ka, kb := rank(a), rank(b); ka != kb {
		return ka < kb
	}
	return a < b
}

func rank(p string) int {
	switch kindOf(p) {
	case registriesConfFile:
		return 0
	case policyJSONFile:
		return 1
	case registriesDFile:
		return 2
	case namespacePolicyFile:
		return 3
	case searchDropInFile:
		return 4
	}
	return 5
}

// changed reports whether p changes.
func (in *input) changed(p string) bool { return slices.Contains(in.Changed, p) }

// changedOf returns the changed paths of one kind.
func (in *input) changedOf(k fileKind) []string {
	var out []string
	for _, p := range in.Changed {
		if kindOf(p) == k {
			out = append(out, p)
		}
	}
	return out
}

// howWritten says how a changed file changes on the node, e.g. "written (the node's base file before)".
func (in *input) howWritten(p string) string {
	_, oldWritten := in.Old.Files.Get(p)
	_, newWritten := in.New.Files.Get(p)
	_, oldExists := in.Old.content(p)
	_, newExists := in.New.content(p)
	switch {
	case !oldExists:
		return "added"
	case !newExists:
		return "removed"
	case !oldWritten:
		return "written (the node's base file before)"
	case !newWritten:
		return "no longer written (back to the node's base file)"
	}
	return "contents changed"
}

// effectiveSearch returns the search list containers/image uses: the drop-in's when it sets one
// (a present key, even an empty list), registries.conf's otherwise.
func (s *side) effectiveSearch() []string {
	if s.dropInSetsSearch() {
		return s.DropIn.UnqualifiedSearchRegistries
	}
	return s.Conf.UnqualifiedSearchRegistries
}

// dropInSetsSearch reports whether the drop-in overrides registries.conf's search list.
func (s *side) dropInSetsSearch() bool {
	return s.DropIn != nil && s.DropIn.UnqualifiedSearchRegistries != nil
}

// list renders a search list change: "[a, b] -> [a, b, c]".
func list(o, n []string) string {
	return fmt.Sprintf("[%s] -> [%s]", strings.Join(o, ", "), strings.Join(n, ", "))
}
