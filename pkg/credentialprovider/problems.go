package credentialprovider

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// KindName is the kind as written in YAML and in problems: CRIOCredentialProviderConfig "cluster".
const KindName = "CRIOCredentialProviderConfig"

// SingletonName is the one name the API accepts for the object, and the only one MCO reads.
const SingletonName = "cluster"

// The limits and messages of the CRD's validation (config.openshift.io/v1, openshift/api
// types_crio_credential_provider_config.go). The messages of the CEL rules are the API server's, verbatim.
const (
	minMatchImages   = 1
	maxMatchImages   = 50
	maxPatternLength = 512

	singletonMessage      = "criocredentialproviderconfig is a singleton, .metadata.name must be 'cluster'"
	globalWildcardMessage = "global wildcard '*' is not allowed"
	invalidPatternMessage = "invalid matchImages value, must be a valid fully qualified domain name in lowercase with optional wildcard, port, and path"
)

// matchImagePattern is the CRD's CEL rule for a matchImages entry: host labels of lowercase letters, digits
// and inner "-", or "*"; an optional numeric port; an optional path of lowercase letters, digits, "-", ".",
// "_" and "/". CEL's matches() is RE2, as Go's regexp.
var matchImagePattern = regexp.MustCompile(`^((\*|[a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.(\*|[a-z0-9]([a-z0-9-]*[a-z0-9])?))*)(:[0-9]+)?(/[-a-z0-9._/]*)?$`)

// patternForm says how a matchImages entry is written, for the Fix of a problem.
const patternForm = `write it as host[:port][/path] in lowercase, with "*" only as a whole host label, e.g. "*.example.com", "k8s.*" or "registry.example.com:5000/team"`

// Problems returns what the API server's validation of the CRD would refuse in cfg, every problem at once,
// in field order; nil for a nil cfg or a valid one. The offline `render` uses it, since it has no API server.
// The checks are the CRD's: the name must be "cluster"; spec is required; matchImages, when present, holds
// 1 to 50 distinct entries (a set); each entry is 1 to 512 characters, is not "*" and matches the CEL rule's
// pattern. The two CEL rules' messages are the API server's, verbatim.
//
// For matchImages ["Registry.COM", "*"] on an object named "default":
//
//	CRIOCredentialProviderConfig "default": metadata.name: "default": criocredentialproviderconfig is a singleton, .metadata.name must be 'cluster'; ...
//	CRIOCredentialProviderConfig "default": spec.matchImages[0]: "Registry.COM": invalid matchImages value, must be ...; write it in lowercase: "registry.com"
//	CRIOCredentialProviderConfig "default": spec.matchImages[1]: "*": global wildcard '*' is not allowed; ...
func Problems(cfg *configv1.CRIOCredentialProviderConfig) []inputs.Problem {
	if cfg == nil {
		return nil
	}
	obj := inputs.ObjectRef{Kind: KindName, Name: cfg.Name}
	at := func(field string) inputs.FieldRef { return inputs.FieldRef{Object: obj, Field: field} }
	var ps []inputs.Problem
	if cfg.Name != SingletonName {
		ps = append(ps, inputs.Problem{At: at("metadata.name"), Value: cfg.Name, Message: singletonMessage,
			Fix: fmt.Sprintf("name the object %q: no other name is read", SingletonName)})
	}
	if cfg.Spec == nil {
		return append(ps, inputs.Problem{At: at("spec"), Message: "spec is required",
			Fix: "write \"spec: {}\" for no images, or list the image patterns under spec.matchImages"})
	}
	images := cfg.Spec.MatchImages
	switch {
	case images != nil && len(images) < minMatchImages:
		ps = append(ps, inputs.Problem{At: at("spec.matchImages"), Value: "[]",
			Message: fmt.Sprintf("must have at least %d item", minMatchImages),
			Fix:     "list at least one image pattern, or remove matchImages"})
	case len(images) > maxMatchImages:
		ps = append(ps, inputs.Problem{At: at("spec.matchImages"), Value: fmt.Sprintf("%d items", len(images)),
			Message: fmt.Sprintf("must have at most %d items", maxMatchImages),
			Fix:     "merge entries into wildcards such as \"*.example.com\", or remove some"})
	}
	first := map[configv1.MatchImage]int{}
	for i, m := range images {
		field := fmt.Sprintf("spec.matchImages[%d]", i)
		if j, seen := first[m]; seen {
			ps = append(ps, inputs.Problem{At: at(field), Value: string(m),
				Message: fmt.Sprintf("duplicate of spec.matchImages[%d]: the list is a set", j),
				Fix:     "remove the repeated entry"})
		} else {
			first[m] = i
		}
		for _, p := range patternProblems(string(m)) {
			p.At = at(field)
			ps = append(ps, p)
		}
	}
	return ps
}

// patternProblems returns the problems of one matchImages entry, without their position.
func patternProblems(v string) []inputs.Problem {
	var ps []inputs.Problem
	add := func(message, fix string) { ps = append(ps, inputs.Problem{Value: v, Message: message, Fix: fix}) }
	switch n := utf8.RuneCountInString(v); {
	case n == 0:
		add("must not be empty", "remove the empty entry")
	case n > maxPatternLength:
		add(fmt.Sprintf("must be at most %d characters long, not %d", maxPatternLength, n), "shorten the path, or use a wildcard host label")
	}
	if v == "*" {
		add(globalWildcardMessage, `name the registries, e.g. "*.example.com" or "k8s.*"; the kubelet would send every image to the plugin`)
	}
	if !matchImagePattern.MatchString(v) {
		add(invalidPatternMessage, patternFix(v))
	}
	return ps
}

// patternFix suggests how to write v so that the CEL rule accepts it.
func patternFix(v string) string {
	fixed := v
	if i := strings.Index(fixed, "://"); i >= 0 {
		fixed = fixed[i+3:]
	}
	fixed = strings.ToLower(strings.TrimRight(fixed, "/"))
	if fixed != "" && matchImagePattern.MatchString(fixed) {
		return fmt.Sprintf("write it as %q", fixed)
	}
	return patternForm
}
