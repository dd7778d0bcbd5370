package registries

import (
	"fmt"
	"sort"
	"strconv"

	configv1 "github.com/openshift/api/config/v1"
)

// Group says which pulls a mirror serves. ImageDigestMirrorSet and ImageContentSourcePolicy entries
// form the digest group, ImageTagMirrorSet entries the tag group; the groups merge separately.
type Group string

const (
	// DigestGroup mirrors are written with pull-from-mirror = "digest-only".
	DigestGroup Group = "digest"
	// TagGroup mirrors are written with pull-from-mirror = "tag-only".
	TagGroup Group = "tag"
)

// Origin names one entry of one object, e.g. ImageDigestMirrorSet "team-a" spec.imageDigestMirrors[2].
type Origin struct {
	Object ObjectRef
	Field  string
}

func (o Origin) String() string { return fmt.Sprintf("%s %s", o.Object, o.Field) }

// mirrorEntry is one source with its mirrors, whichever kind of object it came from.
type mirrorEntry struct {
	origin  Origin
	group   Group
	source  string
	mirrors []string
	// policy is the entry's mirrorSourcePolicy; ImageContentSourcePolicy entries have none.
	policy configv1.MirrorSourcePolicy
}

// neverContactSource reports whether the entry forbids falling back to the source.
func (e *mirrorEntry) neverContactSource() bool { return e.policy == configv1.NeverContactSource }

// hasRealMirror reports whether some mirror differs from the source. Entries without one are ignored,
// policy included, as the reference does.
func (e *mirrorEntry) hasRealMirror() bool {
	for _, m := range e.mirrors {
		if m != e.source {
			return true
		}
	}
	return false
}

// collectEntries flattens the mirror objects into entries, in a fixed order (kind, object name, index)
// so that nothing downstream depends on the order the objects were listed in.
func collectEntries(in *Inputs) []mirrorEntry {
	n := 0
	for _, o := range in.ImageContentSourcePolicies {
		n += len(o.Spec.RepositoryDigestMirrors)
	}
	for _, o := range in.ImageDigestMirrorSets {
		n += len(o.Spec.ImageDigestMirrors)
	}
	for _, o := range in.ImageTagMirrorSets {
		n += len(o.Spec.ImageTagMirrors)
	}
	out := make([]mirrorEntry, 0, n)
	for _, icsp := range in.ImageContentSourcePolicies {
		obj := ObjectRef{Kind: KindImageContentSourcePolicy, Name: icsp.Name}
		for i, rdm := range icsp.Spec.RepositoryDigestMirrors {
			out = append(out, mirrorEntry{
				origin:  Origin{Object: obj, Field: "spec.repositoryDigestMirrors[" + strconv.Itoa(i) + "]"},
				group:   DigestGroup,
				source:  rdm.Source,
				mirrors: rdm.Mirrors,
			})
		}
	}
	for _, idms := range in.ImageDigestMirrorSets {
		obj := ObjectRef{Kind: KindImageDigestMirrorSet, Name: idms.Name}
		for i, m := range idms.Spec.ImageDigestMirrors {
			out = append(out, mirrorEntry{
				origin:  Origin{Object: obj, Field: "spec.imageDigestMirrors[" + strconv.Itoa(i) + "]"},
				group:   DigestGroup,
				source:  m.Source,
				mirrors: mirrorStrings(m.Mirrors),
				policy:  m.MirrorSourcePolicy,
			})
		}
	}
	for _, itms := range in.ImageTagMirrorSets {
		obj := ObjectRef{Kind: KindImageTagMirrorSet, Name: itms.Name}
		for i, m := range itms.Spec.ImageTagMirrors {
			out = append(out, mirrorEntry{
				origin:  Origin{Object: obj, Field: "spec.imageTagMirrors[" + strconv.Itoa(i) + "]"},
				group:   TagGroup,
				source:  m.Source,
				mirrors: mirrorStrings(m.Mirrors),
				policy:  m.MirrorSourcePolicy,
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].origin.Object, out[j].origin.Object
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	return out
}

func mirrorStrings(ms []configv1.ImageMirror) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}
