package registries

import (
	"github.com/openshift/registries-controller/pkg/inputs"

	"fmt"
	"regexp"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
)

// The API patterns of ImageDigestMirrorSet and ImageTagMirrorSet (config/v1), applied here to every kind:
// ImageContentSourcePolicy has no API validation, and older CRDs of the others accept anything.
const (
	label      = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	hostPort   = label + `(?:(?:\.` + label + `)+)?(?::[0-9]+)?`
	pathPart   = `(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+`
	wildcardRE = `\*(?:\.` + label + `)+`
)

var (
	mirrorPattern   = regexp.MustCompile(`^(?:` + hostPort + `)(?:` + pathPart + `)?$`)
	sourcePattern   = regexp.MustCompile(`^(?:` + wildcardRE + `|` + hostPort + `(?:` + pathPart + `)?)$`)
	hostPortPattern = regexp.MustCompile(`^` + hostPort + `$`)
)

// valueKind selects the pattern and the words used in messages.
type valueKind int

const (
	kindMirror valueKind = iota // host[:port][/path]
	kindSource                  // host[:port][/path] or *.domain
	kindHost                    // host[:port], for search registries
)

func (k valueKind) noun() string {
	switch k {
	case kindMirror:
		return "a mirror"
	case kindSource:
		return "a registry scope"
	default:
		return "a search registry"
	}
}

func (k valueKind) form() string {
	switch k {
	case kindMirror:
		return "host[:port][/namespace...]"
	case kindSource:
		return "host[:port][/namespace...] or *.domain"
	default:
		return "host[:port]"
	}
}

func (k valueKind) matches(v string) bool {
	if k.wellFormed(v) {
		return true
	}
	switch k {
	case kindMirror:
		return mirrorPattern.MatchString(v)
	case kindSource:
		return sourcePattern.MatchString(v)
	default:
		return hostPortPattern.MatchString(v)
	}
}

// wellFormed is the fast path of matches, for the common case: it accepts only values the pattern of k
// accepts (host labels of letters, digits and inner "-", an optional numeric port, lowercase path
// components whose letters and digits are separated by ".", "_", "__" or runs of "-"; or "*." and host
// labels for a source), and leaves everything else to the regular expression. Matching the patterns was
// half of the merge's time at 10,000 sources.
func (k valueKind) wellFormed(v string) bool {
	if k == kindSource && strings.HasPrefix(v, "*.") {
		return validLabels(v[2:])
	}
	host, path, hasPath := strings.Cut(v, "/")
	if hasPath && k == kindHost {
		return false
	}
	name, port, hasPort := strings.Cut(host, ":")
	if hasPort && port == "" {
		return false
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	if !validLabels(name) {
		return false
	}
	for hasPath {
		var component string
		component, path, hasPath = strings.Cut(path, "/")
		if !validComponent(component) {
			return false
		}
	}
	return true
}

// validLabels reports whether s is one or more host labels joined by ".".
func validLabels(s string) bool {
	for {
		l, rest, more := strings.Cut(s, ".")
		if l == "" || !isAlnum(l[0]) || !isAlnum(l[len(l)-1]) {
			return false
		}
		for i := 1; i < len(l)-1; i++ {
			if !isAlnum(l[i]) && l[i] != '-' {
				return false
			}
		}
		if !more {
			return true
		}
		s = rest
	}
}

// validComponent reports whether c is a path component: runs of lowercase letters and digits separated
// by ".", "_", "__" or runs of "-".
func validComponent(c string) bool {
	if c == "" || !isLowerAlnum(c[0]) || !isLowerAlnum(c[len(c)-1]) {
		return false
	}
	for i := 0; i < len(c); {
		if isLowerAlnum(c[i]) {
			i++
			continue
		}
		j := i
		for j < len(c) && !isLowerAlnum(c[j]) {
			j++
		}
		if sep := c[i:j]; sep != "." && sep != "_" && sep != "__" && strings.Trim(sep, "-") != "" {
			return false
		}
		i = j
	}
	return true
}

func isLowerAlnum(b byte) bool { return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' }

func isAlnum(b byte) bool { return isLowerAlnum(b) || 'A' <= b && b <= 'Z' }

// checkValue returns nil when v is well-formed for its kind, and otherwise a problem saying precisely
// what is wrong with it and how to write it instead.
func checkValue(at inputs.FieldRef, field, v string, kind valueKind) *inputs.Problem {
	if kind.matches(v) {
		return nil
	}
	p := &inputs.Problem{At: inputs.FieldRef{Object: at.Object, Field: field}, Value: v}
	noun := kind.noun()
	suggest := func(fixed string) string {
		if fixed != "" && kind.matches(fixed) {
			return fmt.Sprintf("write it as %s, e.g. %q", kind.form(), fixed)
		}
		return fmt.Sprintf("write it as %s", kind.form())
	}
	lastPart := v[strings.LastIndexByte(v, '/')+1:]
	switch {
	case v == "":
		p.Message = noun + " must not be empty"
		p.Fix = "remove the empty item or " + suggest("")
	case strings.Contains(v, "://"):
		p.Message = noun + " must not carry a scheme"
		p.Fix = suggest(v[strings.Index(v, "://")+3:])
	case strings.Contains(v, "*") && kind == kindMirror:
		p.Message = "a mirror cannot be a wildcard: a pull needs one concrete location"
		p.Fix = "name the mirror host, e.g. \"mirror.example.com\""
	case strings.Contains(v, "*"):
		p.Message = noun + " may only use a wildcard as a leading \"*.\" followed by a domain, without port or path"
		p.Fix = suggest("")
	case strings.Contains(v, "@"):
		p.Message = noun + " must not carry a digest"
		p.Fix = suggest(v[:strings.IndexByte(v, '@')])
	case strings.HasSuffix(v, "/"):
		p.Message = noun + " must not end with \"/\""
		p.Fix = suggest(strings.TrimRight(v, "/"))
	case strings.Contains(v, "/") && strings.Contains(lastPart, ":"):
		p.Message = noun + " must not carry a tag"
		p.Fix = suggest(v[:len(v)-len(lastPart)+strings.IndexByte(lastPart, ':')])
	case kind == kindHost && strings.Contains(v, "/"):
		p.Message = noun + " is a registry host, it cannot have a path"
		p.Fix = suggest(v[:strings.IndexByte(v, '/')])
	case strings.Contains(v, "/") && strings.ToLower(v[strings.IndexByte(v, '/'):]) != v[strings.IndexByte(v, '/'):]:
		p.Message = "the repository path of " + noun + " must be lowercase"
		p.Fix = suggest(v[:strings.IndexByte(v, '/')] + strings.ToLower(v[strings.IndexByte(v, '/'):]))
	default:
		p.Message = fmt.Sprintf("%s must have the form %s", noun, kind.form())
		p.Fix = "use letters, digits and \"-\" in host labels, digits in the port, and lowercase path components"
	}
	return p
}

// validate returns every problem in the input, in a deterministic order, or nil.
func validate(in *inputs.Inputs, entries []mirrorEntry) []inputs.Problem {
	var ps []inputs.Problem
	add := func(p *inputs.Problem) {
		if p != nil {
			ps = append(ps, *p)
		}
	}
	for i := range entries {
		for _, p := range validateEntry(&entries[i]) {
			add(&p)
		}
	}
	ps = append(ps, policyConflicts(entries)...)
	ps = append(ps, validateRegistrySources(in.RegistrySources())...)
	inputs.SortProblems(ps)
	return ps
}

func validateEntry(e *mirrorEntry) []inputs.Problem {
	var ps []inputs.Problem
	at := e.origin
	if !kindSource.matches(e.source) {
		ps = append(ps, *checkValue(at, at.Field+".source", e.source, kindSource))
	}
	for j, m := range e.mirrors {
		if kindMirror.matches(m) && !dockerHubNamespace(m) && !(e.neverContactSource() && m == e.source) {
			// The common case, 40,000 times a render at the scale of a disconnected cluster: nothing to say, so
			// no field path is built.
			continue
		}
		field := fmt.Sprintf("%s.mirrors[%d]", at.Field, j)
		if p := checkValue(at, field, m, kindMirror); p != nil {
			ps = append(ps, *p)
			continue
		}
		if p := checkMirrorHost(at, field, m); p != nil {
			ps = append(ps, *p)
			continue
		}
		if e.neverContactSource() && m == e.source {
			ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: at.Object, Field: field}, Value: m,
				Message: "a mirror equals the source while mirrorSourcePolicy is NeverContactSource, so the source would be contacted after all",
				Fix:     "remove the source from the mirrors, or set mirrorSourcePolicy to AllowContactingSource"})
		}
	}
	switch e.policy {
	case "", configv1.AllowContactingSource:
	case configv1.NeverContactSource:
		if !e.hasRealMirror() {
			ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: at.Object, Field: at.Field + ".mirrorSourcePolicy"}, Value: string(e.policy),
				Message: "NeverContactSource needs at least one mirror other than the source, otherwise every pull from " + e.source + " would fail",
				Fix:     "add a mirror, or remove mirrorSourcePolicy"})
		}
	default:
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: at.Object, Field: at.Field + ".mirrorSourcePolicy"}, Value: string(e.policy),
			Message: "unknown mirrorSourcePolicy",
			Fix:     "use NeverContactSource or AllowContactingSource"})
	}
	return ps
}

// policyConflicts reports sources that are given different mirrorSourcePolicy values anywhere in the
// digest and tag groups (an ImageContentSourcePolicy entry counts as AllowContactingSource). Every entry
// involved gets a problem, naming one of the entries it conflicts with.
func policyConflicts(entries []mirrorEntry) []inputs.Problem {
	known := func(e *mirrorEntry) bool {
		return e.policy == "" || e.policy == configv1.AllowContactingSource || e.policy == configv1.NeverContactSource
	}
	first := map[bool]map[string]*mirrorEntry{true: {}, false: {}} // by neverContactSource, then source
	for i := range entries {
		e := &entries[i]
		if byNever := first[e.neverContactSource()]; known(e) && byNever[e.source] == nil {
			byNever[e.source] = e
		}
	}
	var ps []inputs.Problem
	for i := range entries {
		e := &entries[i]
		other := first[!e.neverContactSource()][e.source]
		if !known(e) || other == nil {
			continue
		}
		field := e.origin.Field + ".mirrorSourcePolicy"
		if e.origin.Object.Kind == inputs.KindImageContentSourcePolicy {
			field = e.origin.Field // the kind has no policy field; the entry itself counts as AllowContactingSource
		}
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: e.origin.Object, Field: field}, Value: policyName(e.policy),
			Message: fmt.Sprintf("source %q has mirrorSourcePolicy %s here but %s in %s", e.source, policyName(e.policy), policyName(other.policy), other.origin),
			Fix:     "give every entry for the same source the same mirrorSourcePolicy (ImageContentSourcePolicy entries count as AllowContactingSource)"})
	}
	return ps
}

func policyName(p configv1.MirrorSourcePolicy) string {
	if p == "" {
		return string(configv1.AllowContactingSource)
	}
	return string(p)
}

func validateRegistrySources(rs *configv1.RegistrySources) []inputs.Problem {
	var ps []inputs.Problem
	at := inputs.FieldRef{Object: inputs.ImageRef}
	lists := []struct {
		field  string
		values []string
		kind   valueKind
	}{
		{"spec.registrySources.insecureRegistries", rs.InsecureRegistries, kindSource},
		{"spec.registrySources.blockedRegistries", rs.BlockedRegistries, kindSource},
		{"spec.registrySources.allowedRegistries", rs.AllowedRegistries, kindSource},
		{"spec.registrySources.containerRuntimeSearchRegistries", rs.ContainerRuntimeSearchRegistries, kindHost},
	}
	for _, l := range lists {
		for i, v := range l.values {
			if p := checkValue(at, fmt.Sprintf("%s[%d]", l.field, i), v, l.kind); p != nil {
				ps = append(ps, *p)
			}
		}
	}
	if len(rs.AllowedRegistries) > 0 && len(rs.BlockedRegistries) > 0 {
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: inputs.ImageRef, Field: "spec.registrySources"},
			Value:   fmt.Sprintf("allowedRegistries: %s, blockedRegistries: %s", shortList(rs.AllowedRegistries), shortList(rs.BlockedRegistries)),
			Message: "allowedRegistries and blockedRegistries cannot both be set",
			Fix:     "keep only one: allowedRegistries rejects everything not listed, blockedRegistries rejects only what is listed"})
	}
	return ps
}

// shortList prints at most three items of a list, for messages about lists of up to 1024 items.
func shortList(items []string) string {
	if len(items) <= 3 {
		return "[" + strings.Join(items, ", ") + "]"
	}
	return fmt.Sprintf("[%s, and %d more]", strings.Join(items[:3], ", "), len(items)-3)
}

// checkMirrorHost rejects a mirror whose first component containers/image does not read as a registry
// host: without a "." or a port, and other than "localhost", "mirror/ns" names the Docker Hub repository
// docker.io/mirror/ns, the rewritten reference is not canonical, and every pull of the source fails,
// the fallback to the source included.
func checkMirrorHost(at inputs.FieldRef, field, m string) *inputs.Problem {
	if !dockerHubNamespace(m) {
		return nil
	}
	host := mirrorHost(m)
	return &inputs.Problem{At: inputs.FieldRef{Object: at.Object, Field: field}, Value: m,
		Message: fmt.Sprintf("containers/image reads %q as a Docker Hub namespace, not a registry host, so every pull through this source would fail", host),
		Fix:     fmt.Sprintf("name the registry with its domain or port, e.g. %q or %q", host+".example.com", host+":5000")}
}

// mirrorHost returns the first component of a mirror, where containers/image looks for the registry host.
func mirrorHost(m string) string {
	if i := strings.IndexByte(m, '/'); i >= 0 {
		return m[:i]
	}
	return m
}

// dockerHubNamespace reports whether containers/image reads the first component of mirror m as a Docker Hub
// namespace rather than a registry host (checkMirrorHost).
func dockerHubNamespace(m string) bool {
	host := mirrorHost(m)
	return !strings.ContainsAny(host, ".:") && host != "localhost" && strings.ToLower(host) == host
}
