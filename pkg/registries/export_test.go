package registries

import (
	"regexp"

	"github.com/containers/image/v5/pkg/sysregistriesv2"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// MergeOnly runs what Merge does up to the registries.conf model, the equivalent of MCO's
// EditRegistriesConfig: validation, the mirror-set merge, the release payload rule and the entries,
// without encoding the file or loading it back. Benchmarks compare it with MCO.
func MergeOnly(in *inputs.Inputs) (*sysregistriesv2.V2RegistriesConf, error) {
	m, err := buildModel(in)
	if err != nil || m.registries == nil {
		return nil, err
	}
	return m.registries.conf, nil
}

// MatchesValue reports how a value of the given kind ("mirror", "source" or "host") is judged by the
// regular expression and by the fast path that precedes it.
func MatchesValue(kind, v string) (pattern, fast bool) {
	k := map[string]valueKind{"mirror": kindMirror, "source": kindSource, "host": kindHost}[kind]
	pattern = map[valueKind]*regexp.Regexp{kindMirror: mirrorPattern, kindSource: sourcePattern, kindHost: hostPortPattern}[k].MatchString(v)
	return pattern, k.wellFormed(v)
}
