package nodeaction

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// BaseRegistriesConf is the node's base /etc/containers/registries.conf (semantics §3), which a rendered
// file replaces and which a node keeps when none is rendered.
var BaseRegistriesConf = []byte("unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n")

// BasePolicyJSON is the node's base /etc/containers/policy.json (semantics §3).
var BasePolicyJSON = []byte(`{
    "default": [{"type": "insecureAcceptAnything"}],
    "transports": {
        "docker-daemon": {
            "": [{"type": "insecureAcceptAnything"}]
        }
    }
}
`)

// input is what every rule reads: both sides, raw and decoded once.
type input struct {
	Old, New side
}

// side is one side of a change.
type side struct {
	// Files are the raw contents, nil when not written.
	Files Files
	// Conf is registries.conf decoded as the machine-config daemon decodes it (the base file when none
	// is written).
	Conf *registriesConf
	// DropIn is the search drop-in decoded, nil when it does not exist.
	DropIn *sysregistriesv2.V2RegistriesConf
	// Policy is policy.json decoded as generic JSON (the base file when none is written).
	Policy any
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
// the library's normalization, as the machine-config daemon does. nil means the base file.
func parseRegistries(data []byte) (*registriesConf, error) {
	if data == nil {
		data = BaseRegistriesConf
	}
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
	if data == nil {
		return nil, nil
	}
	c := &sysregistriesv2.V2RegistriesConf{}
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, err
	}
	return c, nil
}

func parsePolicy(data []byte) (any, error) {
	if data == nil {
		data = BasePolicyJSON
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// newInput decodes both sides. An error names the file and the side that does not parse.
func newInput(old, new Files) (*input, error) {
	in := &input{}
	for _, s := range []struct {
		name  string
		files Files
		into  *side
	}{{"old", old, &in.Old}, {"new", new, &in.New}} {
		s.into.Files = s.files
		var err error
		if s.into.Conf, err = parseRegistries(s.files.RegistriesConf); err != nil {
			return nil, fmt.Errorf("%s %s: not a registries.conf: %w", s.name, RegistriesConfPath, err)
		}
		if s.into.DropIn, err = parseDropIn(s.files.SearchRegistries); err != nil {
			return nil, fmt.Errorf("%s %s: not a registries.conf drop-in: %w", s.name, SearchRegistriesPath, err)
		}
		if s.into.Policy, err = parsePolicy(s.files.PolicyJSON); err != nil {
			return nil, fmt.Errorf("%s %s: not JSON: %w", s.name, PolicyJSONPath, err)
		}
	}
	return in, nil
}

// effectiveSearch returns the search list containers/image uses: the drop-in's when it sets one
// (a present key, even an empty list), registries.conf's otherwise.
func (s *side) effectiveSearch() []string {
	if s.DropIn != nil && s.DropIn.UnqualifiedSearchRegistries != nil {
		return s.DropIn.UnqualifiedSearchRegistries
	}
	return s.Conf.UnqualifiedSearchRegistries
}

// dropInSetsSearch reports whether the drop-in overrides registries.conf's search list.
func (s *side) dropInSetsSearch() bool {
	return s.DropIn != nil && s.DropIn.UnqualifiedSearchRegistries != nil
}
