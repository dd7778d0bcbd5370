package imagepolicy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// origin is a policy scope a sigstore-registries.yaml key comes from.
type origin struct {
	scope string
	at    inputs.FieldRef
}

// registriesD is a registries.d file, as containers/image's docker/registries_d.go reads it (its types are
// not exported).
type registriesD struct {
	Docker map[string]registriesDNamespace `json:"docker"`
}

type registriesDNamespace struct {
	UseSigstoreAttachments bool `json:"use-sigstore-attachments"`
}

// The lookup of docs/semantics.md §9.5 asks for the pull sources of a digest and of a tag reference under each scope.
const (
	lookupDigest = digest.Digest("sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	lookupTag    = "aaa"
)

// sigstoreKeys returns the keys of sigstore-registries.yaml (docs/semantics.md §9.5), each with the policy
// scopes it comes from: every policy scope, and, when registries.conf is rendered (conf not nil), the primary
// location and mirrors of the entry that governs the scope and of every entry nested in it. Signatures of a
// mirrored image are read from the mirror the image comes from, so each mirror needs attachments turned on.
func sigstoreKeys(uses []scopeUse, conf *registriesconf.Config) (map[string][]origin, []inputs.Problem) {
	keys := map[string][]origin{}
	add := func(key string, u scopeUse) {
		o := origin{scope: u.scope, at: u.at}
		if !slices.Contains(keys[key], o) {
			keys[key] = append(keys[key], o)
		}
	}
	var problems []inputs.Problem
	var entries []sysregistriesv2.Registry
	if conf != nil {
		var err error
		if entries, err = conf.Registries(); err != nil {
			return nil, []inputs.Problem{{Message: fmt.Sprintf("internal error: reading the rendered registries.conf: %v", err)}}
		}
	}
	for _, u := range uses {
		add(u.scope, u)
		if conf == nil {
			continue
		}
		lookups := []string{u.scope}
		for _, e := range entries { // the entries nested in the scope, by the rule of docs/semantics.md §2
			if e.Prefix != u.scope && registries.Scope(u.scope).Contains(registries.Scope(e.Prefix)) {
				lookups = append(lookups, e.Prefix)
			}
		}
		for _, s := range lookups {
			names, err := endpoints(conf, s)
			if err != nil {
				problems = append(problems, inputs.Problem{At: u.at, Value: u.scope, Message: fmt.Sprintf("the mirrors of %q cannot be looked up: %v", s, err)})
				continue
			}
			for _, n := range names {
				add(n, u)
			}
		}
	}
	return keys, problems
}

// endpoints returns the repositories pulls under scope s go to: the mirrors of the entry that governs s
// (digest and tag pulls), and its primary location unless the entry is a wildcard.
func endpoints(conf *registriesconf.Config, s string) ([]string, error) {
	reg, err := conf.FindRegistry(s)
	if err != nil || reg == nil {
		return nil, err
	}
	repo, added, err := lookupName(s)
	if err != nil {
		return nil, err
	}
	byDigest, err := reference.WithDigest(repo, lookupDigest)
	if err != nil {
		return nil, err
	}
	byTag, err := reference.WithTag(repo, lookupTag)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ref := range []reference.Named{byDigest, byTag} {
		sources, err := reg.PullSourcesFromReference(ref)
		if err != nil {
			return nil, err
		}
		for _, src := range sources {
			if src.Endpoint.Location == "" { // the primary of a wildcard entry: only its mirrors count
				continue
			}
			name := src.Reference.Name()
			if added {
				name = strings.TrimSuffix(name, dummyPath)
			}
			out = append(out, name)
		}
	}
	return out, nil
}

// encodeSigstore writes sigstore-registries.yaml as MCO does, with sigs.k8s.io/yaml (yaml.v2's
// key order, not bytewise).
func encodeSigstore(keys map[string][]origin) ([]byte, error) {
	f := registriesD{Docker: map[string]registriesDNamespace{}}
	for k := range keys {
		f.Docker[k] = registriesDNamespace{UseSigstoreAttachments: true}
	}
	data, err := yaml.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", nodefiles.SigstoreRegistries, err)
	}
	return data, nil
}

// baseCollisions reports the keys that a base registries.d file of the node also defines (docs/semantics.md §9.9 D9):
// containers/image refuses a registries.d directory in which two files define the same docker key, which
// would fail every pull on the node.
func baseCollisions(keys map[string][]origin) []inputs.Problem {
	var out []inputs.Problem
	for _, name := range slices.Sorted(maps.Keys(nodefiles.BaseRegistriesDFiles)) {
		var base registriesD
		if err := yaml.Unmarshal(nodefiles.BaseRegistriesDFiles[name], &base); err != nil {
			return []inputs.Problem{{Message: fmt.Sprintf("internal error: the base file %s does not decode: %v", name, err)}}
		}
		for _, key := range slices.Sorted(maps.Keys(base.Docker)) {
			for _, o := range keys[key] {
				out = append(out, collision(o, key, name))
			}
		}
	}
	return out
}

func collision(o origin, key, file string) inputs.Problem {
	what := "this scope"
	if o.scope != key {
		what = fmt.Sprintf("the mirror lookup of this scope gives %q, which", key)
	}
	return inputs.Problem{At: o.at, Value: o.scope,
		Message: fmt.Sprintf("%s needs sigstore attachments in %s, but the node's %s/%s already configures %q, and containers/image refuses a registries.d directory in which two files configure the same key: every pull on the node would fail",
			what, nodefiles.SigstoreRegistries, nodefiles.RegistriesDir, file, key),
		Fix: fmt.Sprintf("use a narrower scope, e.g. %s/<namespace>", key)}
}
