package registries

import (
	"github.com/openshift/registries-controller/pkg/inputs"

	"sort"
	"strconv"
)

// mirrorSet is the merged configuration of one source within one group.
type mirrorSet struct {
	source  string
	group   Group
	lists   [][]string
	never   bool
	entries []inputs.FieldRef
	// origins maps each mirror to the entries that list it (report makes them field references).
	origins map[string][]mirrorOrigin
	// mirrors is the merged order (orderMirrors).
	mirrors []string
}

// mirrorOrigin is where an entry lists a mirror: the entry's origin and the mirror's index in its list.
type mirrorOrigin struct {
	entry *inputs.FieldRef
	index int
}

// fieldRef names the mirror's field, e.g. spec.imageDigestMirrors[3].mirrors[1].
func (o mirrorOrigin) fieldRef() inputs.FieldRef {
	return inputs.FieldRef{Object: o.entry.Object, Field: o.entry.Field + ".mirrors[" + strconv.Itoa(o.index) + "]"}
}

// mergeMirrorSets groups the entries by group and exact source string, orders each source's mirrors,
// and returns the sets of each group sorted by source. Entries without a real mirror are ignored
// entirely, their policy included, and listed in the returned notes.
func mergeMirrorSets(entries []mirrorEntry) (digest, tag []*mirrorSet, ignored []inputs.Problem) {
	byGroup := map[Group]map[string]*mirrorSet{DigestGroup: {}, TagGroup: {}}
	for i := range entries {
		e := &entries[i]
		if !e.hasRealMirror() {
			msg := "no mirrors, so the entry configures nothing"
			if len(e.mirrors) > 0 {
				msg = "its mirrors only repeat the source, so the entry configures nothing"
			}
			ignored = append(ignored, inputs.Problem{At: e.origin, Value: e.source, Message: msg})
			continue
		}
		sets := byGroup[e.group]
		s := sets[e.source]
		if s == nil {
			s = &mirrorSet{source: e.source, group: e.group, origins: make(map[string][]mirrorOrigin, len(e.mirrors))}
			sets[e.source] = s
		}
		s.lists = append(s.lists, e.mirrors)
		s.never = s.never || e.neverContactSource()
		s.entries = append(s.entries, e.origin)
		for j, m := range e.mirrors {
			if j > 0 && contains(e.mirrors[:j], m) {
				continue
			}
			s.origins[m] = append(s.origins[m], mirrorOrigin{entry: &e.origin, index: j})
		}
	}
	finish := func(sets map[string]*mirrorSet) []*mirrorSet {
		out := make([]*mirrorSet, 0, len(sets))
		for _, s := range sets {
			s.mirrors = orderMirrors(s.source, s.lists)
			out = append(out, s)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].source < out[j].source })
		return out
	}
	inputs.SortProblems(ignored)
	return finish(byGroup[DigestGroup]), finish(byGroup[TagGroup]), ignored
}

func (s *mirrorSet) report() SourceReport {
	r := SourceReport{Source: s.source, Group: s.group, NeverContactSource: s.never, Entries: s.entries}
	for _, m := range s.mirrors {
		origins := make([]inputs.FieldRef, len(s.origins[m]))
		for i, o := range s.origins[m] {
			origins[i] = o.fieldRef()
		}
		r.Mirrors = append(r.Mirrors, MirrorReport{Location: m, Origins: origins})
	}
	return r
}
