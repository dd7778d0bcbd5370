// Package explain says, before anything is applied, what a node does when it pulls one image: which
// [[registry]] entry of registries.conf governs the reference, the ordered list of places the pull
// tries (each reference rewritten for a mirror or the primary location, digest-only or tag-only,
// insecure, refused because blocked), and whether the source itself is ever contacted. With the objects
// a configuration was rendered from, it also names the objects and fields that contributed each mirror.
//
// With the node's credential provider files and what is known of a namespace (ExplainNamespaceCredentials), it also
// says which credentials each place of the pull uses for that namespace's pods through CRI-O's
// crio-credential-provider: names and keys of the namespace's secrets, never a value.
//
// It answers with containers/image's own logic, through pkg/registriesconf (FindRegistry and
// PullSourcesFromReference, as the docker transport calls them), never with a re-implementation.
package explain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/sysregistriesv2"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// Explanation is how a pull of one reference proceeds under one configuration.
type Explanation struct {
	// Reference is the reference as pulled, normalized, e.g. "quay.io/ns/app@sha256:…". A reference
	// without tag or digest is pulled as ":latest".
	Reference string
	// ByDigest is true for a pull by digest (digest-only mirrors apply), false for a pull by tag
	// (tag-only mirrors apply).
	ByDigest bool
	// Entry is the [[registry]] entry governing the reference, nil when none matches (the reference is
	// then pulled from where it names, with TLS verified).
	Entry *Entry
	// Attempts are the places the pull tries, in order; the first that has the image serves the pull.
	// The last one is the primary location.
	Attempts []Attempt
	// Skipped are the entry's mirrors the pull does not try, with why, e.g.
	// `"t.local" (tag-only: the reference is by digest)`.
	Skipped []string
	// Signatures says which signature requirement applies and where signatures are looked for; nil unless
	// ExplainSignatures filled it.
	Signatures *Signatures
	// AuthFile is the auth file ExplainCredentials looked credentials up in, "" when it was not called.
	AuthFile string
	// NamespaceCredentials says which credentials the pull uses for the pods of one namespace, through CRI-O's
	// crio-credential-provider; nil unless ExplainNamespaceCredentials filled it.
	NamespaceCredentials *NamespaceCredentials
	// Warnings are what is likely to fail, e.g. a mirror without credentials where the source has some.
	Warnings []string
}

// Entry is the [[registry]] entry a reference matches, as containers/image loaded it.
type Entry struct {
	// Prefix is the entry's prefix after loading (containers/image sets it to the location when the file
	// leaves it empty), e.g. "quay.io/ns".
	Prefix string
	// Location is where the prefix is pulled from when no mirror serves it.
	Location string
	// Blocked: pulls from the location are refused (blockedRegistries, or NeverContactSource).
	Blocked bool
	// Insecure: the location is contacted without TLS verification, and over plain HTTP when HTTPS fails.
	Insecure bool
	// MirrorByDigestOnly is the legacy registry-level setting: every mirror serves digest pulls only.
	MirrorByDigestOnly bool
	// InheritedFrom is the enclosing mirrored source whose mirrors the entry carries, "" when they are its
	// own or unknown (known only with Provenance).
	InheritedFrom string
	// BlockedBy names what blocks the entry, e.g. `ImageDigestMirrorSet "a" spec.imageDigestMirrors[0]
	// (mirrorSourcePolicy NeverContactSource)`; known only with Provenance.
	BlockedBy []string
}

// Attempt is one place a pull tries.
type Attempt struct {
	// Reference is the reference rewritten for this place, e.g. "mirror.local/ns/app@sha256:…".
	Reference string
	// Location is the mirror's or the primary location as configured.
	Location string
	// Primary is true for the last attempt, the entry's own location (the source).
	Primary bool
	// PullFromMirror is the mirror's pull-from-mirror ("digest-only", "tag-only", "all" or ""), "" for
	// the primary location.
	PullFromMirror string
	// Insecure is true when the attempt skips TLS verification and falls back to plain HTTP.
	Insecure bool
	// Blocked is true when the entry governing Reference is blocked: containers/image refuses the attempt
	// without contacting anything.
	Blocked bool
	// Entry is the prefix of the entry governing Reference ("" when none).
	Entry string
	// Origins name the object fields that contributed this mirror (only with Provenance).
	Origins []string
	// BlockedBy names what blocks the attempt when its entry is not the matched one (only with
	// Provenance; the matched entry's are in Entry.BlockedBy).
	BlockedBy []string
	// InsecureBy names what makes the attempt insecure (only with Provenance).
	InsecureBy []string
	// Credentials says whether the auth file holds credentials for the attempt; nil unless ExplainCredentials
	// looked, and for a blocked attempt.
	Credentials *Credentials
}

// ErrShortName is returned for a reference without a registry: CRI-O resolves those through the
// search list first, so there is no single answer.
var ErrShortName = errors.New("short name")

// Explain tells how a pull of ref proceeds under cfg. prov, when not nil, adds where each mirror and
// flag came from. A malformed reference, or a short name (no registry), is an error.
func Explain(cfg *registriesconf.Config, ref string, prov *Provenance) (*Explanation, error) {
	named, err := parse(cfg, ref)
	if err != nil {
		return nil, err
	}
	pull, err := cfg.PullSources(named)
	if err != nil {
		return nil, fmt.Errorf("containers/image cannot compute the pull sources of %s: %w", named, err)
	}
	_, byDigest := named.(reference.Canonical)
	e := &Explanation{Reference: named.String(), ByDigest: byDigest}
	if pull.Registry != nil {
		e.Entry = newEntry(pull.Registry, prov)
		e.Skipped = skipped(pull, byDigest)
	}
	for _, s := range pull.Sources {
		a := Attempt{
			Reference: s.Reference.String(),
			Location:  s.Endpoint.Location,
			Primary:   s.Primary,
			Insecure:  s.Insecure,
			Blocked:   s.Blocked,
			Entry:     s.Entry,
		}
		if !s.Primary {
			a.PullFromMirror = s.Endpoint.PullFromMirror
			a.Origins = prov.mirrorOrigins(pull.Registry, s.Endpoint)
		}
		if s.Blocked && (e.Entry == nil || s.Entry != e.Entry.Prefix) {
			// The matched entry's own reasons are on e.Entry already.
			a.BlockedBy = prov.blockedBy(s.Entry)
		}
		if s.Insecure {
			a.InsecureBy = prov.insecureBy(s.Endpoint.Location)
		}
		e.Attempts = append(e.Attempts, a)
	}
	return e, nil
}

// parse parses ref as CRI-O receives it; a reference without tag or digest gets ":latest".
func parse(cfg *registriesconf.Config, ref string) (reference.Named, error) {
	if isShortName(ref) {
		search, err := cfg.UnqualifiedSearchRegistries()
		if err != nil {
			return nil, err
		}
		example := "quay.io/" + ref
		if len(search) > 0 {
			example = search[0] + "/" + ref
		}
		return nil, fmt.Errorf("%w %q: CRI-O tries it on each search registry in turn ([%s]); name the registry, e.g. %q",
			ErrShortName, ref, strings.Join(search, ", "), example)
	}
	named, err := registriesconf.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	return reference.TagNameOnly(named), nil
}

// isShortName reports whether ref names no registry ("app:v1", "library/app"), with the test of
// containers/image's shortnames.IsShortName (that package also brings in a terminal prompt library,
// which this module does not carry): the first component is a registry when it holds "." or ":" or is
// "localhost". Unparsable input is not short; ParseReference reports it.
func isShortName(ref string) bool {
	r, err := reference.Parse(ref)
	if err != nil {
		return false
	}
	named, ok := r.(reference.Named)
	if !ok {
		return false
	}
	domain := reference.Domain(named)
	return !strings.ContainsAny(domain, ".:") && domain != "localhost"
}

func newEntry(reg *sysregistriesv2.Registry, prov *Provenance) *Entry {
	e := &Entry{
		Prefix:             reg.Prefix,
		Location:           reg.Location,
		Blocked:            reg.Blocked,
		Insecure:           reg.Insecure,
		MirrorByDigestOnly: reg.MirrorByDigestOnly,
		InheritedFrom:      prov.inheritedFrom(reg.Prefix),
	}
	if reg.Blocked {
		e.BlockedBy = prov.blockedBy(reg.Prefix)
	}
	return e
}

// skipped lists the entry's mirrors that the pull does not try, and why. Which mirrors are tried is
// containers/image's answer (pull.Sources); this only explains the ones it left out.
func skipped(pull *registriesconf.Pull, byDigest bool) []string {
	var out []string
	for _, m := range pull.Registry.Mirrors {
		tried := false
		for _, s := range pull.Sources {
			if !s.Primary && s.Endpoint == m {
				tried = true
			}
		}
		if tried {
			continue
		}
		why := "the reference is by tag"
		switch {
		case byDigest:
			why = "the reference is by digest"
		case pull.Registry.MirrorByDigestOnly:
			why = "mirror-by-digest-only, and the reference is by tag"
		}
		mode := m.PullFromMirror
		if mode == "" {
			mode = "all"
		}
		if pull.Registry.MirrorByDigestOnly {
			mode = "digest-only"
		}
		out = append(out, fmt.Sprintf("%q (%s: %s)", m.Location, mode, why))
	}
	return out
}

// SourceContacted reports whether the pull may reach the primary location (after every mirror failed):
// false when that attempt is refused as blocked.
func (e *Explanation) SourceContacted() bool {
	if len(e.Attempts) == 0 {
		return false
	}
	return !e.Attempts[len(e.Attempts)-1].Blocked
}
