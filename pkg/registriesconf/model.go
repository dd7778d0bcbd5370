package registriesconf

import (
	"fmt"
	"sort"
	"strings"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// FromModel returns the configuration containers/image would hold after loading conf, without writing or
// reading any file: entries normalized as the library does on load (an empty prefix takes the location,
// trailing "/" removed), the first entry of each prefix kept, sorted by prefix. It fails, as loading would,
// on an entry with neither prefix nor location, a scheme, an empty mirror location, or one registry defined
// twice with conflicting insecure or blocked settings. conf itself is not modified. Close is not needed.
func FromModel(conf *sysregistriesv2.V2RegistriesConf) (*Config, error) {
	model := &sysregistriesv2.V2RegistriesConf{
		UnqualifiedSearchRegistries: conf.UnqualifiedSearchRegistries,
		Registries:                  []sysregistriesv2.Registry{}, // as the library leaves it, even when empty
	}
	byLocation := map[string]*sysregistriesv2.Registry{}
	seen := map[string]bool{}
	for i := range conf.Registries {
		reg, err := normalize(conf.Registries[i])
		if err != nil {
			return nil, err
		}
		key := reg.Location
		if key == "" {
			key = reg.Prefix
		}
		if other := byLocation[key]; other != nil {
			if other.Insecure != reg.Insecure {
				return nil, fmt.Errorf("registry '%s' is defined multiple times with conflicting 'insecure' setting", reg.Location)
			}
			if other.Blocked != reg.Blocked {
				return nil, fmt.Errorf("registry '%s' is defined multiple times with conflicting 'blocked' setting", reg.Location)
			}
		} else {
			byLocation[key] = &conf.Registries[i]
		}
		if !seen[reg.Prefix] {
			seen[reg.Prefix] = true
			model.Registries = append(model.Registries, reg)
		}
	}
	sort.SliceStable(model.Registries, func(i, j int) bool { return model.Registries[i].Prefix < model.Registries[j].Prefix })
	return &Config{model: model}, nil
}

// normalize returns a copy of reg as the library holds it after loading.
func normalize(reg sysregistriesv2.Registry) (sysregistriesv2.Registry, error) {
	var err error
	if reg.Location, err = location(reg.Location); err != nil {
		return reg, err
	}
	switch {
	case reg.Prefix == "" && reg.Location == "":
		return reg, fmt.Errorf("invalid condition: both location and prefix are unset")
	case reg.Prefix == "":
		reg.Prefix = reg.Location
	default:
		if reg.Prefix, err = location(reg.Prefix); err != nil {
			return reg, err
		}
		if !strings.HasPrefix(reg.Prefix, "*.") && reg.Location == "" {
			return reg, fmt.Errorf("invalid condition: location is unset and prefix is not in the format: *.example.com")
		}
	}
	if reg.PullFromMirror != "" {
		return reg, fmt.Errorf("pull-from-mirror must not be set for a non-mirror registry %q", reg.Prefix)
	}
	if reg.Mirrors == nil {
		return reg, nil
	}
	mirrors := make([]sysregistriesv2.Endpoint, len(reg.Mirrors))
	for i, m := range reg.Mirrors {
		if m.Location, err = location(m.Location); err != nil {
			return reg, err
		}
		switch {
		case m.Location == "":
			return reg, fmt.Errorf("invalid condition: mirror location is unset")
		case reg.MirrorByDigestOnly && m.PullFromMirror != "":
			return reg, fmt.Errorf("cannot set mirror usage mirror-by-digest-only for the registry (%q) and pull-from-mirror for per-mirror (%q) at the same time", reg.Prefix, m.Location)
		case m.PullFromMirror != "" && m.PullFromMirror != sysregistriesv2.MirrorAll &&
			m.PullFromMirror != sysregistriesv2.MirrorByDigestOnly && m.PullFromMirror != sysregistriesv2.MirrorByTagOnly:
			return reg, fmt.Errorf("unsupported pull-from-mirror value %q for mirror %q", m.PullFromMirror, m.Location)
		}
		mirrors[i] = m
	}
	reg.Mirrors = mirrors
	return reg, nil
}

// location checks and normalizes a location as the library does: no scheme, no trailing "/".
func location(s string) (string, error) {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return "", fmt.Errorf("invalid location '%s': URI schemes are not supported", s)
	}
	return strings.TrimRight(s, "/"), nil
}

// findRegistry returns the entry with the longest prefix matching ref, the first of equal length (regs is
// sorted by prefix, so a wildcard wins a tie with a host of the same length), as the library's FindRegistry.
func findRegistry(regs []sysregistriesv2.Registry, ref string) *sysregistriesv2.Registry {
	best := -1
	for i := range regs {
		if matchPrefix(ref, regs[i].Prefix) && (best < 0 || len(regs[i].Prefix) > len(regs[best].Prefix)) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	reg := regs[best]
	return &reg
}

// matchPrefix reports whether ref (a registry, namespace, repository or full reference) is under prefix: equal,
// or continued by "/", ":" or "@"; for a wildcard "*.d", ".d" occurs before the first "/" of ref and is
// followed by the end or one of those characters.
func matchPrefix(ref, prefix string) bool {
	if strings.HasPrefix(prefix, "*.") {
		i := strings.Index(ref, prefix[1:])
		if i < 0 || strings.Contains(ref[:i], "/") {
			return false
		}
		return boundary(ref, i+len(prefix)-1)
	}
	return strings.HasPrefix(ref, prefix) && boundary(ref, len(prefix))
}

// boundary reports whether ref ends at i or continues there with "/", ":" or "@".
func boundary(ref string, i int) bool {
	if i == len(ref) {
		return true
	}
	c := ref[i]
	return c == '/' || c == ':' || c == '@'
}
